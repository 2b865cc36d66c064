"""The world's occupancy grids as nav_msgs/OccupancyGrid on `simul_map` (latched), for Nav2 and RViz."""

from __future__ import annotations

import array

import numpy as np
from nav_msgs.msg import MapMetaData, OccupancyGrid
from rclpy.node import Node

from mvsim_ros.ros.publishing.conversions import sim_time_msg
from mvsim_ros.ros.qos import latched
from mvsim_ros.world.specs import OccupancyGridSpec


def occupancy_values(grid: OccupancyGridSpec) -> np.ndarray:
    """Cell values in nav_msgs/OccupancyGrid's convention (0..100, -1 unknown), row-major from the south-west."""
    if grid.occupancy is not None:
        return grid.occupancy
    return np.where(grid.occupied, 100, 0).astype(np.int8)


def grid_message(grid: OccupancyGridSpec, frame_id: str = "map") -> OccupancyGrid:
    """One OccupancyGrid message (origin at the grid's lower-left corner, no rotation)."""
    msg = OccupancyGrid()
    msg.header.frame_id = frame_id
    msg.header.stamp = sim_time_msg(0.0)
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
    grids on `simul_map_1`, `simul_map_2`, ... Reliable + transient local, as map_server does."""

    def __init__(self, node: Node, grids: list[OccupancyGridSpec], frame_id: str = "map"):
        self.topics = []
        self._publishers = []
        for i, grid in enumerate(grids):
            topic = "simul_map" if i == 0 else f"simul_map_{i}"
            msg = grid_message(grid, frame_id)
            grid_pub = node.create_publisher(OccupancyGrid, topic, latched())
            meta_pub = node.create_publisher(MapMetaData, topic + "_metadata", latched())
            grid_pub.publish(msg)
            meta_pub.publish(msg.info)
            self._publishers += [grid_pub, meta_pub]
            self.topics.append(topic)
