"""What the comparison runs: the racecar's surfaces, the tracked shapes, the open-loop inputs and the
constant-radius test, with their full and quick (--quick) settings."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mvsim_ros.tracking.pid import PidGains
from mvsim_ros.tracking.seed_car import SURFACES

#: Tracker and controller settings (default gains: Kp = 5, Ki = Kd = 0, feed-forward on).
GAINS = PidGains()
EPSILON_M = 0.1
CONTROL_PERIOD_S = 0.02
#: The tracked references start smoothly over this time [s] (the same paths as the shapes started at full speed).
RAMP_TIME_S = 1.0


@dataclass(frozen=True)
class TrackedShape:
    """A reference for the closed-loop runs: shape name and parameters, run duration [s], and the time [s] from
    which the error statistics count (after the first lap, or the start transient)."""

    name: str
    params: dict = field(default_factory=dict)
    duration: float = 10.0
    settle: float = 5.0


def _laps(period: float, laps: float = 2.0) -> tuple[float, float]:
    return laps * period + RAMP_TIME_S, period + RAMP_TIME_S


TRACKED_SHAPES = (
    TrackedShape("line", {"a": 1.0, "b": 0.5}, 10.0, 5.0),
    TrackedShape("parabola", {"focal_length": 0.5}, 6.0, 3.0),
    TrackedShape("circle", {"R": 2.0, "W": 0.5}, *_laps(2.0 * math.pi / 0.5)),
    TrackedShape("figure_eight", {"a": 3.0, "W": 0.3}, *_laps(2.0 * math.pi / 0.3)),
    TrackedShape("cycloid", {"r": 1.5, "d": 0.5}, *_laps(2.0 * math.pi)),
)


@dataclass(frozen=True)
class SteerStep:
    """Open loop: drive straight at `speed` [m/s] until `t_step` [s], then steer `delta` [rad] until `duration`."""

    speed: float = 1.0
    delta: float = 0.1
    t_step: float = 2.0
    duration: float = 6.0

    def inputs(self, t: float) -> tuple[float, float]:
        return self.speed, (self.delta if t >= self.t_step else 0.0)


@dataclass(frozen=True)
class SpeedRamp:
    """Open loop: steering `delta` [rad] held, speed `v0` [m/s] for `hold` [s], then a ramp to `v1` over `ramp`
    [s]."""

    delta: float = 0.1
    v0: float = 0.3
    v1: float = 3.0
    hold: float = 2.0
    ramp: float = 12.0

    @property
    def duration(self) -> float:
        return self.hold + self.ramp

    def speed(self, t: float) -> float:
        return self.v0 + (self.v1 - self.v0) * min(max((t - self.hold) / self.ramp, 0.0), 1.0)

    def inputs(self, t: float) -> tuple[float, float]:
        return self.speed(t), self.delta


@dataclass(frozen=True)
class ConstantRadius:
    """ISO 4138-style constant-radius test: the rear axle held on radius R [m] by the tracker at speeds that give
    the lateral accelerations `fractions` x (the surface's peak friction D) x g; each point settles for
    max(settle_laps laps, min_settle [s]) and is averaged over `measure_laps`; the gradient is fitted on the points
    up to `fit_fraction` x D g."""

    radius: float = 2.0
    fractions: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    min_speed: float = 0.5
    settle_laps: float = 1.0
    min_settle: float = 6.0
    measure_laps: float = 0.5
    fit_fraction: float = 0.35


@dataclass(frozen=True)
class Plan:
    """Everything one report runs."""

    surfaces: tuple[str, ...] = SURFACES
    shapes: tuple[TrackedShape, ...] = TRACKED_SHAPES
    steer_step: SteerStep = SteerStep()
    speed_ramp: SpeedRamp = SpeedRamp()
    constant_radius: ConstantRadius = ConstantRadius()
    #: Front weight fractions of the weight-distribution variants (dry), besides the racecar's own.
    weight_fractions: tuple[float, ...] = (0.38, 0.62)
    #: Also track the shapes with the dynamic controller on the simulated car (dry).
    dynamic_controller: bool = True


FULL = Plan()
QUICK = Plan(
    surfaces=("dry", "ice"),
    shapes=(TrackedShape("circle", {"R": 2.0, "W": 0.5}, *_laps(2.0 * math.pi / 0.5, 1.5)),
            TrackedShape("figure_eight", {"a": 3.0, "W": 0.3}, 12.0, 6.0)),
    steer_step=SteerStep(duration=4.0),
    speed_ramp=SpeedRamp(hold=1.0, ramp=5.0),
    constant_radius=ConstantRadius(fractions=(0.1, 0.25, 0.4), settle_laps=0.5, min_settle=4.0, measure_laps=0.25,
                                   fit_fraction=0.45),
    weight_fractions=(0.62,),
    dynamic_controller=False,
)

__all__ = ["CONTROL_PERIOD_S", "ConstantRadius", "EPSILON_M", "FULL", "GAINS", "Plan", "QUICK", "RAMP_TIME_S",
           "SpeedRamp", "SteerStep", "TRACKED_SHAPES", "TrackedShape"]
