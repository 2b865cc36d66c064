"""The odom -> base_link transform of every vehicle on its tf topic, serialized once and only its numbers rewritten
per publication."""

from __future__ import annotations

import numpy as np
from tf2_msgs.msg import TFMessage

from mvsim_ros.ros.publishing.conversions import planar_transform, sim_time_msg
from mvsim_ros.ros.publishing.outlet import Outlet, Outlets
from mvsim_ros.ros.publishing.state.vehicle_rows import VehicleRows
from mvsim_ros.ros.qos import TF_QOS
from mvsim_ros.ros.topics import FrameLayout

#: Patched fields of a one-transform TFMessage, in serialized order: the columns of a transform row of
#: runtime/fast_path/vehicle_values.py (2 writes per transform, the always-zero ones between included).
TRANSFORM_FIELDS = [
    "transforms.0.header.stamp.sec", "transforms.0.header.stamp.nanosec",
    "transforms.0.transform.translation.x", "transforms.0.transform.translation.y",
    "transforms.0.transform.translation.z", "transforms.0.transform.rotation.x",
    "transforms.0.transform.rotation.y", "transforms.0.transform.rotation.z", "transforms.0.transform.rotation.w",
]


class OdomTransforms:
    """odom -> base_link of every vehicle on `<tf prefix>tf` (TF_QOS), frames named by `layout`.

    In per-vehicle trees, one message per vehicle on its own tf topic; in a single tree, one message on the root
    `tf` with the transforms of all vehicles (`merged`). `groups` holds (vehicles, serialized rows, merged) per
    message set; `fill` writes them from one row of TRANSFORM_FIELDS values per vehicle.
    """

    def __init__(self, outlets: Outlets, layout: FrameLayout, odom_frame: str, base_frame: str):
        count = len(layout.topic_prefixes)
        on_topic = layout.tf_topics()
        self.outlets: dict[str, Outlet] = {topic: outlets.create(TFMessage, topic + "tf", TF_QOS)
                                           for topic in on_topic}
        origin = (0.0, 0.0, 0.0)
        parents = [layout.frame(i, odom_frame) for i in range(count)]
        children = [layout.frame(i, base_frame) for i in range(count)]
        #: (vehicles, messages, merged) per message set (see the class docstring).
        self.groups: list[tuple[np.ndarray, VehicleRows, bool]] = []
        if all(len(vehicles) == 1 for vehicles in on_topic.values()):
            templates = [TFMessage(transforms=[planar_transform(sim_time_msg(0.0), parents[i], children[i], origin)])
                         for i in range(count)]
            rows = VehicleRows(templates, TRANSFORM_FIELDS, [self.outlets[layout.tf_prefix(i)] for i in range(count)])
            self.groups.append((np.arange(count), rows, False))
            return
        for topic, vehicles in on_topic.items():
            message = TFMessage(transforms=[planar_transform(sim_time_msg(0.0), parents[i], children[i], origin)
                                            for i in vehicles])  # a stamp each
            fields = [f.replace("transforms.0.", f"transforms.{k}.", 1)
                      for k in range(len(vehicles)) for f in TRANSFORM_FIELDS]
            self.groups.append((np.array(vehicles), VehicleRows([message], fields, [self.outlets[topic]]), True))

    @property
    def merged(self) -> bool:
        """Whether the transforms of several vehicles share one message (a single TF tree)."""
        return len(self.groups) > 1 or any(merged for _, _, merged in self.groups)

    def streams(self) -> list:
        """(outlets, serialized rows) pairs for a BatchPublisher."""
        return [stream for _, rows, _ in self.groups for stream in rows.streams()]

    def fill(self, values: np.ndarray) -> None:
        """Write every message: values[i] (TRANSFORM_FIELDS) for vehicle i."""
        for vehicles, rows, merged in self.groups:
            rows.fill(values[vehicles].reshape(1, -1) if merged else values)


__all__ = ["OdomTransforms", "TRANSFORM_FIELDS"]
