"""`render_mode='human'`: the top-down picture (top_view.py) shown in a matplotlib window, redrawn at every reset
and step and paced at the env's render_fps, as Gymnasium's own environments show theirs.

It needs a display and an interactive matplotlib backend (Tk, Qt, GTK, macOS): `display_available()` says
whether there is a display, and MvsimEnv offers 'human' only then; without an interactive backend the window
raises a RuntimeError that says what to install. Where neither exists (a server, CI), use 'rgb_array' (e.g. with
gymnasium.wrappers.RecordVideo).
"""

from __future__ import annotations

import os
import sys

import numpy as np

#: matplotlib backends that draw no window.
NON_INTERACTIVE = {"agg", "cairo", "pdf", "pgf", "ps", "svg", "template", "module://matplotlib_inline.backend_inline"}


def display_available() -> bool:
    """Whether windows can be shown: macOS and Windows always, elsewhere when DISPLAY (X11) or WAYLAND_DISPLAY is
    set."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class HumanWindow:
    """A window showing frames (H, W, 3) uint8, at most `fps` frames per second of wall time."""

    def __init__(self, title: str, fps: float):
        import matplotlib.pyplot as plt

        backend = str(plt.get_backend()).lower()
        if backend in NON_INTERACTIVE:
            raise RuntimeError(f"render_mode='human' needs an interactive matplotlib backend to open a window, and "
                               f"matplotlib uses '{backend}' here (install Tk, e.g. the python3-tk package, or PyQt, "
                               f"or set MPLBACKEND); render_mode='rgb_array' needs none")
        self._plt = plt
        self.pause_s = 1.0 / fps
        self.figure = plt.figure(title)
        self.axes = self.figure.add_axes((0.0, 0.0, 1.0, 1.0))
        self.axes.set_axis_off()
        self.image = None
        plt.ion()

    def show(self, frame: np.ndarray) -> None:
        """Draw `frame` and wait the rest of a frame period (the window stays responsive meanwhile)."""
        if self.image is None:
            self.image = self.axes.imshow(frame, interpolation="nearest")
            self.figure.set_size_inches(frame.shape[1] / 100.0, frame.shape[0] / 100.0)
            self.figure.show()
        else:
            self.image.set_data(frame)
        self._plt.pause(self.pause_s)

    def close(self) -> None:
        """Close the window (again: nothing)."""
        if self.figure is not None:
            self._plt.close(self.figure)
            self.figure = None
