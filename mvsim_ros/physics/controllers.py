"""Motor controllers, vectorised over wheels: speed setpoints in, wheel torques out (MVSim's PID_Controller and
its twist controllers).

twist_pid (and the Ackermann PID controllers on their front wheels): each driven wheel tracks the ground speed the
twist asks of it, v_i = v - omega * y_i (left positive), measured as omega_i * R_i from the wheel's own spin
(odometry, not ground truth). A PID per wheel, with MVSim's options:

  reference filter   the setpoint passes one or two cascaded first-order stages y += (1 - a)(sp - y),
                     a = exp(-dt / tau), before the error is taken;
  integral           I += KI e dt (a torque), unbounded unless the vehicle gives I_MAX (ours: |I| <= KI I_MAX, and
                     the integral frozen while the output saturates towards the error);
  derivative         KD (e - e_prev) / dt (0 at the first step), or with N > 0 the filtered form
                     D += dt N (KD e - D);
  feed-forward       a torque added to the output (the slope torque, see Simulation);
  saturation         +/- max_torque (0: no limit), and with anti-windup the back-calculation
                     I += (KI / KP)(u_sat - u) dt;
  stop gate          when every PID wheel of a vehicle has a setpoint below zero_threshold and a speed below
                     stop_threshold, its motors are off and its PIDs reset; with a zero setpoint otherwise, a
                     wheel's torque may only oppose its motion (no rebound from the integral).

The proportional term is handed to the friction model as a law of the wheel's new spin rate
(tau = const - K_P * R * omega_new) so it is integrated implicitly (stable for any gain, see friction/default.py);
the other terms are constants over the step. Saturation and anti-windup use the output at the current spin.

raw: the torque set for each wheel is applied as it is.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.step_data import ControllerData, TorqueLaw
from mvsim_ros.physics.step_phases import inlined_kernel
from mvsim_ros.world.specs import VehicleSpec

#: MVSim's stop gate of the differential twist_pid (fixed there) and the defaults of the Ackermann ones [m/s].
ZERO_THRESHOLD = 0.001
STOP_THRESHOLD = 0.05
#: One PID row's settings as scalars (units as in WheelControllers; clamp and antiwindup are flags).
PidGains = namedtuple("PidGains", "kp ki kd n_filter max_torque i_max clamp antiwindup feedforward")
#: One PID row's state as scalars: i_term [N m], d_state [N m], last_error [m/s], first (no step run yet).
PidState = namedtuple("PidState", "i_term d_state last_error first")
#: PID parameter columns, in the order of the `gains` matrix.
_COLUMNS = ("KP", "KI", "KD", "N", "max_torque", "I_MAX", "feedforward_gain", "reference_filter_tau",
            "zero_threshold", "stop_threshold")


@dataclass
class WheelControllers:
    """Per-wheel (or per-drivetrain) PID settings and state, length W; `pid` marks the rows under PID control.

    kp [N m s/m], ki [N m/m], kd [N m s^2/m], n_filter [1/s], max_torque [N m] (inf: no limit), i_max [m]
    (inf: no clamp; `clamp` marks rows with our I_MAX rule), antiwindup (MVSim's back-calculation),
    ref_order (0: no reference filter, 1 or 2 stages), ref_tau [s], zero_threshold / stop_threshold [m/s],
    ff_gain: the feed-forward torque's scale (0: off); feedforward [N m]: the torque added this step.
    State: i_term [N m], d_state [N m], last_error [m/s], ref_y1 / ref_y2 [m/s], first (no step run yet).
    raw_torque [N m]: the torque applied to rows of raw-controlled vehicles.
    """

    pid: np.ndarray
    kp: np.ndarray
    ki: np.ndarray
    kd: np.ndarray
    n_filter: np.ndarray
    max_torque: np.ndarray
    i_max: np.ndarray
    clamp: np.ndarray
    antiwindup: np.ndarray
    ff_gain: np.ndarray
    ref_order: np.ndarray
    ref_tau: np.ndarray
    zero_threshold: np.ndarray
    stop_threshold: np.ndarray
    feedforward: np.ndarray
    i_term: np.ndarray
    d_state: np.ndarray
    last_error: np.ndarray
    ref_y1: np.ndarray
    ref_y2: np.ndarray
    first: np.ndarray
    raw_torque: np.ndarray
    group: np.ndarray

    @classmethod
    def from_rows(cls, rows: list[dict | None], raw: list[float], group: list[int]) -> "WheelControllers":
        """One row per controlled unit: its controller's parameters (None: not under PID), its raw torque [N m]
        and its group (the stop gate acts on rows of one group together: a vehicle's wheels)."""
        table = np.zeros((len(rows), len(_COLUMNS)))
        flags = np.zeros((len(rows), 4), dtype=np.int64)  # pid, clamp, antiwindup, reference filter order
        for r, p in enumerate(rows):
            if p is None:
                continue
            max_torque = float(p.get("max_torque", 0.0))
            table[r] = (p["KP"], p.get("KI", 0.0), p.get("KD", 0.0), p.get("N", 0.0),
                        max_torque if max_torque > 0 else math.inf, p.get("I_MAX", math.inf),
                        p.get("feedforward_gain", 1.0) if p.get("enable_feedforward", False) else 0.0,
                        p.get("reference_filter_tau", 0.1), p.get("zero_threshold", ZERO_THRESHOLD),
                        p.get("stop_threshold", STOP_THRESHOLD))
            flags[r] = (1, "I_MAX" in p, bool(p.get("enable_antiwindup", False)),
                        p.get("reference_filter_order", 1) if p.get("enable_reference_filter", False) else 0)
        n = len(rows)
        column = {name: table[:, i].copy() for i, name in enumerate(_COLUMNS)}
        return cls(
            pid=flags[:, 0] > 0, kp=column["KP"], ki=column["KI"], kd=column["KD"], n_filter=column["N"],
            max_torque=column["max_torque"], i_max=column["I_MAX"], clamp=flags[:, 1] > 0,
            antiwindup=flags[:, 2] > 0, ff_gain=column["feedforward_gain"], ref_order=flags[:, 3].copy(),
            ref_tau=column["reference_filter_tau"], zero_threshold=column["zero_threshold"],
            stop_threshold=column["stop_threshold"], feedforward=np.zeros(n), i_term=np.zeros(n),
            d_state=np.zeros(n), last_error=np.zeros(n), ref_y1=np.zeros(n), ref_y2=np.zeros(n),
            first=np.ones(n, dtype=np.bool_), raw_torque=np.array(raw, dtype=float).reshape(n),
            group=np.array(group, dtype=np.intp).reshape(n))

    @classmethod
    def from_vehicles(cls, vehicles: list[VehicleSpec]) -> "WheelControllers":
        """Settings copied from each vehicle's controller spec onto the wheels it drives.

        Differential kinds with twist_pid: every driven wheel. Ackermann with front_steer_pid or
        twist_front_steer_pid: the front wheels (MVSim's front-wheel drive). ackermann_drivetrain (one motor,
        see fleet.Drivetrains) and twist_ideal (kinematic): no wheel PID. raw: torque_left / torque_right on the
        driven wheels of each side (differential kinds), fl_torque / fr_torque on the front wheels (ackermann).
        """
        rows, raw, group = [], [], []
        for k, vehicle in enumerate(vehicles):
            spec = vehicle.controller
            for wheel in vehicle.wheels:
                group.append(k)
                if _wheel_pid(vehicle, wheel):
                    rows.append(spec.params)
                    raw.append(0.0)
                else:
                    rows.append(None)
                    raw.append(_raw_torque(vehicle, wheel) if spec.kind == "raw" else 0.0)
        return cls.from_rows(rows, raw, group)

    def torque_law(
        self, wanted_speed: np.ndarray, omega: np.ndarray, radius: np.ndarray, dt: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Torque law tau = const - slope * omega_new for each wheel over the next step dt [s].

        wanted_speed: wheel ground-speed setpoints [m/s]; omega: current spin [rad/s]; radius [m].
        Returns (const [N m], slope [N m s/rad]); updates the PID state.
        """
        return pid_torque_law(wanted_speed, omega, radius, dt, self.arrays())

    def arrays(self) -> ControllerData:
        """The settings and state as the kernels take them (pid_torque_law_into's `c`): the same arrays (built once;
        the arrays are only ever written in place)."""
        data = self.__dict__.get("_data")
        if data is None:
            data = self.__dict__["_data"] = ControllerData(*(getattr(self, name) for name in ControllerData._fields))
        return data

    def reset(self, wheel_mask: np.ndarray) -> None:
        """Forget the PID state (integral, derivative, reference filter) of the masked rows."""
        for state in (self.i_term, self.d_state, self.last_error, self.ref_y1, self.ref_y2):
            state[wheel_mask] = 0.0
        self.first[wheel_mask] = True


def _wheel_pid(vehicle: VehicleSpec, wheel) -> bool:
    """Whether this wheel runs its own speed PID."""
    kind = vehicle.controller.kind
    if not wheel.driven or vehicle.dynamics == "ackermann_drivetrain":
        return False
    if kind == "twist_pid":
        return True
    return kind in ("front_steer_pid", "twist_front_steer_pid") and wheel.name in ("fl_wheel", "fr_wheel")


def _raw_torque(vehicle: VehicleSpec, wheel) -> float:
    """Initial torque [N m] of a raw-controlled wheel."""
    p = vehicle.controller.params
    if vehicle.dynamics == "ackermann":
        return {"fl_wheel": p.get("fl_torque", 0.0), "fr_wheel": p.get("fr_torque", 0.0)}.get(wheel.name, 0.0)
    if vehicle.dynamics == "ackermann_drivetrain" or not wheel.driven or wheel.side == 0:
        return 0.0
    return p.get("torque_left", 0.0) if wheel.side > 0 else p.get("torque_right", 0.0)


@kernel
def pid_torque_law(wanted_speed, omega, radius, dt, c):
    """Per-row PID as an implicit torque law (module docstring); the state in `c` (step_data.ControllerData) is
    updated in place. Returns (const, slope) with tau = const - slope * omega_new."""
    law = TorqueLaw(np.empty(wanted_speed.size), np.empty(wanted_speed.size))
    pid_torque_law_into(wanted_speed, omega, radius, dt, c, law)
    return law.const, law.slope


@inlined_kernel
def pid_torque_law_into(wanted_speed, omega, radius, dt, c, law):
    """pid_torque_law writing (const [N m], slope [N m s/rad]) into `law` (step_data.TorqueLaw; no allocation).

    wanted_speed [m/s]: each row's ground-speed setpoint; omega [rad/s]: its current spin; radius [m]; dt [s]."""
    const, slope = law.const, law.slope
    pid, group, raw_torque = c.pid, c.group, c.raw_torque
    zero_threshold, stop_threshold = c.zero_threshold, c.stop_threshold
    i_term, d_state, last_error, first, ref_y1, ref_y2 = c.i_term, c.d_state, c.last_error, c.first, c.ref_y1, c.ref_y2
    count = wanted_speed.size
    start = 0
    while start < count:
        end = start + 1
        while end < count and group[end] == group[start]:
            end += 1
        # The setpoints through the reference filter (held in `const` until the row's law replaces them); the stop
        # gate over the group's PID rows.
        setpoint_zero = True
        stopped = True
        for i in range(start, end):
            if not pid[i]:
                continue
            const[i] = filtered_reference(wanted_speed[i], dt, c.ref_order[i], c.ref_tau[i], ref_y1, ref_y2, i)
            if abs(const[i]) >= zero_threshold[i]:
                setpoint_zero = False
            if abs(omega[i] * radius[i]) >= stop_threshold[i]:
                stopped = False
        for i in range(start, end):
            if not pid[i]:
                const[i] = raw_torque[i]
                slope[i] = 0.0
            elif setpoint_zero and stopped:
                const[i] = 0.0
                slope[i] = 0.0
                i_term[i] = d_state[i] = last_error[i] = ref_y1[i] = ref_y2[i] = 0.0
                first[i] = True
            else:
                state = PidState(i_term[i], d_state[i], last_error[i], first[i])
                const[i], slope[i], state = pid_row(pid_gains(c, i), state, const[i], omega[i] * radius[i],
                                                    radius[i], dt, setpoint_zero)
                i_term[i], d_state[i], last_error[i], first[i] = (state.i_term, state.d_state, state.last_error,
                                                                  state.first)
        start = end


@kernel
def filtered_reference(setpoint, dt, order, tau, y1, y2, i):
    """Row i's setpoint [m/s] through `order` (0, 1 or 2) cascaded first-order stages of time constant tau [s]
    (states y1[i], y2[i] updated in place)."""
    if order == 0:
        return setpoint
    a = math.exp(-dt / max(1e-6, tau))
    y1[i] = a * y1[i] + (1.0 - a) * setpoint
    if order == 1:
        return y1[i]
    y2[i] = a * y2[i] + (1.0 - a) * y1[i]
    return y2[i]


@inlined_kernel
def pid_gains(c, i):
    """Row i's PidGains from the controller data `c` (step_data.ControllerData)."""
    return PidGains(c.kp[i], c.ki[i], c.kd[i], c.n_filter[i], c.max_torque[i], c.i_max[i], c.clamp[i],
                    c.antiwindup[i], c.feedforward[i])


@kernel
def pid_row(gains, state, setpoint, speed, radius, dt, setpoint_zero):
    """One row's PID step at measured speed [m/s] towards setpoint [m/s] (radius [m], dt [s]; setpoint_zero: the
    row's group is asked to stop). gains: PidGains, state: PidState (scalars). Returns (const [N m],
    slope [N m s/rad], the new PidState): the row's torque law tau = const - slope * omega_new."""
    kp, ki, max_torque, feedforward = gains.kp, gains.ki, gains.max_torque, gains.feedforward
    i_term, d_state = state.i_term, state.d_state
    error = setpoint - speed
    if gains.n_filter > 0.0:
        d_state += dt * gains.n_filter * (gains.kd * error - d_state)
        derivative = d_state
    elif state.first:
        derivative = 0.0
    else:
        derivative = gains.kd * (error - state.last_error) / dt
    trial = i_term + ki * error * dt
    if gains.clamp:
        bound = ki * gains.i_max
        trial = min(max(trial, -bound), bound)
        explicit = kp * error + trial + derivative + feedforward
        # While the output saturates in the direction of the error, the integral is frozen.
        if abs(explicit) <= max_torque or np.sign(explicit) != np.sign(error):
            i_term = trial
    else:
        i_term = trial
    if gains.antiwindup and kp > 1e-12 and max_torque < np.inf:
        unsaturated = kp * error + i_term + derivative + feedforward
        saturated = min(max(unsaturated, -max_torque), max_torque)
        i_term += ki / kp * (saturated - unsaturated) * dt
    new_state = PidState(i_term, d_state, error, False)
    explicit = kp * error + i_term + derivative + feedforward
    if setpoint_zero and explicit * speed > 0.0:
        return 0.0, 0.0, new_state  # braking to zero: a torque along the motion is dropped
    return kp * setpoint + i_term + derivative + feedforward, kp * radius, new_state
