"""The running account of one world load against its LoadLimits, shared by every reader the load calls.

`load_world` opens a :func:`budget_scope`; everything it reaches (the preprocessor, the XML parsers, the occupancy
and elevation readers, zip extraction) charges the same :class:`LoadBudget` through :func:`active_budget`, so each
limit is counted over the whole load: the world file and everything it includes or names. Going over a limit
raises a WorldFileError naming the limit (its LoadLimits field, its value and the node parameter that sets it)
and the file:line:tag where it was reached. Readers called outside a load (tests, tools) get a fresh budget with
the default limits for each call.

The expression budget grows with what the world builds: each element a <for> loop produces (vehicles, their
<init_pose>, blocks, ...: counted in max_elements too) adds EXPRESSION_CHARS_PER_LOOP_ELEMENT characters to
max_expression_chars, so a world laying out thousands of vehicles with a few $f{} each loads with the defaults,
while the total stays bounded through max_elements (at the defaults: 100,000 + 20 x 100,000 characters).
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import sys
import threading
from typing import Iterator, Optional

from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.xml.limits import DEFAULT_LIMITS, LoadLimits

#: Where a limit was reached: (file, line or None, tag or None).
Where = tuple[str, Optional[int], Optional[str]]

#: $f{} expression and <if> condition characters [characters] each element produced by a <for> loop adds to
#: max_expression_chars: room for two position expressions per laid-out vehicle (element and <init_pose>).
EXPRESSION_CHARS_PER_LOOP_ELEMENT = 20

#: Python frames one level of element nesting may take (expansion, renaming, building) and a margin for the rest.
FRAMES_PER_LEVEL = 4
FRAMES_MARGIN = 400


def limit_text(field: str, value: int) -> str:
    """How a refusal names a limit: ``limit max_elements = 200000, node parameter load_max_elements``."""
    return f"limit {field} = {value}, node parameter load_{field}"


class LoadBudget:
    """What one load has used so far of each counted limit; `refuse` builds the error for going over one."""

    def __init__(self, limits: LoadLimits = DEFAULT_LIMITS):
        self.limits = limits
        self.include_bytes = 0
        self.elements = 0
        self.loop_iterations = 0
        self.expanded_chars = 0
        self.expression_chars = 0
        self.decompressed_bytes = 0
        self.loop_elements = 0

    def refuse(self, field: str, what: str, where: Where) -> WorldFileError:
        """The error for `what` going over the limit `field` (a LoadLimits field name), located at `where`."""
        file, line, tag = where
        return WorldFileError(f"{what} ({limit_text(field, getattr(self.limits, field))})",
                              file=file, line=line, tag=tag)

    def add_elements(self, count: int, where: Where) -> None:
        """Count `count` XML elements read or expanded."""
        self.elements += count
        if self.elements > self.limits.max_elements:
            raise self.refuse("max_elements", f"the world reads and expands more than {self.limits.max_elements} "
                                              "XML elements", where)

    def add_loop_iterations(self, count: int, where: Where) -> None:
        """Count `count` <for> iterations (whatever their bodies hold)."""
        self.loop_iterations += count
        if self.loop_iterations > self.limits.max_loop_iterations:
            raise self.refuse("max_loop_iterations", f"<for> loops run more than {self.limits.max_loop_iterations} "
                                                     "iterations in all", where)

    def add_expanded_chars(self, count: int, where: Where) -> None:
        """Count `count` characters of text expanded or produced by substitution."""
        self.expanded_chars += count
        if self.expanded_chars > self.limits.max_expanded_chars:
            raise self.refuse("max_expanded_chars", "variable and expression substitution handle more than "
                                                    f"{self.limits.max_expanded_chars} characters in all", where)

    def add_loop_elements(self, count: int) -> None:
        """Count `count` elements produced by <for> loops (each widens the expression budget)."""
        self.loop_elements += count

    def expression_room(self) -> int:
        """Characters of expressions and conditions this load may evaluate in all, given what it produced so far:
        max_expression_chars plus EXPRESSION_CHARS_PER_LOOP_ELEMENT per element produced by a <for> loop."""
        return self.limits.max_expression_chars + EXPRESSION_CHARS_PER_LOOP_ELEMENT * self.loop_elements

    def add_expression_chars(self, count: int, where: Where) -> None:
        """Count `count` characters of $f{} expressions and <if> conditions evaluated."""
        self.expression_chars += count
        room = self.expression_room()
        if self.expression_chars > room:
            grown = (f" ({self.limits.max_expression_chars} plus {EXPRESSION_CHARS_PER_LOOP_ELEMENT} for each of the "
                     f"{self.loop_elements} elements <for> loops produced)" if self.loop_elements else "")
            raise self.refuse("max_expression_chars", "$f{} expressions and <if> conditions evaluated hold more "
                                                      f"than {room} characters in all{grown}", where)

    def add_decompressed_bytes(self, count: int, where: Where) -> None:
        """Count `count` bytes inflated from compressed data."""
        self.decompressed_bytes += count
        if self.decompressed_bytes > self.limits.max_decompressed_bytes:
            raise self.refuse("max_decompressed_bytes", "compressed data inflate to more than "
                                                        f"{self.limits.max_decompressed_bytes} bytes in all", where)

    def add_file(self, size: int, where: Where) -> None:
        """Check one world or included file of `size` bytes (before reading it) and count it in the total."""
        self.check_file_size(size, where)
        self.include_bytes += size
        if self.include_bytes > self.limits.max_include_bytes:
            raise self.refuse("max_include_bytes", "the world and its included files hold more than "
                                                   f"{self.limits.max_include_bytes} bytes in all", where)

    def check_file_size(self, size: int, where: Where) -> None:
        """Check a file of `size` bytes before reading it whole."""
        limit = self.limits.max_file_bytes
        if size > limit:
            raise self.refuse("max_file_bytes", f"the file is {size} bytes, over the limit of {limit} bytes", where)

    def check_depth(self, depth: int, where: Where, what: str = "") -> None:
        """Check that an element at nesting level `depth` (the root is 1) is allowed."""
        limit = self.limits.max_nesting_depth
        if depth > limit:
            raise self.refuse("max_nesting_depth", f"elements nested deeper than {limit} levels{what}", where)

    def check_pixels(self, width: int, height: int, where: Where, what: str = "image") -> None:
        """Check an image (or grid) of `width` x `height` pixels before it is decoded."""
        if width * height > self.limits.max_image_pixels:
            raise self.refuse("max_image_pixels", f"{what} has {width} x {height} = {width * height} pixels, more "
                                                  f"than {self.limits.max_image_pixels}", where)

    def decompressed_room(self) -> int:
        """Bytes that may still be inflated in this load."""
        return max(0, self.limits.max_decompressed_bytes - self.decompressed_bytes)


_ACTIVE: contextvars.ContextVar[Optional[LoadBudget]] = contextvars.ContextVar("mvsim_load_budget", default=None)


def active_budget() -> LoadBudget:
    """The budget of the load in progress, or a fresh one with the default limits when no load is."""
    budget = _ACTIVE.get()
    return budget if budget is not None else LoadBudget()


def in_load() -> bool:
    """True while a world load (a :func:`budget_scope`) is in progress in this context."""
    return _ACTIVE.get() is not None


@contextlib.contextmanager
def budget_scope(budget: LoadBudget) -> Iterator[LoadBudget]:
    """Make `budget` the active one for the duration of the block (one world load)."""
    token = _ACTIVE.set(budget)
    try:
        yield budget
    finally:
        _ACTIVE.reset(token)


_STACK_LOCK = threading.Lock()
_STACK_USERS = [0, 0]  # loads holding a raised recursion limit; the limit before the first of them


@contextlib.contextmanager
def stack_headroom(limits: LoadLimits) -> Iterator[None]:
    """Make sure the Python stack has room for `limits.max_nesting_depth` levels of element nesting from here.

    The recursion limit is raised when needed (never lowered) and set back when the last load that raised it ends,
    so deep but allowed nesting never ends in a RecursionError, however deep the caller's own stack is.
    """
    depth = _stack_depth()
    needed = depth + FRAMES_PER_LEVEL * limits.max_nesting_depth + FRAMES_MARGIN
    with _STACK_LOCK:
        raised = needed > sys.getrecursionlimit()
        if raised:
            if _STACK_USERS[0] == 0:
                _STACK_USERS[1] = sys.getrecursionlimit()
            _STACK_USERS[0] += 1
            sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        if raised:
            with _STACK_LOCK:
                _STACK_USERS[0] -= 1
                if _STACK_USERS[0] == 0:
                    sys.setrecursionlimit(_STACK_USERS[1])


def _stack_depth() -> int:
    frame, depth = inspect.currentframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


__all__ = ["EXPRESSION_CHARS_PER_LOOP_ELEMENT", "LoadBudget", "Where", "active_budget", "budget_scope", "in_load",
           "limit_text", "stack_headroom"]
