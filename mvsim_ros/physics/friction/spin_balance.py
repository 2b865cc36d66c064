"""A wheel's longitudinal ground force and new spin rate from its torque balance, for the friction laws that differ
only in the force cap they give it (Ward–Iagnemma: mu m_wp g; ellipse: the slip-ratio bound).

With the motor law tau = torque_const - torque_slope * omega_new and net = every other shaft torque:
  F_x = clamp((net - torque_slope v_x / R - I_yy (v_x / R - omega) / dt) / R, +-cap)   (rolls without slip if it can)
  omega_new = (I_yy omega / dt + net - R F_x) / (I_yy / dt + torque_slope)            (implicit in tau)
  F_hold = -clamp(slope_x, +-(cap - |F_x|))                                          (slope, after the spin update)
"""

from __future__ import annotations

from mvsim_ros.physics.step_phases import inlined_kernel


@inlined_kernel
def balanced_traction(wheel, net_torque, torque_slope, cap, dt):
    """(F_x + F_hold [N], omega_new [rad/s], F_hold [N]) of one wheel (friction.WheelContact) with net shaft torque
    `net_torque` [N m] (all but the implicit motor term), motor law slope `torque_slope` [N m s/rad], longitudinal
    force cap `cap` [N] and time step dt [s]; formulas in the module docstring."""
    omega, r = wheel.omega, wheel.radius
    omega_rolling = wheel.v_x / r
    inertia_yy = wheel.inertia_yy
    wanted = (net_torque - torque_slope * omega_rolling - inertia_yy * (omega_rolling - omega) / dt) / r
    longitudinal = min(max(wanted, -cap), cap)
    inertia_rate = inertia_yy / dt
    omega_new = (inertia_rate * omega + net_torque - r * longitudinal) / (inertia_rate + torque_slope)
    remaining = cap - abs(longitudinal)
    held = -min(max(wheel.slope_x, -remaining), remaining)
    return longitudinal + held, omega_new, held
