"""What the closed loop drives: the simulated car, or a single-track model, behind one small interface.

A plant has `time` [s], `pose()` -> (x, y, yaw) and `twist()` -> (v_x, v_y, r) of the vehicle's reference point
(the middle of the rear axle; twist in the body frame), `command(speed, steering_angle)` (longitudinal speed
[m/s], equivalent bicycle steering angle [rad]) and `advance(duration)`. The single-track models of
single_track.py have that interface already; `SimulationPlant` gives it to a vehicle of a Simulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the simulator is only driven here, never built: no need to import Box2D and numba with it
    from mvsim_ros.physics import Simulation


class Plant(Protocol):
    """See the module docstring."""

    time: float

    def pose(self) -> tuple[float, float, float]: ...

    def twist(self) -> tuple[float, float, float]: ...

    def command(self, speed: float, steering_angle: float) -> None: ...

    def advance(self, duration: float) -> None: ...


class SimulationPlant:
    """Vehicle `index` of a Simulation (an Ackermann one) as a plant; `steering` is its current equivalent
    steering angle [rad] (after the steering limit)."""

    def __init__(self, sim: Simulation, index: int = 0) -> None:
        self.sim = sim
        self.index = int(index)
        self._steer_slot = list(sim.steering.vehicle.tolist()).index(self.index)

    @property
    def time(self) -> float:
        """Simulated time [s]."""
        return self.sim.time

    def pose(self) -> tuple[float, float, float]:
        x, y, yaw = self.sim.pose[self.index]
        return float(x), float(y), float(yaw)

    def twist(self) -> tuple[float, float, float]:
        vx, vy, r = self.sim.body_twist()[self.index]
        return float(vx), float(vy), float(r)

    @property
    def steering(self) -> float:
        """The equivalent steering angle the car has now [rad]."""
        return float(self.sim.steering.delta[self._steer_slot])

    def command(self, speed: float, steering_angle: float) -> None:
        self.sim.set_ackermann(self.index, speed, steering_angle)

    def advance(self, duration: float) -> None:
        """Whole simulation steps covering `duration` [s] (rounded)."""
        for _ in range(max(int(round(duration / self.sim.dt)), 0)):
            self.sim.step()


__all__ = ["Plant", "SimulationPlant"]
