"""NaN never reaches a vehicle: a computed command with a non-finite value is refused and the last valid one kept."""

from __future__ import annotations

import math
from typing import Generic, Sequence, TypeVar

Command = TypeVar("Command", bound=Sequence[float])


class CommandGuard(Generic[Command]):
    """Holds the last valid command. `accept(command)` returns (command to send, warning text or None): the
    command itself when all its values are finite, else the last valid one (or `initial` when there was none)
    with a warning naming the refused values."""

    def __init__(self, initial: Command) -> None:
        self.last: Command = initial
        self.refused = 0

    def accept(self, command: Command) -> tuple[Command, str | None]:
        """See the class docstring."""
        values = tuple(float(v) for v in command)
        if all(math.isfinite(v) for v in values):
            self.last = command
            return command, None
        self.refused += 1
        return self.last, (f"refused a non-finite command {tuple(command)!r}; keeping the last valid one "
                           f"{tuple(self.last)!r}")


__all__ = ["CommandGuard"]
