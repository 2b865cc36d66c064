"""MVSim's default wheel-ground friction model (physics seed 001, "Default Friction Model"), vectorised.

All arrays have one entry per wheel. Frames: the wheel frame has x along the rolling direction, y along the
axle (to the left), z up. Positive motor torque drives the wheel forward (+x).

Motor torque is given as an affine law of the wheel's new spin rate, tau = torque_const - torque_slope * omega_new
(a velocity controller's proportional term is such a law). With torque_slope = 0 this is exactly the seed's
model. With a slope, the proportional term is integrated implicitly: a slipping wheel is a bare inertia, and an
explicit P term on it is unstable once K_P * R * dt / I_yy > 2 (e.g. K_P = 60 N m s/m on a 0.2 m, 1 kg wheel at
dt = 5 ms gives 6); the implicit form is stable for any gain and identical while the wheel rolls.

Gravity on slopes (seed 001, "Gravity Slope Handling"; MVSim's DefaultFriction.cpp): the ground-plane component
of gravity on the wheel's share of mass, (slope_x, slope_y) in the wheel frame, is counteracted by friction.
Laterally it joins the side-slip-cancelling impulse before the Coulomb clamp; longitudinally it is added to the
contact-patch force after the clamp, limited to the capacity the traction force leaves, and it does not enter the
wheel's torque balance (it acts on the chassis, not on the wheel spin). A vehicle on a slope below the friction
limit therefore stays put with no motor torque.
"""

from __future__ import annotations

import numpy as np

from mvsim_ros.core.jit import kernel


#: Columns of the `params` matrix this model takes (per wheel), and their defaults.
PARAM_NAMES = ("mu", "C_damping", "C_rr")


@kernel
def default_friction_held(
    v_x: np.ndarray,
    v_y: np.ndarray,
    omega: np.ndarray,
    torque_const: np.ndarray,
    torque_slope: np.ndarray,
    normal_force: np.ndarray,
    slope_x: np.ndarray,
    slope_y: np.ndarray,
    radius: np.ndarray,
    inertia_yy: np.ndarray,
    wheel_mass: np.ndarray,
    params: np.ndarray,
    gravity: float,
    dt: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """default_friction, plus the slope force the contact patch holds: (F_x, F_y, omega_new, F_hold) with F_hold
    [N] the part of F_x that holds the wheel against slope_x (-clamp(slope_x, +-(F_max - |F_trac|))), which the
    wheel's drivetrain carries (R F_hold of torque) and which stays out of the spin balance."""
    force_x, force_y, omega_new, held = (np.empty(v_x.size), np.empty(v_x.size), np.empty(v_x.size),
                                         np.empty(v_x.size))
    default_friction_held_into(v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                               inertia_yy, wheel_mass, params, gravity, dt, force_x, force_y, omega_new, held)
    return force_x, force_y, omega_new, held


@kernel
def default_friction_held_into(v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                               inertia_yy, wheel_mass, params, gravity, dt, force_x, force_y, omega_new, held):
    """default_friction_held writing (F_x, F_y [N], omega_new [rad/s], F_hold [N]) into the given arrays, which
    must not be any of the inputs (no allocation: the compiled steps)."""
    for i in range(v_x.size):
        mu, c_damping, c_rr = params[i, 0], params[i, 1], params[i, 2]
        partial_mass = normal_force[i] / gravity + wheel_mass[i]
        max_force = mu * partial_mass * gravity

        force_y[i] = np.minimum(np.maximum(-v_y[i] * partial_mass / dt - slope_y[i], -max_force), max_force)

        rolling_torque = c_rr * normal_force[i] * radius[i] * np.tanh(100.0 * omega[i])
        net_torque = torque_const[i] - c_damping * omega[i] - rolling_torque  # all but the implicit motor term
        omega_rolling = v_x[i] / radius[i]
        alpha_no_slip = (omega_rolling - omega[i]) / dt
        longitudinal_wanted = (net_torque - torque_slope[i] * omega_rolling - inertia_yy[i] * alpha_no_slip) / radius[i]
        longitudinal = np.minimum(np.maximum(longitudinal_wanted, -max_force), max_force)

        # Torque balance I (omega_new - omega) / dt = net_torque - slope * omega_new - R F_x, solved for omega_new;
        # where the force is not clamped this gives omega_rolling exactly.
        inertia_rate = inertia_yy[i] / dt
        omega_new[i] = ((inertia_rate * omega[i] + net_torque - radius[i] * longitudinal)
                        / (inertia_rate + torque_slope[i]))

        # Slope gravity on the contact patch, within the capacity traction leaves (not part of the spin balance).
        remaining = max_force - np.abs(longitudinal)
        held[i] = -np.minimum(np.maximum(slope_x[i], -remaining), remaining)
        force_x[i] = longitudinal + held[i]


@kernel
def default_friction(
    v_x: np.ndarray,
    v_y: np.ndarray,
    omega: np.ndarray,
    torque_const: np.ndarray,
    torque_slope: np.ndarray,
    normal_force: np.ndarray,
    slope_x: np.ndarray,
    slope_y: np.ndarray,
    radius: np.ndarray,
    inertia_yy: np.ndarray,
    wheel_mass: np.ndarray,
    params: np.ndarray,
    gravity: float,
    dt: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ground force on each wheel and its new spin rate.

    Args:
        v_x, v_y: contact-point velocity in the wheel frame [m/s].
        omega: wheel spin rate [rad/s] (positive rolls forward).
        torque_const, torque_slope: motor torque on the shaft, tau = torque_const - torque_slope * omega_new
            [N m] and [N m s/rad].
        normal_force: load on the wheel F_z [N].
        slope_x, slope_y: ground-plane component of gravity on the wheel's share of mass, wheel frame [N]
            (zero on flat ground; the terrain model feeds it).
        radius: wheel radius R [m]; inertia_yy: spin inertia [kg m^2]; wheel_mass [kg].
        params: (n, 3) per-wheel columns PARAM_NAMES: mu (Coulomb coefficient), C_damping (bearing damping
            [N m s/rad]), C_rr (rolling-resistance coefficient, dimensionless).
        gravity: g [m/s^2]; dt: time step [s].

    Returns:
        (F_x, F_y, omega_new): ground force on the wheel in the wheel frame [N] and the spin rate after dt
        [rad/s].

    The lateral force is the impulse that cancels side slip within dt, plus the force holding the wheel against
    the lateral slope, F_y = clamp(-v_y m_wp / dt - slope_y, +-F_max); the longitudinal force comes from the
    wheel's torque balance I_yy * alpha = tau - R * F_x - C_damping * omega - T_rr, choosing alpha so the wheel
    rolls without slip at the end of the step, clamped to +-F_max; then
    F_x -= clamp(slope_x, +-(F_max - |F_x|)) holds the wheel against the longitudinal slope with what capacity
    is left. F_max = mu * m_wp * g is the Coulomb limit, m_wp = F_z / g + m_wheel the mass the wheel carries.
    Rolling resistance is the shaft torque T_rr = C_rr * F_z * R * tanh(100 * omega). With zero slope forces
    the results are those of the flat-ground model exactly.
    """
    force_x, force_y, omega_new, _ = default_friction_held(v_x, v_y, omega, torque_const, torque_slope, normal_force,
                                                           slope_x, slope_y, radius, inertia_yy, wheel_mass, params,
                                                           gravity, dt)
    return force_x, force_y, omega_new
