"""Where an actor is at simulated time t: its waypoint path as a timeline (no Box2D, no ROS).

The actor starts at its initial pose and walks straight (in 3D) to each waypoint in turn at the segment's speed:
its running speed when the target waypoint says ``animation="run"``, else its walking speed. On arrival it
stays for the waypoint's ``pause`` [s]. With ``loop`` it then goes back to the first waypoint and repeats the
cycle; without, it stays at the last waypoint. Segments shorter than 1 mm take no time (MVSim finishes them in
one step).

Heading, as MVSim's HumanActor draws it: along the segment (when longer than 0.1 m; else the target's yaw), turning
from the start yaw during the first 10 % of the segment and into the target waypoint's yaw during the last 20 %.
Unlike MVSim, which drops the distance left over when a step crosses a waypoint (up to speed x dt per waypoint),
the timeline is exact: the actor is where its path says at every instant.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from mvsim_ros.world.specs import ActorSpec

#: Segments shorter than this [m] are covered instantly (MVSim's threshold).
ZERO_LENGTH_M = 1e-3
#: Segments longer than this [m] are walked facing along them (MVSim's threshold).
HEADING_MIN_LENGTH_M = 0.1
#: Fractions of a segment over which the actor turns away from its start yaw / into its target yaw.
TURN_OUT_FRACTION = 0.1
TURN_IN_FRACTION = 0.2


@dataclass
class _Segment:
    """One leg: from start to end [m], start/end/heading yaw [rad], starting at time t0 [s], walking for
    `duration` [s] then pausing `pause` [s] at the end."""

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    start_yaw: float
    end_yaw: float
    heading: float
    t0: float
    duration: float
    pause: float

    @property
    def t_end(self) -> float:
        """Time [s] the actor leaves the end of this segment."""
        return self.t0 + self.duration + self.pause

    def pose(self, t: float) -> tuple[float, float, float, float]:
        """(x, y, z, yaw) [m, rad] at time t within [t0, t_end]."""
        if self.duration <= 0.0 or t >= self.t0 + self.duration:
            return (*self.end, self.end_yaw)
        u = (t - self.t0) / self.duration
        (xa, ya, za), (xb, yb, zb) = self.start, self.end
        x, y, z = xa + u * (xb - xa), ya + u * (yb - ya), za + u * (zb - za)
        yaw = self.heading
        if u < TURN_OUT_FRACTION:
            yaw = self.start_yaw + _wrap(self.heading - self.start_yaw) * (u / TURN_OUT_FRACTION)
        elif u > 1.0 - TURN_IN_FRACTION:
            yaw = self.heading + _wrap(self.end_yaw - self.heading) * ((u - 1.0 + TURN_IN_FRACTION) / TURN_IN_FRACTION)
        return float(x), float(y), float(z), yaw


class ActorPath:
    """The timeline of one actor (see the module docstring). `pose(t)` -> (x, y, z, yaw) [m, rad]; `speed(t)` [m/s]."""

    def __init__(self, spec: ActorSpec):
        self.spec = spec
        start = spec.init_pose
        position = (float(start.x), float(start.y), float(start.z))
        yaw, t = start.yaw, 0.0
        waypoints = spec.path
        self.lead: list[_Segment] = []  # the way to the first waypoint (once)
        self.cycle: list[_Segment] = []  # then waypoint to waypoint, repeated when looping
        if not waypoints:
            self._still = (*position, yaw)
            return
        order = list(range(len(waypoints)))
        legs = [(0, self.lead)] + [(i, self.cycle) for i in order[1:]]
        if spec.loop:
            legs.append((0, self.cycle))
        for i, target in legs:
            segment = self._segment(position, yaw, waypoints[i], t)
            target.append(segment)
            position, yaw, t = segment.end, segment.end_yaw, segment.t_end
        self._still = None
        self._lead_end = self.lead[-1].t_end
        self._cycle_starts = [s.t0 for s in self.cycle]
        self._cycle_length = (self.cycle[-1].t_end - self.cycle[0].t0) if self.cycle else 0.0

    def _segment(self, position: tuple[float, float, float], yaw: float, waypoint, t0: float) -> _Segment:
        spec = self.spec
        end = (float(waypoint.pose.x), float(waypoint.pose.y), float(waypoint.pose.z))
        length = math.dist(end, position)
        speed = spec.running_speed if waypoint.animation == "run" else spec.walking_speed
        duration = length / speed if length >= ZERO_LENGTH_M else 0.0
        heading = math.atan2(end[1] - position[1], end[0] - position[0]) if length > HEADING_MIN_LENGTH_M \
            else waypoint.pose.yaw
        return _Segment(position, end, yaw, waypoint.pose.yaw, heading, t0, duration, waypoint.pause)

    def _segment_at(self, t: float) -> tuple[_Segment, float]:
        """The segment the actor is on at time t, and the time within the segments' own clock."""
        if t < self._lead_end or not self.cycle:
            return self.lead[0] if t < self._lead_end else (self.cycle or self.lead)[-1], t
        if not self.spec.loop:
            if t >= self.cycle[-1].t_end:
                return self.cycle[-1], self.cycle[-1].t_end
        elif self._cycle_length > 0.0:
            t = self._lead_end + math.fmod(t - self._lead_end, self._cycle_length)
        else:
            return self.cycle[-1], self.cycle[-1].t_end
        k = bisect.bisect_right(self._cycle_starts, t) - 1
        return self.cycle[max(k, 0)], t

    def pose(self, t: float) -> tuple[float, float, float, float]:
        """(x, y, z, yaw) [m, m, m, rad] of the actor at simulated time t [s]."""
        if self._still is not None:
            return self._still
        segment, local = self._segment_at(t)
        return segment.pose(local)

    def speed(self, t: float) -> float:
        """Walking speed [m/s] at time t: the segment's speed while moving, 0 while pausing or standing."""
        if self._still is not None:
            return 0.0
        segment, local = self._segment_at(t)
        if segment.duration <= 0.0 or not segment.t0 <= local < segment.t0 + segment.duration:
            return 0.0
        return math.dist(segment.end, segment.start) / segment.duration


def _wrap(angle: float) -> float:
    """Angle wrapped into [-pi, pi) [rad]."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


__all__ = ["ActorPath"]
