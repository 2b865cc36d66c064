"""A top-down picture of a simulation for `render_mode='rgb_array'` (and 'human'): numpy uint8 (H, W, 3), drawn with
Pillow (no OpenGL).

What it shows: the occupancy grids' occupied cells and the fixed walls (dark grey), every block at its current
pose in its colour, every vehicle's chassis at its pose in its colour with a white line from its reference point
to its front (its heading), the controlled vehicle outlined in black, its 2D lidars' latest rays (red, one in
every few), the task's path (a green line) and goal (a green ring with its heading) when it has them. The
picture covers the whole world (its grids, walls, blocks, vehicles' start poses and the path, with a margin, at
least VIEW_MIN_M across) when that is at most VIEW_MAX_M across, else a VIEW_MAX_M window centred on the
controlled vehicle. Its width is WIDTH_PX; its height follows the view's
shape, in whole multiples of 16 pixels (what video encoders take).
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.physics.bodies import static_wall_polygons
from mvsim_ros.world.specs import WorldSpec

#: Width of the picture [pixels].
WIDTH_PX = 480
#: Largest span shown [m]: a bigger world is followed around the controlled vehicle.
VIEW_MAX_M = 30.0
#: Smallest span shown [m] (a world of one vehicle on open ground).
VIEW_MIN_M = 8.0
#: Margin around the world's contents [m].
MARGIN_M = 1.0
#: Most lidar rays drawn per lidar.
MOST_RAYS = 60
FLOOR = (250, 250, 250)
OCCUPIED = (70, 70, 70)
RAY = (235, 90, 90)
GOAL = (20, 150, 60)


def _rgb(colour: str, default: tuple[int, int, int] = (120, 120, 200)) -> tuple[int, int, int]:
    """'#rrggbb' as a tuple (the default for anything else)."""
    value = colour.lstrip("#") if isinstance(colour, str) else ""
    try:
        return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)) if len(value) == 6 else default
    except ValueError:
        return default


def _placed(shape, x: float, y: float, yaw: float) -> np.ndarray:
    """Outline points (own frame [m]) placed at (x, y) [m] turned by yaw [rad], shape (N, 2)."""
    points = np.asarray(shape, dtype=float).reshape(-1, 2)
    c, s = math.cos(yaw), math.sin(yaw)
    return points @ np.array([[c, s], [-s, c]]) + [x, y]


def world_extent(world: WorldSpec, path: np.ndarray | None = None) -> tuple[float, float, float, float]:
    """(x min, x max, y min, y max) [m] of the world's grids, walls, blocks, vehicles' start poses and `path`
    points (N, 2), with MARGIN_M around, widened about its centre to at least VIEW_MIN_M each way."""
    xs, ys = [0.0], [0.0]
    if path is not None and len(path):
        xs += path[:, 0].tolist()
        ys += path[:, 1].tolist()
    for grid in world.occupancy_grids:
        xs += [grid.x_min, grid.x_min + grid.width_m]
        ys += [grid.y_min, grid.y_min + grid.height_m]
    outlines = [np.asarray(p, dtype=float).reshape(-1, 2) for p in static_wall_polygons(world)]
    outlines += [_placed(b.shape, b.init_pose.x, b.init_pose.y, b.init_pose.yaw) for b in world.blocks]
    outlines += [_placed(v.chassis.shape, v.init_pose.x, v.init_pose.y, v.init_pose.yaw) for v in world.vehicles]
    for outline in outlines:
        if len(outline):
            xs += outline[:, 0].tolist()
            ys += outline[:, 1].tolist()
    x0, x1, y0, y1 = min(xs) - MARGIN_M, max(xs) + MARGIN_M, min(ys) - MARGIN_M, max(ys) + MARGIN_M
    grow_x, grow_y = max(0.0, VIEW_MIN_M - (x1 - x0)) / 2.0, max(0.0, VIEW_MIN_M - (y1 - y0)) / 2.0
    return x0 - grow_x, x1 + grow_x, y0 - grow_y, y1 + grow_y


def path_points(path, count: int = 200) -> np.ndarray | None:
    """`count` points (N, 2) [m] along a task's path (an object with `length` [m] and `point_at(s)`, see
    paths.Path), or None for anything else."""
    length = getattr(path, "length", None)
    if not callable(getattr(path, "point_at", None)) or not isinstance(length, (int, float)) \
            or not math.isfinite(length) or length <= 0:
        return None
    return np.array([path.point_at(s) for s in np.linspace(0.0, float(length), count)], dtype=float)


class TopView:
    """Draws frames of the simulations of `world` around vehicle `vehicle` (an index), with `path` (points (N, 2)
    [m], or None) drawn under the vehicles."""

    def __init__(self, world: WorldSpec, vehicle: int, path: np.ndarray | None = None):
        self.world, self.vehicle, self.path = world, vehicle, path
        x0, x1, y0, y1 = world_extent(world, path)
        self.follow = max(x1 - x0, y1 - y0) > VIEW_MAX_M
        if self.follow:
            x1, y1 = x0 + VIEW_MAX_M, y0 + VIEW_MAX_M
        self.span = (x1 - x0, y1 - y0)
        self.height = int(min(max(round(WIDTH_PX * self.span[1] / self.span[0] / 16.0), 8), 48)) * 16
        #: Pixels per metre.
        self.scale = min(WIDTH_PX / self.span[0], self.height / self.span[1])
        self.origin = (x0, y0)
        self._walls = [np.asarray(p, dtype=float).reshape(-1, 2) for p in static_wall_polygons(world)]
        self._background = None if self.follow else self._static(self.origin)

    @property
    def shape(self) -> tuple[int, int, int]:
        """(H, W, 3) of every frame."""
        return self.height, WIDTH_PX, 3

    def _centre_on(self, x: float, y: float) -> tuple[float, float]:
        """The lower-left corner [m] of a view centred on (x, y)."""
        return x - 0.5 * WIDTH_PX / self.scale, y - 0.5 * self.height / self.scale

    def _pixels(self, origin, points: np.ndarray) -> list[tuple[float, float]]:
        """World points [m] as pixel coordinates (x right, y down) of a view whose lower-left corner is `origin`."""
        px = (points[:, 0] - origin[0]) * self.scale
        py = self.height - (points[:, 1] - origin[1]) * self.scale
        return list(zip(px.tolist(), py.tolist()))

    def _static(self, origin) -> np.ndarray:
        """The floor, the grids' occupied cells and the walls of a view at `origin`, (H, W, 3) uint8."""
        from PIL import Image, ImageDraw

        frame = np.empty(self.shape, dtype=np.uint8)
        frame[:] = FLOOR
        xs = origin[0] + (np.arange(WIDTH_PX) + 0.5) / self.scale
        ys = origin[1] + (self.height - np.arange(self.height) - 0.5) / self.scale
        for grid in self.world.occupancy_grids:
            cols = np.floor((xs - grid.x_min) / grid.resolution).astype(np.int64)
            rows = np.floor((ys - grid.y_min) / grid.resolution).astype(np.int64)
            rows_in = (rows >= 0) & (rows < grid.occupied.shape[0])
            cols_in = (cols >= 0) & (cols < grid.occupied.shape[1])
            occupied = np.zeros((self.height, WIDTH_PX), dtype=bool)
            inside = np.ix_(rows_in, cols_in)
            occupied[inside] = grid.occupied[np.ix_(rows[rows_in], cols[cols_in])]
            frame[occupied] = OCCUPIED
        image = Image.fromarray(frame)
        draw = ImageDraw.Draw(image)
        for wall in self._walls:
            if len(wall) >= 3:
                draw.polygon(self._pixels(origin, wall), fill=OCCUPIED)
        return np.asarray(image)

    def frame(self, sim, scans=(), goal=None) -> np.ndarray:
        """The picture of `sim` now, (H, W, 3) uint8. scans: (origin (x, y) [m], yaw [rad], bearings [rad],
        ranges [m], max range [m]) per lidar; goal: (x, y[, yaw]) [m, m, rad] or None."""
        from PIL import Image, ImageDraw

        pose = sim.pose[self.vehicle]
        origin = self._centre_on(float(pose[0]), float(pose[1])) if self.follow else self.origin
        image = Image.fromarray(self._static(origin) if self.follow else self._background.copy())
        draw = ImageDraw.Draw(image)
        for block, (x, y, yaw) in zip(self.world.blocks, sim.block_poses().tolist()):
            outline = self._pixels(origin, _placed(block.shape, x, y, yaw))
            if len(outline) >= 3:
                draw.polygon(outline, fill=_rgb(block.color), outline=(40, 40, 40))
        if self.path is not None:
            draw.line(self._pixels(origin, self.path), fill=GOAL, width=2)
        for scan in scans:
            self._rays(draw, origin, *scan)
        if goal is not None:
            self._goal(draw, origin, goal)
        for k, (vehicle, row) in enumerate(zip(self.world.vehicles, sim.pose.tolist())):
            x, y, yaw = row
            outline = self._pixels(origin, _placed(vehicle.chassis.shape, x, y, yaw))
            if len(outline) >= 3:
                draw.polygon(outline, fill=_rgb(vehicle.chassis.color),
                             outline=(0, 0, 0) if k == self.vehicle else (90, 90, 90),
                             width=2 if k == self.vehicle else 1)
            front = max((p[0] for p in vehicle.chassis.shape), default=0.3)
            heading = self._pixels(origin, np.array([[x, y], [x + front * math.cos(yaw), y + front * math.sin(yaw)]]))
            draw.line(heading, fill=(255, 255, 255), width=2)
        return np.asarray(image, dtype=np.uint8).copy()

    def _rays(self, draw, origin, at, yaw, bearings, ranges, max_range) -> None:
        step = max(1, -(-len(ranges) // MOST_RAYS))
        ends = []
        for bearing, distance in zip(bearings[::step].tolist(), ranges[::step].tolist()):
            length = distance if math.isfinite(distance) else max_range
            ends.append((at[0] + length * math.cos(yaw + bearing), at[1] + length * math.sin(yaw + bearing),
                         math.isfinite(distance) and distance < max_range))
        start = self._pixels(origin, np.array([at], dtype=float))[0]
        for x, y, hit in ends:
            end = self._pixels(origin, np.array([[x, y]]))[0]
            draw.line([start, end], fill=RAY if hit else (240, 170, 170), width=1)

    def _goal(self, draw, origin, goal) -> None:
        x, y = float(goal[0]), float(goal[1])
        (px, py), = self._pixels(origin, np.array([[x, y]]))
        radius = max(4.0, 0.3 * self.scale)
        draw.ellipse([px - radius, py - radius, px + radius, py + radius], outline=GOAL, width=3)
        if len(goal) > 2:
            yaw = float(goal[2])
            draw.line([(px, py), (px + 1.6 * radius * math.cos(yaw), py - 1.6 * radius * math.sin(yaw))],
                      fill=GOAL, width=3)
