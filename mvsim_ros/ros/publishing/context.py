"""What the publishers of one simulation session share, made by the session (ros/node/session.py) and handed to
each publisher it builds: where their messages go out (outlets, tapped by the run's recording), how the TF tree is
laid out and frames are named, and how simulated time becomes message stamps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mvsim_ros.ros.publishing.conversions import Stamps
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.topics import FrameLayout


@dataclass(frozen=True)
class PublishingContext:
    """outlets: makes the session's publishers (ros/publishing/outlet.py). layout: the TF layout (per-vehicle trees
    or one tree) and frame names. stamps: the offset [ns] added to simulated time in every stamp."""

    outlets: Outlets
    layout: FrameLayout
    stamps: Stamps = field(default_factory=Stamps)

    @classmethod
    def plain(cls, node: Any, prefixes: list[str]) -> "PublishingContext":
        """Publishers on `node` without a session around them (a test, a benchmark): outlets that nothing records,
        per-vehicle TF trees for vehicles with these topic prefixes, stamps in simulated time."""
        return cls(Outlets(node), FrameLayout(prefixes))

    def frame(self, host: int, frame: str) -> str:
        """Frame id of `frame` on sensor host `host` (vehicle index, or WORLD_HOST) in this TF layout: 'scan' stays
        'scan' in per-vehicle trees, becomes 'r1/scan' in a single tree."""
        return self.layout.frame(host, frame)


__all__ = ["PublishingContext"]
