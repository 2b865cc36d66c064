"""A model file that does not load is told once, though both the GL scene of the rendered sensors and the browser
viewer build the world's meshes: `mvsim_view` on a world with a camera and a block whose local model is missing
prints one line about it (and world.warning_summary.said_once says a text once per world)."""

from __future__ import annotations

import subprocess
import sys

from viewer_worlds import REPO, ROBOT_WORLD
from mvsim_ros.world.warning_summary import said_once

CAMERA = ('<sensor class="camera" name="cam"><ncols>64</ncols><nrows>48</nrows><cx>32</cx><cy>24</cy><fx>40</fx>'
          '<fy>40</fy><sensor_period>0.5</sensor_period></sensor>')


def test_a_missing_local_model_is_told_once(tmp_path):
    block = ('<block name="statue"><shape><pt>2 0</pt><pt>3 0</pt><pt>3 1</pt></shape><zmax>1</zmax>'
             f'<visual><model_uri>{tmp_path / "missing_statue.obj"}</model_uri></visual></block>')
    world = tmp_path / "statue.world.xml"
    world.write_text(ROBOT_WORLD.format(grid="", init_pose="0 0 0", sensors=CAMERA, extra=block))
    run = subprocess.run([sys.executable, "-m", "mvsim_ros.cli.view", str(world), "--port", "0", "--no-open",
                          "--seconds", "1.5"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = (run.stdout + run.stderr).splitlines()
    assert any("viewer at http" in line for line in lines), lines  # the viewer built its scene too
    told = [line for line in lines if "missing_statue.obj" in line]
    assert len(told) == 1, lines


def test_said_once_says_a_text_once_per_world():
    class World:
        pass

    heard = []
    first, second = World(), World()
    for warn in (said_once(first, heard.append), said_once(first, heard.append), said_once(second, heard.append)):
        warn("model m.obj not found")
        warn("model m.obj not found")
    assert heard == ["model m.obj not found", "model m.obj not found"]  # once for each world
