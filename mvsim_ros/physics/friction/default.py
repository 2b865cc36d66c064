"""MVSim's default wheel-ground friction model (MVSim docs, "Default Friction Model"): the per-wheel force law.

The driver (friction/__init__.py) runs it over the wheels. Frames: the wheel frame has x along the rolling
direction, y along the axle (to the left), z up. Positive motor torque drives the wheel forward (+x).

Motor torque is given as an affine law of the wheel's new spin rate, tau = torque_const - torque_slope * omega_new
(a velocity controller's proportional term is such a law). With torque_slope = 0 this is exactly MVSim's
model. With a slope, the proportional term is integrated implicitly: a slipping wheel is a bare inertia, and an
explicit P term on it is unstable once K_P * R * dt / I_yy > 2 (e.g. K_P = 60 N m s/m on a 0.2 m, 1 kg wheel at
dt = 5 ms gives 6); the implicit form is stable for any gain and identical while the wheel rolls.

Gravity on slopes (MVSim docs, "Gravity Slope Handling"; MVSim's DefaultFriction.cpp): the ground-plane component
of gravity on the wheel's share of mass, (slope_x, slope_y) in the wheel frame, is counteracted by friction.
Laterally it joins the side-slip-cancelling impulse before the Coulomb clamp; longitudinally it is added to the
contact-patch force after the clamp, limited to the capacity the traction force leaves, and it does not enter the
wheel's torque balance (it acts on the chassis, not on the wheel spin). A vehicle on a slope below the friction
limit therefore stays put with no motor torque.
"""

from __future__ import annotations

import numpy as np

from mvsim_ros.physics.step_phases import inlined_kernel


#: Columns of the `params` matrix this model takes (per wheel), and their defaults.
PARAM_NAMES = ("mu", "C_damping", "C_rr")


@inlined_kernel
def default_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt):
    """Ground force on one wheel and its new spin rate, with the slope force its contact patch holds:
    (F_x, F_y [N], omega_new [rad/s], F_hold [N]).

    wheel: friction.WheelContact (its velocity, spin, load, slope forces and constants); torque_const [N m],
    torque_slope [N m s/rad]: the motor law tau = torque_const - torque_slope * omega_new; params[i]: the wheel's
    row of per-wheel columns PARAM_NAMES: mu (Coulomb coefficient), C_damping (bearing damping [N m s/rad]), C_rr
    (rolling-resistance coefficient, dimensionless); gravity g [m/s^2]; dt [s].

    The lateral force is the impulse that cancels side slip within dt, plus the force holding the wheel against
    the lateral slope, F_y = clamp(-v_y m_wp / dt - slope_y, +-F_max); the longitudinal force comes from the
    wheel's torque balance I_yy * alpha = tau - R * F_x - C_damping * omega - T_rr, choosing alpha so the wheel
    rolls without slip at the end of the step, clamped to +-F_max; then F_hold = -clamp(slope_x, +-(F_max -
    |F_x|)) holds the wheel against the longitudinal slope with what capacity is left and is added to F_x.
    F_max = mu * m_wp * g is the Coulomb limit, m_wp = F_z / g + m_wheel the mass the wheel carries. Rolling
    resistance is the shaft torque T_rr = C_rr * F_z * R * tanh(100 * omega). With zero slope forces the results
    are those of the flat-ground model exactly, and F_hold = 0.
    """
    mu, c_damping, c_rr = params[i, 0], params[i, 1], params[i, 2]
    omega, radius, normal_force = wheel.omega, wheel.radius, wheel.normal_force
    partial_mass = normal_force / gravity + wheel.wheel_mass
    max_force = mu * partial_mass * gravity

    force_y = np.minimum(np.maximum(-wheel.v_y * partial_mass / dt - wheel.slope_y, -max_force), max_force)

    rolling_torque = c_rr * normal_force * radius * np.tanh(100.0 * omega)
    net_torque = torque_const - c_damping * omega - rolling_torque  # all but the implicit motor term
    omega_rolling = wheel.v_x / radius
    alpha_no_slip = (omega_rolling - omega) / dt
    inertia_yy = wheel.inertia_yy
    longitudinal_wanted = (net_torque - torque_slope * omega_rolling - inertia_yy * alpha_no_slip) / radius
    longitudinal = np.minimum(np.maximum(longitudinal_wanted, -max_force), max_force)

    # Torque balance I (omega_new - omega) / dt = net_torque - slope * omega_new - R F_x, solved for omega_new;
    # where the force is not clamped this gives omega_rolling exactly.
    inertia_rate = inertia_yy / dt
    omega_new = (inertia_rate * omega + net_torque - radius * longitudinal) / (inertia_rate + torque_slope)

    # Slope gravity on the contact patch, within the capacity traction leaves (not part of the spin balance).
    remaining = max_force - np.abs(longitudinal)
    held = -np.minimum(np.maximum(wheel.slope_x, -remaining), remaining)
    return longitudinal + held, force_y, omega_new, held
