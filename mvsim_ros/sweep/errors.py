"""The one error type of sweeps that a user can cause: its message is one line saying what is wrong and where."""

from __future__ import annotations


class SweepError(Exception):
    """A sweep that cannot start or go on: a bad sweep file, an unusable output folder, no Ray cluster (the
    message is one line; `mvsim_sweep` prints it and exits with status 2)."""
