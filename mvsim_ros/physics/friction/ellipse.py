"""Ellipse-curve friction (MVSim docs, "Ellipse Curve Friction Method"): the per-wheel force law.

Same interface, frames and implicit motor-torque law as default.py. Instead of a Coulomb limit mu * N, the forces
are bounded by slip-dependent curves that share an ellipse: the more longitudinal slip, the less lateral grip and
vice versa. Per wheel, with N = m_wp * g = F_z + m_wheel * g (MVSim's EllipseCurveMethod.cpp: the partial
weight):

  slip angle   alpha = atan2(v_y, v_x), folded into [-pi/2, pi/2] when the wheel moves backwards (MVSim compares the
               velocity direction with the heading and, past 90 degrees, with the reversed heading); taken as 0
               when |v_x| and |v_y| are both <= 1e-3 m/s (MVSim's low-speed guard).
  slip ratio   s = clamp((v_w - v_x) / |v_w|, -1, 1), v_w = omega R, or v_w = 1e-5 m/s when |omega| <= 1e-5 rad/s
               (MVSim's guard for a wheel at rest).
  saturation   sat(x, x_s) = x if |x| < x_s else x_s sign(x)
  bounds       F_x^max = N C_s sat(s, s_s) sqrt(1 - C_s_alpha (sat(alpha, alpha_s) / alpha_s)^2)
               F_y^max = N C_alpha sat(alpha, alpha_s) sqrt(1 - C_alpha_s (sat(s, s_s) / s_s)^2)

The forces are then those of the default model clamped to these bounds: F_y = clamp(-v_y m_wp / dt - slope_y,
+-|F_y^max|); F_x from the wheel's torque balance (bearing damping C_damping omega, rolling-resistance torque
T_rr = C_rr F_z R tanh(100 omega)), clamped to +-|F_x^max|; the slope force along x is added after the spin
update, limited to |F_x^max| - |F_x| (MVSim: same gravity handling in every model).

Where this differs from MVSim's code (on purpose):
  * the bounds are used as magnitudes. MVSim's are signed (they follow the sign of s and alpha) and go straight into
    std::clamp(v, -max, max); with a negative max the interval is inverted, which the C++ standard leaves undefined
    (in practice one of the two ends comes back, a saturated force whatever the wanted one is), so braking (s < 0)
    and sliding to one side (alpha < 0) would behave differently from driving and sliding to the other side.
  * the slip angle is measured from the wheel's heading; our velocities are already in the wheel frame, so the
    steering angle is not subtracted a second time (MVSim rotates into the wheel frame and then also subtracts the
    wheel's yaw, which double-counts steering on steered wheels).
  * the square roots are taken of max(0, ...), so coupling coefficients above 1 give a zero bound, not NaN.
"""

from __future__ import annotations

import math

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.friction.spin_balance import balanced_traction
from mvsim_ros.physics.step_phases import inlined_kernel


#: Columns of the `params` matrix this model takes (per wheel). The model has no Coulomb mu (the region property
#: friction_mu does not apply to it).
PARAM_NAMES = ("C_damping", "C_rr", "C_alpha", "slip_angle_saturation", "C_alpha_s", "C_s", "slip_ratio_saturation",
               "C_s_alpha")

#: MVSim's guards: below this speed [m/s] on both axes the slip angle is 0; below this spin [rad/s] the wheel's
#: ground-point speed is taken as this value [m/s].
SLIP_ANGLE_MIN_SPEED = 1e-3
SLIP_RATIO_MIN_SPIN = 1e-5


@kernel
def slip_angle_magnitude(v_x: float, v_y: float) -> float:
    """|alpha| [rad] in [0, pi/2]: the angle between the wheel's velocity and its heading line (either way along
    it, so reversing gives small angles too); 0 at rest (|v_x|, |v_y| <= 1e-3 m/s)."""
    if abs(v_y) > SLIP_ANGLE_MIN_SPEED or abs(v_x) > SLIP_ANGLE_MIN_SPEED:
        return math.atan2(abs(v_y), abs(v_x))
    return 0.0


@kernel
def slip_ratio(v_x: float, omega: float, radius: float) -> float:
    """s = clamp((v_w - v_x) / |v_w|, -1, 1) with v_w = omega R, or 1e-5 m/s for a wheel at rest (MVSim)."""
    ground_point = omega * radius if abs(omega) > SLIP_RATIO_MIN_SPIN else 1e-5
    return min(max((ground_point - v_x) / abs(ground_point), -1.0), 1.0)


@kernel
def ellipse_bounds(alpha_abs: float, s: float, load: float, params, i: int) -> tuple[float, float]:
    """(|F_x^max|, |F_y^max|) [N] of the ellipse-curve method for slip angle magnitude alpha_abs [rad], slip ratio
    s and load N [N], with wheel i's coefficients (columns 2-7 of params: C_alpha, slip_angle_saturation,
    C_alpha_s, C_s, slip_ratio_saturation, C_s_alpha)."""
    c_alpha, alpha_sat, c_alpha_s = params[i, 2], params[i, 3], params[i, 4]
    c_s, s_sat, c_s_alpha = params[i, 5], params[i, 6], params[i, 7]
    s_abs = abs(s)
    # sat(x, x_s) in magnitude, and sat(x, x_s) / x_s (1 when saturated; also for x_s = 0, never NaN).
    s_sat_value = s_abs if s_abs < s_sat else s_sat
    s_fraction = s_abs / s_sat if s_abs < s_sat else 1.0
    a_sat_value = alpha_abs if alpha_abs < alpha_sat else alpha_sat
    a_fraction = alpha_abs / alpha_sat if alpha_abs < alpha_sat else 1.0
    max_x = load * c_s * s_sat_value * math.sqrt(max(0.0, 1.0 - c_s_alpha * a_fraction * a_fraction))
    max_y = load * c_alpha * a_sat_value * math.sqrt(max(0.0, 1.0 - c_alpha_s * s_fraction * s_fraction))
    return max_x, max_y


@inlined_kernel
def ellipse_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt):
    """Ground force on one wheel (wheel frame) and its new spin rate, with the slope force its contact patch holds:
    (F_x, F_y [N], omega_new [rad/s], F_hold [N]); arguments as default.default_wheel.

    params[i]: the wheel's row of the (W, 8) columns PARAM_NAMES: C_damping [N m s/rad], C_rr [-], C_alpha [1/rad],
    slip_angle_saturation [rad], C_alpha_s [-], C_s [-], slip_ratio_saturation [-], C_s_alpha [-].
    Slips are taken from the state at the start of the step (as MVSim); see the module docstring for the formulas.
    |F_y| <= |F_y^max| and |F_x| <= |F_x^max| always; F_hold, the part of F_x that holds the wheel against
    slope_x, is carried by the wheel's drivetrain (R F_hold of torque) and kept out of the spin balance.
    """
    c_damping, c_rr = params[i, 0], params[i, 1]
    v_x, omega, r = wheel.v_x, wheel.omega, wheel.radius
    normal_force = wheel.normal_force
    partial_mass = normal_force / gravity + wheel.wheel_mass
    alpha_abs = slip_angle_magnitude(v_x, wheel.v_y)
    s = slip_ratio(v_x, omega, r)
    max_x, max_y = ellipse_bounds(alpha_abs, s, partial_mass * gravity, params, i)

    lateral = -wheel.v_y * partial_mass / dt - wheel.slope_y
    force_y = min(max(lateral, -max_y), max_y)

    rolling_torque = c_rr * normal_force * r * math.tanh(100.0 * omega)
    net_torque = torque_const - c_damping * omega - rolling_torque
    force_x, omega_new, held = balanced_traction(wheel, net_torque, torque_slope, max_x, dt)
    return force_x, force_y, omega_new, held
