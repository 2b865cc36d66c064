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

from mvsim_ros.physics.jit import kernel
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
        """Gains copied from each vehicle's controller spec onto the wheels it drives.

        Differential kinds with twist_pid: every driven wheel. Ackermann with front_steer_pid or
        twist_front_steer_pid: the front wheels (MVSim's front-wheel drive). ackermann_drivetrain (one motor,
        see fleet.Drivetrains) and twist_ideal (kinematic): no wheel PID. raw: torque_left / torque_right on the
        driven wheels of each side.
        """
        rows = []
        raw = []
        for vehicle in vehicles:
            spec = vehicle.controller
            p = spec.params
            for wheel in vehicle.wheels:
                if _wheel_pid(vehicle, wheel):
                    rows.append((1.0, p["KP"], p["KI"], p["KD"], p["I_MAX"], p["max_torque"]))
                    raw.append(0.0)
                    continue
                rows.append((0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
                is_raw = spec.kind == "raw" and vehicle.dynamics != "ackermann_drivetrain" and wheel.driven
                side_torque = p.get("torque_left", 0.0) if wheel.side > 0 else p.get("torque_right", 0.0)
                raw.append(side_torque if is_raw and wheel.side != 0 else 0.0)
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
        Returns (const [N m], slope [N m s/rad]); updates the PID integral and error history.
        """
        return pid_torque_law(wanted_speed, omega, radius, dt, self.pid, self.kp, self.ki, self.kd, self.i_max,
                              self.max_torque, self.raw_torque, self.integral, self.last_error)

    def reset(self, wheel_mask: np.ndarray) -> None:
        """Forget integral and derivative history for the masked wheels."""
        self.integral[wheel_mask] = 0.0
        self.last_error[wheel_mask] = 0.0


def _wheel_pid(vehicle: VehicleSpec, wheel) -> bool:
    """Whether this wheel runs its own speed PID."""
    kind = vehicle.controller.kind
    if not wheel.driven or vehicle.dynamics == "ackermann_drivetrain":
        return False
    if kind == "twist_pid":
        return True
    return kind in ("front_steer_pid", "twist_front_steer_pid") and wheel.name in ("fl_wheel", "fr_wheel")


@kernel
def pid_torque_law(wanted_speed, omega, radius, dt, pid, kp, ki, kd, i_max, max_torque, raw_torque,
                   integral, last_error):
    """Per-wheel PID with anti-windup as an implicit torque law; `integral`, `last_error` are updated in place.

    Returns (const, slope) with tau = const - slope * omega_new: the proportional term K_P (v* - R omega_new)
    stays a function of the new spin; integral, derivative and saturated outputs are constants.
    """
    const = np.empty(wanted_speed.size)
    slope = np.empty(wanted_speed.size)
    pid_torque_law_into(wanted_speed, omega, radius, dt, pid, kp, ki, kd, i_max, max_torque, raw_torque, integral,
                        last_error, const, slope)
    return const, slope


@kernel
def pid_torque_law_into(wanted_speed, omega, radius, dt, pid, kp, ki, kd, i_max, max_torque, raw_torque, integral,
                        last_error, const, slope):
    """pid_torque_law writing (const [N m], slope [N m s/rad]) into the given arrays (no allocation)."""
    for i in range(wanted_speed.size):
        if not pid[i]:
            const[i] = raw_torque[i]
            slope[i] = 0.0
            continue
        error = wanted_speed[i] - omega[i] * radius[i]
        derivative = (error - last_error[i]) / dt
        last_error[i] = error
        trial = min(max(integral[i] + error * dt, -i_max[i]), i_max[i])
        explicit = kp[i] * error + ki[i] * trial + kd[i] * derivative
        # Anti-windup: while the output saturates in the direction of the error, the integral is frozen.
        if abs(explicit) <= max_torque[i] or np.sign(explicit) != np.sign(error):
            integral[i] = trial
        const[i] = kp[i] * wanted_speed[i] + ki[i] * integral[i] + kd[i] * derivative
        slope[i] = kp[i] * radius[i]
