"""Ward–Iagnemma friction (physics seed 001, "Ward-Iagnemma Friction Model"; seed 003 §2): the default Coulomb
model plus a velocity-dependent rolling resistance, vectorised.

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
unchanged), so a rolling wheel stays rolling and the vehicle is braked by F_rr, as the seed describes.
Gravity on slopes is handled as in default.py (MVSim: identical code in both models).
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.jit import kernel


#: Columns of the `params` matrix this model takes (per wheel).
PARAM_NAMES = ("mu", "C_damping", "A_roll", "R1", "R2", "C_rr")


@kernel
def rolling_resistance_force(v_x: float, load: float, a_roll: float, r1: float, r2: float) -> float:
    """Ward–Iagnemma F_rr [N] = -sign(v_x) * load * [R1 (1 - exp(-A_roll |v_x|)) + R2 |v_x|] (seed 001)."""
    speed = abs(v_x)
    magnitude = load * (r1 * (1.0 - math.exp(-a_roll * speed)) + r2 * speed)
    if v_x > 0.0:
        return -magnitude
    if v_x < 0.0:
        return magnitude
    return 0.0


@kernel
def ward_iagnemma_friction_held(
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
    """ward_iagnemma_friction, plus the slope force the contact patch holds: (F_x, F_y, omega_new, F_hold),
    F_hold [N] being the part of F_x that holds the wheel against slope_x, carried by the wheel's drivetrain
    (R F_hold of torque) and kept out of the spin balance."""
    count = v_x.shape[0]
    force_x = np.empty(count)
    force_y = np.empty(count)
    omega_new = np.empty(count)
    held = np.empty(count)
    for i in range(count):
        mu, c_damping, a_roll, r1, r2, c_rr = (params[i, 0], params[i, 1], params[i, 2], params[i, 3],
                                               params[i, 4], params[i, 5])
        r = radius[i]
        partial_mass = normal_force[i] / gravity + wheel_mass[i]
        max_force = mu * partial_mass * gravity
        lateral = -v_y[i] * partial_mass / dt - slope_y[i]
        force_y[i] = min(max(lateral, -max_force), max_force)

        f_rr = rolling_resistance_force(v_x[i], partial_mass * gravity, a_roll, r1, r2)
        rolling_torque = c_rr * normal_force[i] * r * math.tanh(100.0 * omega[i])
        net_torque = torque_const[i] - c_damping * omega[i] - rolling_torque + r * f_rr
        omega_rolling = v_x[i] / r
        wanted = (net_torque - torque_slope[i] * omega_rolling - inertia_yy[i] * (omega_rolling - omega[i]) / dt) / r
        longitudinal = min(max(wanted, -max_force), max_force)
        inertia_rate = inertia_yy[i] / dt
        omega_new[i] = (inertia_rate * omega[i] + net_torque - r * longitudinal) / (inertia_rate + torque_slope[i])
        remaining = max_force - abs(longitudinal)
        held[i] = -min(max(slope_x[i], -remaining), remaining)
        force_x[i] = longitudinal + held[i]
    return force_x, force_y, omega_new, held


@kernel
def ward_iagnemma_friction(
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
    """Ground force on each wheel (wheel frame) [N] and its new spin rate [rad/s]; arguments as default_friction.

    params: (n, 6) per-wheel columns PARAM_NAMES: mu, C_damping [N m s/rad], A_roll [s/m], R1 [-], R2 [s/m],
    C_rr [-].

    Per wheel, with m_wp = F_z / g + m_wheel, F_max = mu m_wp g and a = I_yy / dt + torque_slope:
      F_y = clamp(-v_y m_wp / dt - slope_y, +-F_max)                        (default model)
      net = torque_const - C_damping omega - T_rr + R F_rr                  (all but the implicit motor term)
      F_x = clamp((net - torque_slope v_x / R - I_yy (v_x / R - omega) / dt) / R, +-F_max)
          = clamp((tau - I_yy alpha_desired - C_damping omega - T_rr) / R + F_rr, +-F_max)   (seed / MVSim)
      omega_new = (I_yy omega / dt + net - R F_x) / a                        (torque balance, implicit in tau)
      F_x -= clamp(slope_x, +-(F_max - |F_x|))                               (slope, after the spin update)
    """
    force_x, force_y, omega_new, _ = ward_iagnemma_friction_held(v_x, v_y, omega, torque_const, torque_slope,
                                                                 normal_force, slope_x, slope_y, radius, inertia_yy,
                                                                 wheel_mass, params, gravity, dt)
    return force_x, force_y, omega_new
