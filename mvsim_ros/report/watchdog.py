"""The command watchdog a run had: the node stops a vehicle whose commands are not renewed within
`base_watchdog_timeout` (1 s by default; docs/ros-interface.md). The timeout is read from the recording's `mvsim`
metadata record (key `base_watchdog_timeout` [s]) when the node wrote it there; otherwise the node's default is
assumed and the page says so."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The node's default command watchdog [s] (parameter `base_watchdog_timeout` of mvsim_node).
DEFAULT_TIMEOUT_S = 1.0
#: Metadata record and key naming the node's watchdog timeout [s] (0: off).
TIMEOUT_METADATA = ("mvsim", "base_watchdog_timeout")


@dataclass(frozen=True)
class Watchdog:
    """The command watchdog a run had: `timeout_s` [s] (0: off) and whether the recording said so (`recorded`)
    or the node's default is assumed."""

    timeout_s: float
    recorded: bool

    def describe(self) -> str:
        """One sentence for the page."""
        if self.timeout_s <= 0.0:
            return "The command watchdog was off (base_watchdog_timeout = 0): each command holds until the next one."
        where = "as recorded" if self.recorded else "the node's default; the recording does not name it"
        return (f"Commands are drawn as the controller saw them: the command watchdog ({self.timeout_s:g} s, "
                f"{where}) zeroes the speed and yaw rate of a command not renewed in time; the times it did are "
                f"marked.")


def watchdog_of(metadata_value) -> Watchdog:
    """The watchdog of a run from `metadata_value(name, key)` (Recording.metadata_value): the recorded timeout
    when it is a finite number >= 0, else DEFAULT_TIMEOUT_S."""
    text = metadata_value(*TIMEOUT_METADATA)
    try:
        value = float(text) if text is not None else math.nan
    except ValueError:
        value = math.nan
    if math.isfinite(value) and value >= 0.0:
        return Watchdog(value, True)
    return Watchdog(DEFAULT_TIMEOUT_S, False)
