"""The world's occupancy grids as nav_msgs/OccupancyGrid on `simul_map` (latched), for Nav2 and RViz."""

from __future__ import annotations

import array

import numpy as np
from nav_msgs.msg import MapMetaData, OccupancyGrid
from rclpy.node import Node

from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import Stamps
from mvsim_ros.ros.qos import latched
from mvsim_ros.world.specs import OccupancyGridSpec


def occupancy_values(grid: OccupancyGridSpec) -> np.ndarray:
    """Cell values in nav_msgs/OccupancyGrid's convention (0..100, -1 unknown), row-major from the south-west."""
    if grid.occupancy is not None:
        return grid.occupancy
    return np.where(grid.occupied, 100, 0).astype(np.int8)


def grid_message(grid: OccupancyGridSpec, frame_id: str = "map", stamps: Stamps = Stamps()) -> OccupancyGrid:
    """One OccupancyGrid message (origin at the grid's lower-left corner, no rotation), stamped (and loaded) at
    simulated time 0."""
    msg = OccupancyGrid()
    msg.header.frame_id = frame_id
    msg.header.stamp = stamps.time_msg(0.0)
    rows, cols = grid.occupied.shape
    msg.info.resolution = float(grid.resolution)
    msg.info.width = cols
    msg.info.height = rows
    msg.info.origin.position.x = float(grid.x_min)
    msg.info.origin.position.y = float(grid.y_min)
    msg.info.origin.orientation.w = 1.0
    msg.info.map_load_time = msg.header.stamp
    msg.data = array.array("b", np.ascontiguousarray(occupancy_values(grid), dtype=np.int8).tobytes())
    return msg


class MapPublisher:
    """Publishes each occupancy grid once, latched: the first on `simul_map` (+ `simul_map_metadata`), further
    grids on `simul_map_1`, `simul_map_2`, ... Reliable + transient local, as map_server does. context: where
    the maps go out and how they are stamped (a plain PublishingContext on `node` when not given)."""

    def __init__(self, node: Node, grids: list[OccupancyGridSpec], frame_id: str = "map",
                 context: PublishingContext | None = None):
        context = context if context is not None else PublishingContext.plain(node, [])
        self.topics = []
        self._outlets = []
        for i, grid in enumerate(grids):
            topic = "simul_map" if i == 0 else f"simul_map_{i}"
            msg = grid_message(grid, frame_id, context.stamps)
            grid_outlet = context.outlets.create(OccupancyGrid, topic, latched())
            meta_outlet = context.outlets.create(MapMetaData, topic + "_metadata", latched())
            grid_outlet.publish(msg)
            meta_outlet.publish(msg.info)
            self._outlets += [grid_outlet, meta_outlet]
            self.topics.append(topic)
