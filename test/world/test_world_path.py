"""One rule for where a named world file is, from any folder: as given, then the package's worlds (with or without
a leading `worlds/`), and one line listing every place looked in when it is nowhere. The simulator node started
from another folder in the venv (no ament index) runs `worlds/demo_2robots.world.xml`; mvsim_view, the Gymnasium
environments, the sweeps and the tracking nodes find the same files."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import DEMO_WORLD, REPO
from dds_probe import node_command
from mvsim_ros.world import WorldFileError
from mvsim_ros.world.files.world_path import WorldFileNotFound, resolve_world_path

START_TIMEOUT_S = 60.0


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """A current directory outside the source tree, without an ament index to look names up in."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    return tmp_path


@pytest.mark.parametrize("name", ["worlds/demo_2robots.world.xml", "demo_2robots.world.xml"])
def test_an_example_world_is_found_from_any_folder(elsewhere, name):
    assert resolve_world_path(name) == DEMO_WORLD


def test_a_file_in_the_current_folder_comes_first(elsewhere):
    (elsewhere / "worlds").mkdir()
    own = elsewhere / "worlds" / "demo_2robots.world.xml"
    own.write_text("<mvsim_world/>")
    assert resolve_world_path("worlds/demo_2robots.world.xml") == own
    assert resolve_world_path(str(DEMO_WORLD)) == DEMO_WORLD  # an absolute path is taken as it is


def test_a_missing_world_is_one_line_listing_every_place_looked_in(elsewhere):
    with pytest.raises(WorldFileNotFound) as error:
        resolve_world_path("worlds/nowhere.world.xml")
    text = str(error.value)
    assert "\n" not in text and "worlds/nowhere.world.xml" in text and "not found" in text
    assert str(elsewhere / "worlds" / "nowhere.world.xml") in text
    assert str(REPO / "worlds" / "nowhere.world.xml") in text
    assert isinstance(error.value, FileNotFoundError) and isinstance(error.value, WorldFileError)
    with pytest.raises(WorldFileNotFound, match="looked in /no/such/folder/x.world.xml\\)$"):
        resolve_world_path("/no/such/folder/x.world.xml")  # absolute: nowhere else


def test_a_directory_is_no_world_file(elsewhere):
    with pytest.raises(WorldFileError, match="is a directory"):
        resolve_world_path("worlds")
    with pytest.raises(WorldFileError, match="empty"):
        resolve_world_path("  ")


def test_the_node_runs_an_example_world_from_another_folder(elsewhere):
    """`mvsim_node --ros-args -p world_file:=worlds/demo_2robots.world.xml` in an empty folder: the node loads
    the repository's world, runs, and stops cleanly on SIGINT."""
    env = {k: v for k, v in os.environ.items() if k != "AMENT_PREFIX_PATH"}
    proc = subprocess.Popen(node_command("world_file:=worlds/demo_2robots.world.xml", "headless:=true",
                                         "status_period:=0.0"),
                            cwd=elsewhere, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    started = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if "vehicles [r1, r2]" in line:
                started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not started.wait(0.1) and proc.poll() is None and time.monotonic() < deadline:
            pass
        assert started.is_set(), "".join(lines)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, "".join(lines)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=5)
    assert any(f"world {DEMO_WORLD}: vehicles [r1, r2]" in line for line in lines), "".join(lines)


def test_the_node_names_every_place_it_looked_in(elsewhere):
    env = {k: v for k, v in os.environ.items() if k != "AMENT_PREFIX_PATH"}
    result = subprocess.run(node_command("world_file:=worlds/nowhere.world.xml"), cwd=elsewhere, env=env,
                            capture_output=True, text=True, timeout=START_TIMEOUT_S)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert str(elsewhere / "worlds" / "nowhere.world.xml") in lines[0]
    assert str(REPO / "worlds" / "nowhere.world.xml") in lines[0]


def test_every_front_end_finds_the_same_world(elsewhere):
    from mvsim_ros.cli import view
    from mvsim_ros.gym.worlds import resolve_world
    from mvsim_ros.sweep.run import execute_run
    from mvsim_ros.sweep.spec import load_sweep

    assert resolve_world("worlds/demo_2robots.world.xml") == DEMO_WORLD
    sweep = elsewhere / "sweep.yaml"
    sweep.write_text("worlds: [worlds/demo_2robots.world.xml]\nseconds: 0.1\n")
    spec = load_sweep(sweep)
    assert spec.worlds == [str(DEMO_WORLD)]
    assert execute_run(spec.runs()[0])["status"] == "ok"
    assert view.main(["worlds/demo_2robots.world.xml", "--port", "0", "--no-open", "--seconds", "0"]) == 0


def test_the_tracking_nodes_read_a_world_by_its_short_name(elsewhere):
    from mvsim_ros.tracking.nodes.node_common import load_world_file

    assert [v.name for v in load_world_file("worlds/seed002_car.world.xml").vehicles] == ["racecar"]
    with pytest.raises(ValueError, match="world_file: .*world file not found"):
        load_world_file("worlds/nowhere.world.xml")
