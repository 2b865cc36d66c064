"""Pacejka "magic formula" tyre friction (not an MVSim model): the per-wheel force law, same interface as
default.py.

Per unit load the tyre force follows Pacejka's magic formula (as quoted in the project's physics notes, "Pacejka
Magic Formula", y(x) = D sin{C arctan[Bx - E(Bx - arctan(Bx))]}), on the slip ratio longitudinally and on the slip
angle laterally, each with its own B (stiffness), C (shape), D (peak) and E (curvature):

    F_x = N * f(kappa; Bx, Cx, Dx, Ex)        F_y = -N * f(alpha; By, Cy, Dy, Ey)

with N = m_wp g = F_z + m_wheel g the load the wheel carries (its own weight included, as the other models' partial
mass). The per-surface coefficients (the physics notes' table, the same in both directions) are in
mvsim_ros.world.elements.vehicles.PACEJKA_SURFACES.

Slips, regularised at low speed (V_LOW = 0.1 m/s) so that rest, zero load and locked wheels give finite values:

    kappa = (omega R - v_x) / max(|v_x|, |omega R|, V_LOW)      in [-2, 2]; -1 = locked wheel on a moving
                                                                vehicle, +1 = wheel spinning on a standing one
    alpha = atan(v_y / max(|v_x|, V_LOW))                        in (-pi/2, pi/2), same sign convention reversing

Above V_LOW these are the textbook slips (SAE slip ratio bounded by the larger of the two speeds, so it stays
finite when the vehicle stands); below it both fade linearly with the slip velocity, so the force vanishes at rest.

Time stepping. Slip dynamics are stiff at low speed (a 1 kg, 0.1 m wheel under N = 80 N on dry ground has a slip
time constant I_yy v / (N B C D R^2) shorter than a 5 ms step below about 15 m/s), so the force is evaluated at
the end of the step, not at the start (backward Euler), solved by one Newton step. Over dt the slip velocity
u = omega R - v_x moves, for a ground force F, to u(F) = u_free - F (R^2 / a + dt / m_wp): the wheel through its
torque balance
I_yy (omega_new - omega) / dt = tau - R F - C_damping omega - T_rr with the implicit motor law
tau = torque_const - torque_slope omega_new (a = I_yy / dt + torque_slope), the contact patch through the partial
mass m_wp; u_free is where the slip would end with no ground force. The implicit force solves
F = N f(u(F) / den) (den: the slip ratio's denominator at the start of the step); its root lies between 0 and the
force u_free / (R^2 / a + dt / m_wp) that ends the step without slip. The Newton step linearises f at the current
slip kappa, with k = max(f'(kappa), 0) / den (the curve's slope, zero past the peak):

    F_x = N [f(kappa) + k (u_free - u)] / (1 + k (N R^2 / a + g dt))

then is clamped into that bracket and to +-N Dx. Where that lands on the wrong side of 0 (the slip reverses within
the step, e.g. a wheel under a bang-bang torque), it linearises at the free end slip u_free / den instead:
F_x = N f(u_free / den) / (1 + k_free (N R^2 / a + g dt)). Laterally, v_y moving to v_y + F dt / m_wp:

    F_y = -N f(alpha) / (1 + max(f'(alpha), 0) g dt / (den (1 + (v_y / den)^2)))

clamped between 0 and the impulse -v_y m_wp / dt that stops the side slip, and to +-N Dy. In steady slip these
are the magic formula exactly, past the peak they are the magic formula at the current slip, and in the stiff limit
they give the force that stops the slip (MVSim's constraint force). They never push the slip past zero within a
step, so the scheme stays stable for any dt and load.

Gravity on slopes is counteracted as in MVSim's models (see default.py): the slope force is added to the
contact-patch force with the capacity left, |F| <= N D per direction, and kept out of the spin balance. Finally
the friction ellipse: if (F_x / (N Dx))^2 + (F_y / (N Dy))^2 > 1, both components are scaled down together onto
it. The spin update uses the longitudinal slip force actually applied:
omega_new = (I_yy omega / dt + net - R F_x,slip) / a, so a braked wheel (large torque_slope) locks and a wheel
driven past the traction limit spins up.
"""

from __future__ import annotations

import math

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.step_phases import inlined_kernel


#: Columns of the `params` matrix this model takes (per wheel).
PARAM_NAMES = ("Bx", "Cx", "Dx", "Ex", "By", "Cy", "Dy", "Ey", "C_damping", "C_rr")

#: Speed [m/s] below which slip ratio and slip angle are regularised (divided by this instead of the speed).
V_LOW = 0.1


@kernel
def magic_formula(x: float, b: float, c: float, d: float, e: float) -> tuple[float, float]:
    """Pacejka's magic formula per unit load and its slope: (y, dy/dx) with
    y = D sin(C atan(B x - E (B x - atan(B x)))) (physics notes)."""
    bx = b * x
    phi = bx - e * (bx - math.atan(bx))
    angle = c * math.atan(phi)
    y = d * math.sin(angle)
    slope = d * math.cos(angle) * c / (1.0 + phi * phi) * b * (1.0 - e + e / (1.0 + bx * bx))
    return y, slope


@inlined_kernel
def pacejka_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt):
    """Ground force on one wheel (wheel frame) and its new spin rate, with the slope force its contact patch holds:
    (F_x, F_y [N], omega_new [rad/s], F_hold [N]); arguments as default.default_wheel.

    params[i]: the wheel's row of the (W, 10) columns PARAM_NAMES: Bx, Cx, Dx, Ex (longitudinal magic-formula
    coefficients), By, Cy, Dy, Ey (lateral), C_damping [N m s/rad], C_rr [-] (rolling-resistance torque
    T_rr = C_rr F_z R tanh(100 omega), as the default model). See the module docstring for the scheme.
    Always (F_x / (N Dx))^2 + (F_y / (N Dy))^2 <= 1 with N = F_z + m_wheel g. F_hold is the part of F_x that holds
    the wheel against slope_x, carried by the wheel's drivetrain (R F_hold of torque) and kept out of the spin
    balance.
    """
    r, w, v_x, v_y = wheel.radius, wheel.omega, wheel.v_x, wheel.v_y
    normal_force = wheel.normal_force
    partial_mass = normal_force / gravity + wheel.wheel_mass
    load = partial_mass * gravity
    inertia_rate = wheel.inertia_yy / dt
    spin_rate = inertia_rate + torque_slope
    c_rr = params[i, 9]
    rolling_torque = c_rr * normal_force * r * math.tanh(100.0 * w) if c_rr != 0.0 else 0.0
    net_torque = torque_const - params[i, 8] * w - rolling_torque  # all but the implicit motor term

    # Longitudinal: slip force at the end of the step (one Newton step), bracketed by 0 and the force that
    # stops the slip.
    slip_velocity = w * r - v_x
    den = max(abs(v_x), abs(w * r), V_LOW)
    free_slip = r * (inertia_rate * w + net_torque) / spin_rate - v_x  # end slip velocity if F = 0
    wheel_compliance = r * r / spin_rate  # slip velocity per unit ground force, through the wheel [m/s/N]
    compliance = load * wheel_compliance + gravity * dt  # N (R^2 / a + dt / m_wp), finite at zero load
    f, df = magic_formula(slip_velocity / den, params[i, 0], params[i, 1], params[i, 2], params[i, 3])
    stiffness = max(df, 0.0) / den
    fx = load * (f + stiffness * (free_slip - slip_velocity)) / (1.0 + stiffness * compliance)
    stick = free_slip * partial_mass / (partial_mass * wheel_compliance + dt)
    if fx * stick < 0.0:  # the slip reverses within the step: linearise at the free end state instead
        f, df = magic_formula(free_slip / den, params[i, 0], params[i, 1], params[i, 2], params[i, 3])
        fx = load * f / (1.0 + max(df, 0.0) / den * compliance)
    fx = min(max(fx, min(stick, 0.0)), max(stick, 0.0))
    cap_x = load * abs(params[i, 2])
    fx = min(max(fx, -cap_x), cap_x)

    # Lateral: likewise, the contact patch moving under the partial mass (no side slip, no force: f(0) = 0).
    cap_y = load * abs(params[i, 6])
    fy = 0.0
    if v_y != 0.0:
        den_y = max(abs(v_x), V_LOW)
        tan_alpha = v_y / den_y
        f, df = magic_formula(math.atan(tan_alpha), params[i, 4], params[i, 5], params[i, 6], params[i, 7])
        stiffness = max(df, 0.0) / (den_y * (1.0 + tan_alpha * tan_alpha))
        fy = -load * f / (1.0 + stiffness * gravity * dt)
        stop = -v_y * partial_mass / dt
        fy = min(max(fy, min(stop, 0.0)), max(stop, 0.0))
        fy = min(max(fy, -cap_y), cap_y)

    # Gravity along the slope, with the capacity left in each direction (MVSim's handling; not in the spin).
    remaining = cap_x - abs(fx)
    total_x = fx - min(max(wheel.slope_x, -remaining), remaining)
    remaining = cap_y - abs(fy)
    total_y = fy - min(max(wheel.slope_y, -remaining), remaining)

    # Friction ellipse: scale both components down together onto it.
    usage = 0.0
    if cap_x > 0.0:
        usage += (total_x / cap_x) ** 2
    if cap_y > 0.0:
        usage += (total_y / cap_y) ** 2
    scale = 1.0 / math.sqrt(usage) if usage > 1.0 else 1.0
    force_x = total_x * scale
    omega_new = (inertia_rate * w + net_torque - r * fx * scale) / spin_rate
    return force_x, total_y * scale, omega_new, force_x - fx * scale
