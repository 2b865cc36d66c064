"""Shared test helpers: small world files written on the fly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
DEMO_WORLD = REPO / "worlds" / "demo_2robots.world.xml"


def robot_world_xml(
    mu: float = 0.8,
    max_torque: float = 6.5,
    kp: float = 60.0,
    ki: float = 60.0,
    c_damping: float = 0.05,
    c_rr: float = 0.01,
    timestep: float = 0.005,
    grid_file: str | None = None,
    extra: str = "",
    init_pose: str = "0 0 0",
    class_extra: str = "",
) -> str:
    """An MVSim world with one differential robot 'r1' (17 kg, 0.5 m track, 0.2 m wheels); `class_extra` goes into
    its class (e.g. sensors every vehicle of the class carries), `extra` into the world. `class_extra` shares the
    friction's line so the line numbers the loader tests expect stay the same."""
    grid = (
        f'<element class="occupancy_grid"><file>{grid_file}</file><resolution>0.1</resolution></element>'
        if grid_file else ""
    )
    return f"""<mvsim_world version="1.0">
  <simul_timestep>{timestep}</simul_timestep>
  {grid}
  <vehicle:class name="bot">
    <dynamics class="differential">
      <chassis mass="15.0"><shape><pt>-0.25 -0.22</pt><pt>0.25 -0.22</pt><pt>0.25 0.22</pt><pt>-0.25 0.22</pt>
      </shape></chassis>
      <l_wheel pos="0.0  0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <r_wheel pos="0.0 -0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <controller class="twist_pid">
        <KP>{kp}</KP><KI>{ki}</KI><KD>0</KD><I_MAX>0.5</I_MAX><max_torque>{max_torque}</max_torque>
      </controller>
    </dynamics>
    <friction class="default"><mu>{mu}</mu><C_damping>{c_damping}</C_damping><C_rr>{c_rr}</C_rr></friction>{class_extra}
  </vehicle:class>
  <vehicle name="r1" class="bot"><init_pose>{init_pose}</init_pose></vehicle>
  {extra}
</mvsim_world>
"""


@pytest.fixture(autouse=True, scope="session")
def offline_resource_cache(tmp_path_factory):
    """The whole session runs offline with its own resource cache (MVSIM_OFFLINE=1, MVSIM_STORAGE_DIR = a temporary
    folder): no test touches $HOME/.cache or the internet, node subprocesses included (they inherit the
    environment). Tests that download from a local server override both with monkeypatch."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MVSIM_STORAGE_DIR", str(tmp_path_factory.mktemp("mvsim-storage")))
        patch.setenv("MVSIM_OFFLINE", "1")
        yield


@pytest.fixture
def write_world(tmp_path):
    """Write world XML text to a temporary file and return its path."""

    def write(text: str, name: str = "test.world.xml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


@pytest.fixture
def wall_image(tmp_path):
    """A 20 m x 20 m map (0.1 m/px, centred) whose only obstacle is a wall face at x = +3.00 m."""

    def make(wall_x_m: float = 3.0) -> Path:
        img = np.full((200, 200), 255, np.uint8)
        col = int(round(100 + wall_x_m / 0.1))
        img[:, col:col + 5] = 0
        path = tmp_path / "wall.png"
        Image.fromarray(img).save(path)
        return path

    return make
