"""Motor controllers, vectorised over wheels: twist setpoints in, wheel torques out.

twist_pid (physics seed 001, "Differential Twist PID Controller"): each driven wheel tracks the ground speed the
twist asks of it, v_i = v - omega * y_i (y_i: lateral wheel position, left positive; this is v -/+ omega*w/2 for
a symmetric robot), measured as omega_i * R_i from the wheel's own spin (odometry, not ground truth: with slip
the true speed stays below the setpoint). A PID per wheel, with the integral clamped to +/-I_MAX and frozen
while the output saturates in the direction of the error (anti-windup), gives a torque clamped to
+/-max_torque.

The proportional term is handed to the friction model as a law of the wheel's new spin rate
(tau = const - K_P * R * omega_new) so it is integrated implicitly (stable for any gain, see
friction/default.py); integral and derivative terms and a saturated output are constants over the step.

raw: the torque set for each wheel is applied as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mvsim_ros.world.specs import VehicleSpec


@dataclass
class WheelControllers:
    """Per-wheel controller gains and state (length W); `pid` marks wheels under twist_pid control.

    kp [N m s/m], ki [N m/m], kd [N m s^2/m], i_max [m s^-1 s] (integral clamp), max_torque [N m].
    raw_torque [N m]: the torque applied to wheels of raw-controlled vehicles.
    """

    pid: np.ndarray
    kp: np.ndarray
    ki: np.ndarray
    kd: np.ndarray
    i_max: np.ndarray
    max_torque: np.ndarray
    integral: np.ndarray
    last_error: np.ndarray
    raw_torque: np.ndarray

    @classmethod
    def from_vehicles(cls, vehicles: list[VehicleSpec]) -> "WheelControllers":
        """Gains copied from each vehicle's controller spec onto its wheels."""
        rows = []
        raw = []
        for vehicle in vehicles:
            spec = vehicle.controller
            is_pid = spec.kind == "twist_pid"
            p = spec.params
            for wheel in vehicle.wheels:
                if is_pid:
                    rows.append((1.0, p["KP"], p["KI"], p["KD"], p["I_MAX"], p["max_torque"]))
                    raw.append(0.0)
                else:
                    rows.append((0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
                    raw.append(p["torque_left"] if wheel.side > 0 else p["torque_right"] if wheel.side < 0 else 0.0)
        table = np.array(rows, dtype=float).reshape(-1, 6)
        zeros = np.zeros(len(rows))
        return cls(
            pid=table[:, 0] > 0,
            kp=table[:, 1].copy(),
            ki=table[:, 2].copy(),
            kd=table[:, 3].copy(),
            i_max=table[:, 4].copy(),
            max_torque=table[:, 5].copy(),
            integral=zeros.copy(),
            last_error=zeros.copy(),
            raw_torque=np.array(raw, dtype=float),
        )

    def torque_law(
        self, wanted_speed: np.ndarray, omega: np.ndarray, radius: np.ndarray, dt: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Torque law tau = const - slope * omega_new for each wheel over the next step dt [s].

        wanted_speed: wheel ground-speed setpoints [m/s]; omega: current spin [rad/s]; radius [m].
        Returns (const [N m], slope [N m s/rad]).
        """
        error = wanted_speed - omega * radius
        derivative = (error - self.last_error) / dt
        self.last_error = error
        trial_integral = np.clip(self.integral + error * dt, -self.i_max, self.i_max)
        explicit = self.kp * error + self.ki * trial_integral + self.kd * derivative
        saturated = np.abs(explicit) > self.max_torque
        winding_up = saturated & (np.sign(explicit) == np.sign(error))
        self.integral = np.where(winding_up, self.integral, trial_integral)
        free = self.pid & ~saturated
        const = np.where(
            free,
            self.kp * wanted_speed + self.ki * self.integral + self.kd * derivative,
            np.where(self.pid, np.sign(explicit) * self.max_torque, self.raw_torque),
        )
        slope = np.where(free, self.kp * radius, 0.0)
        return const, slope

    def reset(self, wheel_mask: np.ndarray) -> None:
        """Forget integral and derivative history for the masked wheels."""
        self.integral[wheel_mask] = 0.0
        self.last_error[wheel_mask] = 0.0
