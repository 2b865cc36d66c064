"""The world's blocks for the map: every block of the world the run simulated, where it started and, for the
blocks that move, where it ended.

- Start: the world file attached to the recording (the node attaches it; its name ends in .xml), loaded with the
  simulator's own loader, relative paths (includes, images) taken from the folder of the world file the `mvsim`
  metadata record names. When the world does not load whole here (an image or an include missing on this
  machine), its `<block>`, `<block:class>` and `<variable>` elements are loaded alone; when that fails too, no
  block is drawn and the page says why.
- End: the metadata record MVSIM_BLOCKS_END (block name -> "x y yaw" [m, m, rad], the pose at the end of the run)
  when the recording has one; a movable block without it is drawn at its start only, and the page says so.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

#: Metadata record and key naming the world file the run simulated.
WORLD_METADATA = ("mvsim", "world_file")
#: Metadata record of the blocks' poses at the end of the run: block name -> "x y yaw" [m, m, rad].
MVSIM_BLOCKS_END = "mvsim_blocks_end"
#: Largest magnitude of a drawn coordinate [m] (as reading.VALUE_BOUND).
COORDINATE_BOUND = 1e7
#: Start tags of the elements kept when the world is loaded for its blocks alone.
_KEPT_START = re.compile(r"<(block:class|block|variable)\b")


@dataclass
class BlockOutline:
    """One block on the map: its outline at the start (N, 2) [m] in the map frame, at the end (None: not
    recorded, or a block that cannot move), whether it can move, and its colour ('#rrggbb')."""

    name: str
    start: np.ndarray
    end: np.ndarray | None
    movable: bool
    colour: str


@dataclass
class WorldBlocks:
    """The blocks drawn and the sentences saying what could not be drawn (plain text)."""

    blocks: list[BlockOutline]
    notes: list[str]


def outline(shape: list[tuple[float, float]], x: float, y: float, yaw: float) -> np.ndarray:
    """A block's outline points (its own frame [m]) placed at (x, y) [m] turned by yaw [rad], shape (N, 2)."""
    points = np.asarray(shape, dtype=float).reshape(-1, 2)
    c, s = math.cos(yaw), math.sin(yaw)
    return points @ np.array([[c, s], [-s, c]]) + [x, y]


def block_elements(text: str) -> list[str]:
    """The `<block>`, `<block:class>` and `<variable/>` elements of a world's XML text, in order, found in one pass
    (each search starts where the last one ended; an element left open ends the search)."""
    found, at = [], 0
    while True:
        start = _KEPT_START.search(text, at)
        if start is None:
            return found
        tag_end = text.find(">", start.end())
        if tag_end < 0:
            return found
        if text[tag_end - 1] == "/":
            found.append(text[start.start():tag_end + 1])
            at = tag_end + 1
            continue
        if start.group(1) == "variable":
            at = tag_end + 1
            continue
        closing = f"</{start.group(1)}>"
        close = text.find(closing, tag_end)
        if close < 0:
            return found
        found.append(text[start.start():close + len(closing)])
        at = close + len(closing)


def _load(text: str, anchor: str):
    """The world's blocks (BlockSpec list) and a note (None when the world loaded whole); WorldFileError when
    even its block elements do not load."""
    from mvsim_ros.world import WorldFileError, load_world_string

    try:
        return load_world_string(text, file=anchor).blocks, None
    except WorldFileError as error:
        first = str(error).splitlines()[0]
    opened = text.find("<mvsim_world")
    closed = text.find(">", opened) if opened >= 0 else -1
    root = text[opened:closed + 1] if closed >= 0 else '<mvsim_world version="1.0">'
    reduced = root + "\n" + "\n".join(block_elements(text)) + "\n</mvsim_world>\n"
    blocks = load_world_string(reduced, file=anchor).blocks
    return blocks, (f"The attached world does not load whole here ({first}); its blocks were read alone "
                    f"(blocks defined in included files are missing).")


def end_poses(metadata_value_items: list[tuple[str, dict[str, str]]]) -> dict[str, tuple[float, float, float]]:
    """Block name -> (x, y, yaw) [m, m, rad] from the last MVSIM_BLOCKS_END record; values that are not three
    finite numbers within COORDINATE_BOUND are left out."""
    poses: dict[str, tuple[float, float, float]] = {}
    for name, values in metadata_value_items:
        if name != MVSIM_BLOCKS_END:
            continue
        poses = {}
        for block, text in values.items():
            try:
                x, y, yaw = (float(part) for part in text.split())
            except ValueError:
                continue
            if all(math.isfinite(v) and abs(v) <= COORDINATE_BOUND for v in (x, y, yaw)):
                poses[block] = (x, y, yaw)
    return poses


def world_blocks(world_xml: bytes | None, world_file: str | None,
                 metadata: list[tuple[str, dict[str, str]]]) -> WorldBlocks:
    """The blocks of the attached world `world_xml` (None: not attached), anchored at `world_file` (the path the
    run loaded it from), with their end poses from `metadata` (Recording.metadata)."""
    if world_xml is None:
        return WorldBlocks([], [])
    from mvsim_ros.world import WorldFileError

    try:
        text = world_xml.decode("utf-8")
        blocks, note = _load(text, world_file or "attached.world.xml")
    except (UnicodeDecodeError, WorldFileError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return WorldBlocks([], [f"No block is drawn: the attached world cannot be read ({reason})."])
    notes = [note] if note else []
    ends = end_poses(metadata)
    drawn, without_end, unplaced = [], 0, 0
    for block in blocks:
        pose = block.init_pose
        start = outline(block.shape, pose.x, pose.y, pose.yaw)
        if not np.all(np.abs(start) <= COORDINATE_BOUND) or len(start) < 3:
            unplaced += 1
            continue
        movable = not block.static and block.animation is None
        end = None
        if block.name in ends and (movable or block.animation is not None):
            end = outline(block.shape, *ends[block.name])
        elif movable:
            without_end += 1
        drawn.append(BlockOutline(block.name, start, end, movable or block.animation is not None, block.color))
    if without_end:
        notes.append(f"{without_end} movable block{'s are' if without_end != 1 else ' is'} drawn at the start "
                     f"only: the recording holds no end pose (metadata record {MVSIM_BLOCKS_END}).")
    if unplaced:
        notes.append(f"{unplaced} block{'s' if unplaced != 1 else ''} not drawn: an outline beyond "
                     f"±{COORDINATE_BOUND:g} m or with fewer than 3 points.")
    return WorldBlocks(drawn, notes)
