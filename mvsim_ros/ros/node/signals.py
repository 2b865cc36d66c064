"""SIGINT and SIGTERM for the node process: a clean stop (exit status 0) at any moment, never a traceback.

Standard library only, so that `main()` can install the handlers before it imports rclpy, numba and the world
loader. A Python signal handler runs in the main thread wherever it happens to be, and an exception raised there
can land where it does harm: inside a numba compilation or a llvmlite/ctypes callback (printed, then ignored),
a `__del__`, a Box2D callback. So the handlers raise only where that is known to be safe:

- while starting, a signal is recorded, and `check()` (called between the start-up phases) raises `Interrupted`
  (a BaseException, so no `except Exception` swallows it), which main() turns into exit status 0;
- inside `interruptible()` (the world load, which can take seconds) the handler raises at once, when the main
  thread stands in this package's own code and no numba, llvmlite or Box2D frame nor a `__del__` is on the
  stack; elsewhere it looks again every RETRY_S (SIGALRM timer) until it can;
- once `hold()` is called (the node is about to spin, or is cleaning up) a signal only sets `requested` and calls
  the `wake` callback (which wakes the executor): nothing is ever raised inside a compiled kernel, a DDS call or
  the clean-up, and the simulation loop checks `requested` between steps.

`Interrupted` is raised at most once: a second Ctrl-C during the clean-up does not interrupt it.
"""

from __future__ import annotations

import contextlib
import signal
from types import FrameType
from typing import Callable, Iterator

#: The signals that stop the node.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Inside interruptible(): how soon [s] a signal that arrived at an unsafe place is looked at again.
RETRY_S = 0.005
#: Top-level packages in whose frames (anywhere on the stack) nothing is raised: compiled-code machinery with
#: callbacks from C, where an exception is printed and dropped or corrupts the caller.
_UNSAFE_PACKAGES = frozenset({"numba", "llvmlite", "Box2D", "ctypes", "weakref"})
#: Only raise when the innermost frame is code of this package (not this module).
_OWN_PACKAGE = "mvsim_ros."


class Interrupted(BaseException):
    """A stop signal arrived while the node was starting (raised once, caught by the node's main())."""


class StopSignals:
    """Own handlers for SIGINT and SIGTERM (call `install()`); `requested` tells whether one has arrived."""

    def __init__(self) -> None:
        #: True once SIGINT or SIGTERM has arrived; the first one's number in `signum`.
        self.requested = False
        self.signum: int | None = None
        #: Called (in the main thread) when a signal arrives after `hold()`: e.g. the executor's wake().
        self.wake: Callable[[], None] | None = None
        self._held = False
        self._raised = False
        self._interruptible = False
        self._previous: dict[int, object] = {}

    def install(self) -> "StopSignals":
        """Replace the handlers of SIGINT and SIGTERM (and SIGALRM, for the retries) by this object's; the
        previous ones are kept for `uninstall()`. Must be called from the main thread."""
        for signum in STOP_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        self._previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, self._retry)
        for signum in self._previous:
            signal.siginterrupt(signum, False)  # system calls of other threads (DDS) restart rather than fail
        return self

    def uninstall(self) -> None:
        """Put back the handlers that `install()` replaced."""
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def check(self) -> None:
        """Raise Interrupted if a stop signal has arrived (once, and never after `hold()`)."""
        if self.requested and not self._held and not self._raised:
            self._raised = True
            raise Interrupted(self.signum)

    def hold(self) -> None:
        """From now on a signal is only recorded (`requested`) and `wake` called; nothing is raised."""
        self._held = True
        self._interruptible = False

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        """A long stretch of this package's own Python code (the world load) that a signal may cut short: see
        the module's docstring. A signal that could not be raised inside is raised when the block ends."""
        self.check()
        self._interruptible = not self._held
        try:
            yield
        finally:
            self._interruptible = False
            if signal.SIGALRM in self._previous:  # installed: a retry may be pending
                signal.setitimer(signal.ITIMER_REAL, 0.0)
        self.check()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        if self.signum is None:
            self.signum = signum
        if self._held:
            wake = self.wake
            if wake is not None:
                try:
                    wake()
                except Exception:  # noqa: BLE001 (the executor is being shut down: nothing left to wake)
                    pass
            return
        self._retry(signum, frame)

    def _retry(self, signum: int, frame: FrameType | None) -> None:
        """Raise Interrupted here if the block is interruptible and the main thread stands at a safe place;
        otherwise look again in RETRY_S."""
        if not (self.requested and self._interruptible) or self._held or self._raised:
            return
        if safe_to_raise(frame):
            self._raised = True
            self._interruptible = False
            raise Interrupted(self.signum)
        signal.setitimer(signal.ITIMER_REAL, RETRY_S)


def safe_to_raise(frame: FrameType | None) -> bool:
    """Whether an exception raised in `frame` (where a signal handler interrupted the main thread) propagates
    normally: the frame is this package's code, and no frame on the stack is a `__del__` or belongs to a package
    that calls Python back from C (numba, llvmlite, Box2D, ctypes, weakref)."""
    if frame is None or not _module(frame).startswith(_OWN_PACKAGE) or _module(frame) == __name__:
        return False
    while frame is not None:
        if frame.f_code.co_name == "__del__" or _module(frame).partition(".")[0] in _UNSAFE_PACKAGES:
            return False
        frame = frame.f_back
    return True


def _module(frame: FrameType) -> str:
    return str(frame.f_globals.get("__name__", ""))


__all__ = ["Interrupted", "RETRY_S", "STOP_SIGNALS", "StopSignals", "safe_to_raise"]
