"""Ward–Iagnemma friction (MVSim docs, "Ward-Iagnemma Friction Model"): the default Coulomb model plus a
velocity-dependent rolling resistance, as a per-wheel force law.

Same interface, frames and implicit motor-torque law as default.py. The rolling resistance of Ward and Iagnemma
(2008) is a smooth function of the wheel's ground speed v_x:

    F_rr = -sign(v_x) * N * [R1 * (1 - exp(-A_roll * |v_x|)) + R2 * |v_x|],   N = m_wp * g = F_z + m_wheel * g

(MVSim's WardIagnemmaFriction.cpp takes N as the partial weight, wheel included). As in MVSim it is added to the
longitudinal force wanted from the torque balance *before* the Coulomb clamp, so it cannot push the total past
mu * N; the tyre-hysteresis torque T_rr = C_rr * F_z * R * tanh(100 omega) of the default model can be used on top.

One deliberate difference from MVSim's code: in the wheel's spin update MVSim leaves out the torque R * F_rr that
the contact force carries, so F_rr spins a free-rolling wheel up by R |F_rr| dt / I_yy each step and the no-slip
constraint hands the impulse straight back the next step: over a coast the net impulse telescopes to
F_rr(v_end) - F_rr(v_start), i.e. nothing (a 17 kg robot coasting from 2 m/s keeps rolling for as long as with the
default model). Here F_rr enters the torque balance as the resistive torque R * F_rr it stands for (wanted force
unchanged), so a rolling wheel stays rolling and the vehicle is braked by F_rr, as MVSim's documentation describes.
Gravity on slopes is handled as in default.py (MVSim: identical code in both models).
"""

from __future__ import annotations

import math

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.friction.spin_balance import balanced_traction
from mvsim_ros.physics.step_phases import inlined_kernel


#: Columns of the `params` matrix this model takes (per wheel).
PARAM_NAMES = ("mu", "C_damping", "A_roll", "R1", "R2", "C_rr")


@kernel
def rolling_resistance_force(v_x: float, load: float, a_roll: float, r1: float, r2: float) -> float:
    """Ward–Iagnemma F_rr [N] = -sign(v_x) * load * [R1 (1 - exp(-A_roll |v_x|)) + R2 |v_x|] (MVSim docs)."""
    speed = abs(v_x)
    magnitude = load * (r1 * (1.0 - math.exp(-a_roll * speed)) + r2 * speed)
    if v_x > 0.0:
        return -magnitude
    if v_x < 0.0:
        return magnitude
    return 0.0


@inlined_kernel
def ward_iagnemma_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt):
    """Ground force on one wheel (wheel frame) and its new spin rate, with the slope force its contact patch holds:
    (F_x, F_y [N], omega_new [rad/s], F_hold [N]); arguments as default.default_wheel.

    params[i]: the wheel's row of the (W, 6) columns PARAM_NAMES: mu, C_damping [N m s/rad], A_roll [s/m], R1 [-],
    R2 [s/m], C_rr [-].

    With m_wp = F_z / g + m_wheel and F_max = mu m_wp g:
      F_y = clamp(-v_y m_wp / dt - slope_y, +-F_max)                        (default model)
      net = torque_const - C_damping omega - T_rr + R F_rr                  (all but the implicit motor term)
      F_x = clamp((tau - I_yy alpha_desired - C_damping omega - T_rr) / R + F_rr, +-F_max)   (MVSim)
    F_x, omega_new and F_hold come from that balance with cap F_max (spin_balance.balanced_traction).
    """
    mu, c_damping, a_roll, r1, r2, c_rr = (params[i, 0], params[i, 1], params[i, 2], params[i, 3], params[i, 4],
                                           params[i, 5])
    v_x, omega, r = wheel.v_x, wheel.omega, wheel.radius
    normal_force = wheel.normal_force
    partial_mass = normal_force / gravity + wheel.wheel_mass
    max_force = mu * partial_mass * gravity
    lateral = -wheel.v_y * partial_mass / dt - wheel.slope_y
    force_y = min(max(lateral, -max_force), max_force)

    f_rr = rolling_resistance_force(v_x, partial_mass * gravity, a_roll, r1, r2)
    rolling_torque = c_rr * normal_force * r * math.tanh(100.0 * omega)
    net_torque = torque_const - c_damping * omega - rolling_torque + r * f_rr
    force_x, omega_new, held = balanced_traction(wheel, net_torque, torque_slope, max_force, dt)
    return force_x, force_y, omega_new, held
