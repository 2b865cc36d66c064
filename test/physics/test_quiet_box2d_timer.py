"""Box2D without its step profiler's clock reads (core/quiet_box2d_timer.py): in a fresh process the quiet b2Timer is
in place, GetProfile reads zeros, and a simulation's state after many steps is the same bytes as with Box2D's own
timers (MVSIM_BOX2D_PROFILE=1)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from mvsim_ros.core import quiet_box2d_timer

pytestmark = pytest.mark.skipif(not quiet_box2d_timer.library_path().exists(),
                                reason="the quiet b2Timer is not built")

SCRIPT = """
import sys
import numpy as np
import mvsim_ros
from mvsim_ros.core import quiet_box2d_timer
from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world
sim = Simulation(load_world(sys.argv[1]))
for k in range(len(sim.vehicle_names)):
    sim.set_twist(k, 0.6, 0.3 * (k + 1))
sim.step_many(2000)
profile = sim.box2d.world.GetProfile()
print(quiet_box2d_timer.installed()[0], profile.step == 0.0 and profile.solve == 0.0 and profile.collide == 0.0)
sys.stdout.flush()
sys.stdout.buffer.write(np.concatenate([sim.body_pose.ravel(), sim.body_velocity.ravel()]).tobytes())
"""


def _run(world: str, keep_timers: bool) -> tuple[str, bytes]:
    env = {k: v for k, v in os.environ.items() if k != quiet_box2d_timer.KEEP_VARIABLE}
    if keep_timers:
        env[quiet_box2d_timer.KEEP_VARIABLE] = "1"
    run = subprocess.run([sys.executable, "-c", SCRIPT, world], env=env, capture_output=True, timeout=300)
    assert run.returncode == 0, run.stderr.decode()
    first, _, rest = run.stdout.partition(b"\n")
    return first.decode(), rest


def test_the_quiet_timer_changes_no_result():
    from conftest import DEMO_WORLD

    quiet, quiet_state = _run(str(DEMO_WORLD), keep_timers=False)
    timed, timed_state = _run(str(DEMO_WORLD), keep_timers=True)
    assert quiet == "True True"  # in place, and the profile reads zeros
    assert timed.startswith("False")  # Box2D's own timers kept
    assert len(quiet_state) > 0 and np.isfinite(np.frombuffer(quiet_state)).all()
    assert quiet_state == timed_state
