"""The QoS a recorded topic's publisher offers, written on its MCAP channel as rosbag2 writes it.

rosbag2's MCAP storage plugin writes every channel's metadata `offered_qos_profiles`: a YAML sequence with one
profile per publisher (rosbag2_storage/src/rosbag2_storage/qos.cpp, `serialize_rclcpp_qos_vector`, bag metadata
version 9 as in Jazzy and Kilted). Each profile is a mapping, in this order: `history`, `depth`, `reliability`,
`durability` (policy names as rmw spells them: `keep_last`, `reliable`, `transient_local`, ...), `deadline`,
`lifespan` (each `{sec, nsec}`), `liveliness`, `liveliness_lease_duration` (`{sec, nsec}`),
`avoid_ros_namespace_conventions`. `ros2 bag play` offers the recorded reliability and durability again (its
history is its own, keep-last 10), so a transient-local topic (`/tf_static`, the map) reaches late subscribers
in a replay as it did in the run.

Durations a publisher leaves unspecified are offered by DDS as infinite, and the ROS graph (where `ros2 bag
record` reads the offers) reports them as rmw's RMW_DURATION_INFINITE, {sec: 9223372036, nsec: 854775807}: that is
what is written for them here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from mvsim_ros.output.recording.rosbag2_yaml import dump

HISTORIES = ("keep_last", "keep_all", "system_default", "unknown")
RELIABILITIES = ("reliable", "best_effort", "system_default", "best_available", "unknown")
DURABILITIES = ("volatile", "transient_local", "system_default", "best_available", "unknown")
LIVELINESSES = ("automatic", "manual_by_topic", "system_default", "best_available", "unknown")


@dataclass(frozen=True)
class QosDuration:
    """A QoS duration as rmw holds it: whole seconds `sec` [s] and nanoseconds `nsec` [ns] (0 <= nsec < 1e9)."""

    sec: int
    nsec: int

    @classmethod
    def from_nanoseconds(cls, nanoseconds: int) -> "QosDuration":
        """The duration of `nanoseconds` [ns]; 0 (unspecified, which DDS offers as infinite) and anything at or past
        the infinite duration give INFINITE."""
        if nanoseconds <= 0 or nanoseconds >= INFINITE.nanoseconds:
            return INFINITE
        return cls(nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000)

    @property
    def nanoseconds(self) -> int:
        """The whole duration [ns]."""
        return self.sec * 1_000_000_000 + self.nsec


#: rmw's RMW_DURATION_INFINITE, as the ROS graph reports an unspecified or infinite duration.
INFINITE = QosDuration(9223372036, 854775807)


@dataclass(frozen=True)
class RecordedQos:
    """The QoS profile a publisher offers on a recorded topic (policy names as rmw spells them, see the module's
    docstring). The defaults are the node's common profile: reliable, volatile, keep-last 10, durations infinite."""

    reliability: str = "reliable"
    durability: str = "volatile"
    history: str = "keep_last"
    depth: int = 10
    deadline: QosDuration = INFINITE
    lifespan: QosDuration = INFINITE
    liveliness: str = "automatic"
    liveliness_lease_duration: QosDuration = INFINITE
    avoid_ros_namespace_conventions: bool = False

    def __post_init__(self) -> None:
        for field, value, allowed in (("history", self.history, HISTORIES),
                                      ("reliability", self.reliability, RELIABILITIES),
                                      ("durability", self.durability, DURABILITIES),
                                      ("liveliness", self.liveliness, LIVELINESSES)):
            if value not in allowed:
                raise ValueError(f"RecordedQos.{field}: {value!r} is not one of {', '.join(allowed)}")
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 0:
            raise ValueError(f"RecordedQos.depth: {self.depth!r} is not a whole number >= 0")

    @classmethod
    def from_profile(cls, profile: Any) -> "RecordedQos":
        """The RecordedQos of an rclpy QoSProfile (read through its public attributes: each policy's `short_key`,
        `depth`, each duration's `nanoseconds`)."""
        return cls(reliability=profile.reliability.short_key, durability=profile.durability.short_key,
                   history=profile.history.short_key, depth=int(profile.depth),
                   deadline=QosDuration.from_nanoseconds(profile.deadline.nanoseconds),
                   lifespan=QosDuration.from_nanoseconds(profile.lifespan.nanoseconds),
                   liveliness=profile.liveliness.short_key,
                   liveliness_lease_duration=QosDuration.from_nanoseconds(
                       profile.liveliness_lease_duration.nanoseconds),
                   avoid_ros_namespace_conventions=bool(profile.avoid_ros_namespace_conventions))

    def as_dict(self) -> dict[str, Any]:
        """The profile as rosbag2 writes it (its keys in rosbag2's order)."""
        return {"history": self.history, "depth": self.depth, "reliability": self.reliability,
                "durability": self.durability, "deadline": _duration(self.deadline),
                "lifespan": _duration(self.lifespan), "liveliness": self.liveliness,
                "liveliness_lease_duration": _duration(self.liveliness_lease_duration),
                "avoid_ros_namespace_conventions": self.avoid_ros_namespace_conventions}


def _duration(duration: QosDuration) -> dict[str, int]:
    return {"sec": duration.sec, "nsec": duration.nsec}


#: The node's common profile (reliable, volatile, keep-last 10).
DEFAULT_QOS = RecordedQos()
#: A latched topic's profile (reliable, transient-local, keep-last 1): static TF, maps.
LATCHED_QOS = RecordedQos(durability="transient_local", depth=1)


def offered_qos_profiles(profiles: Iterable[RecordedQos]) -> str:
    """The channel metadata value `offered_qos_profiles`: the profiles as a YAML sequence, as rosbag2 writes it."""
    return dump([profile.as_dict() for profile in profiles])


__all__ = ["DEFAULT_QOS", "INFINITE", "LATCHED_QOS", "QosDuration", "RecordedQos", "offered_qos_profiles"]
