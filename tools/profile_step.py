"""Where the microseconds of one simulation step go, at 1 and 50 differential robots (worlds/bench/): prints a
markdown table for the README.

Columns: `step()` with pybox2d's Python API for the bodies (how every step ran before the Box2D shim), `step()`
with the shim, and `step_many` (all phases in one compiled call). Rows: Box2D's own step, reading the bodies,
pushing forces and torques, the phase kernels (steering, controllers, kinematics, friction, wrenches, odometry,
called one by one from Python, call overhead included), and what is left: Python's bookkeeping between them. Each
figure is the best of several timed loops (least disturbed by other load).

    .venv/bin/python tools/profile_step.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.physics.step_phases import advance_spin_angles, applied_torque, reference_point_state, solve_wheels
from mvsim_ros.physics.vehicles.differential import integrate_differential_odometry
from mvsim_ros.physics.vehicles.fleet import wheel_setpoints
from mvsim_ros.physics.wheels import body_wrenches, contact_velocities
from mvsim_ros.world import load_world

WORLDS = Path(__file__).resolve().parents[1] / "worlds" / "bench"


def best_us(action, count: int, repeat: int) -> float:
    """Best time [us] per call of `action` over `repeat` loops of `count` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(count):
            action()
        best = min(best, (time.perf_counter() - start) / count)
    return best * 1e6


def simulation(robots: int) -> Simulation:
    sim = Simulation(load_world(WORLDS / f"differential_{robots}.world.xml"))
    for k in range(robots):
        sim.set_twist(k, 0.5, 0.0)
    sim.step_many(100)
    return sim


def kernels_us(sim: Simulation, repeat: int) -> float:
    """The phase kernels of one step, called from Python as step() calls them (their call overhead included)."""
    w, c, st, g = sim.wheels, sim.commands, sim.steering, sim._friction_groups[0]
    n, dt = len(sim.vehicle_names), sim.dt

    def phases():
        wanted, wc, ws, _ = wheel_setpoints(c.v, c.omega, c.steer, c.steer_mode, c.steer_rate, st.vehicle, st.fl,
                                            st.fr, st.wheelbase, st.track, st.max_steer, st.max_rate, st.delta,
                                            w.vehicle, w.x, w.y, w.yaw, dt)
        const, slope = sim.controllers.torque_law(wanted, w.omega, w.radius, dt)
        vx, vy = contact_velocities(sim.body_pose[:, 2], sim.body_velocity, w.body, w.x, w.y, wc, ws)
        f_x, f_y, omega, _ = solve_wheels(g.code, vx, vy, w.omega.copy(), const, slope, w.normal_force,
                                          sim._slope_x, sim._slope_y, w.radius, w.inertia_yy, w.mass,
                                          sim._max_torque, g.params, sim.gravity, dt)
        applied_torque(const, slope, omega, sim._max_torque, sim.limits.max_spin)
        body_wrenches(f_x, f_y, wc, ws, sim._arm_x, sim._arm_y, w.body, sim.body_pose[:, 2], w.force_x.copy(),
                      w.force_y.copy())
        rows = box2d_native.read_bodies(sim._body_addresses)
        reference_point_state(rows, sim.box2d.body_com_local)
        advance_spin_angles(w.phi.copy(), omega, dt)
        integrate_differential_odometry(omega, w.radius, w.y, sim._differential_odometry, sim._left, sim._right,
                                        sim.odom_pose.copy(), sim.odom_twist.copy(), dt)
        return n

    return best_us(phases, 400, repeat)


def profile(robots: int, repeat: int) -> dict[str, tuple[float, float, float]]:
    """{row: (step() with pybox2d, step() with the shim, step_many)} [us per step]."""
    sim = simulation(robots)
    bodies, world, addresses = sim._bodies, sim.box2d.world, sim._body_addresses
    spec = sim.spec
    zeros = np.zeros(len(bodies))

    def box2d_step():
        world.Step(sim.dt, spec.b2d_vel_iters, spec.b2d_pos_iters)

    def read_python():
        np.array([b.position.tuple + (b.angle,) + b.linearVelocity.tuple + (b.angularVelocity,) for b in bodies])

    def push_python():
        for body, f_x, f_y, t_z in zip(bodies, zeros.tolist(), zeros.tolist(), zeros.tolist()):
            body.ApplyForceToCenter((f_x, f_y), True)
            body.ApplyTorque(t_z, True)

    box2d = best_us(box2d_step, 400, repeat)
    read = (best_us(read_python, 400, repeat), best_us(lambda: box2d_native.read_bodies(addresses), 400, repeat))
    push = (best_us(push_python, 400, repeat),
            best_us(lambda: box2d_native.apply_wrenches(addresses, zeros, zeros, zeros), 400, repeat))
    kernels = kernels_us(sim, repeat)
    step_shim = best_us(sim.step, 400, repeat)
    sim._body_addresses = None  # pybox2d's Python API for the bodies
    step_python = best_us(sim.step, 400, repeat)
    sim._body_addresses = addresses
    many = best_us(lambda: sim.step_many(400), 1, repeat) / 400
    # In step_many everything is compiled: what is not Box2D's step is the phases and the body reads and pushes.
    return {
        "Box2D step (b2World::Step)": (box2d, box2d, box2d),
        "read bodies (pose, velocity)": (read[0], read[1], None),
        "push forces and torques": (push[0], push[1], None),
        "phase kernels (incl. call overhead)": (kernels, kernels, many - box2d),
        "Python between phases": (step_python - box2d - read[0] - push[0] - kernels,
                                  step_shim - box2d - read[1] - push[1] - kernels, 0.0),
        "**total per step**": (step_python, step_shim, many),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if not box2d_native.AVAILABLE:
        raise SystemExit(box2d_native.UNAVAILABLE_REASON)
    for robots in (1, 50):
        table = profile(robots, args.repeat)
        print(f"\n{robots} robot{'s' if robots > 1 else ''} (us per step) | step(), pybox2d | step(), shim | "
              "step_many\n|---|---|---|---|")
        for row, values in table.items():
            cells = " | ".join("in the kernels" if v is None else f"{v:.1f}" for v in values)
            print(f"| {row} | {cells} |")


if __name__ == "__main__":
    main()
