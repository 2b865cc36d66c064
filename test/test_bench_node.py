"""The node benchmark: its committed worlds are what it generates or the shared reference files byte for byte, its
MVSim figures are the reference README's, one short run measures a node whose robot drives straight at the
commanded speed, the clock advancing as the real-time factor says; missing MVSim worlds or another tree that is no
checkout stop it in one line; the scan-cost room has the same walls however they are built."""

from __future__ import annotations

import pytest

from mvsim_ros.bench.node import ROWS, SPEED, BenchRow, lanes_world_xml
from mvsim_ros.bench.node_rtf import node_rtf, physics_rtf
from mvsim_ros.world import load_world


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_committed_worlds_match_the_generator(row):
    assert row.world_file.read_text(encoding="utf-8") == lanes_world_xml(row)
    world = load_world(row.world_file)
    assert len(world.vehicles) == row.robots
    assert sum(len(v.sensors) for v in world.vehicles) == (row.robots if row.lidar else 0)
    lanes = sorted(v.init_pose.y for v in world.vehicles)
    assert all(b - a >= 2.0 for a, b in zip(lanes, lanes[1:]))  # side by side, never in each other's way


def test_one_robot_node_run_drives_straight_and_reports_the_clock():
    row = BenchRow(1, "differential")
    run = node_rtf(row, 3.0, warmup_s=1.0)
    assert run.rtf > 1.0  # as fast as it can: faster than real time even on a loaded 2-core machine
    assert abs(run.r1_sideways) < 1e-3
    # Over the measured span r1 covers speed x simulated time (the ground truth and /clock agree), within the
    # jitter of which messages were the last ones received.
    assert run.r1_forward == pytest.approx(SPEED["differential"] * run.rtf * 3.0, rel=0.1)
    assert physics_rtf(row, 0.5) > 1.0


def test_rendered_row_world_is_what_the_generator_writes():
    from mvsim_ros.bench.node import RENDERED_BOXES, RENDERED_ROWS, rendered_world_xml

    for row in RENDERED_ROWS:
        assert row.world_file.read_text(encoding="utf-8") == rendered_world_xml(row)
        world = load_world(row.world_file)
        assert [(s.name, s.kind) for s in world.vehicles[0].sensors] == [("cam", "camera"), ("vlp", "lidar3d")]
        assert len(world.blocks) == len(RENDERED_BOXES)


SHARED_BENCH = __import__("pathlib").Path(__file__).resolve().parents[2] / "shared" / "bench-worlds"


@pytest.mark.skipif(not SHARED_BENCH.is_dir(), reason="no shared reference worlds beside the checkout")
def test_named_worlds_are_the_reference_files_byte_for_byte():
    from mvsim_ros.bench.node import NAMED_WORLDS, WORLDS_DIR

    for name in NAMED_WORLDS:
        assert (WORLDS_DIR / f"{name}.world.xml").read_bytes() == (SHARED_BENCH / f"{name}.world.xml").read_bytes()


@pytest.mark.skipif(not (SHARED_BENCH / "README.md").is_file(), reason="no shared reference README")
def test_mvsim_figures_are_the_reference_readme_s():
    """Every figure of the README's table (names in backticks, figures in the last column, split by ' / ')."""
    import re

    from mvsim_ros.bench.node import MVSIM_RTF

    found = {}
    for line in (SHARED_BENCH / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"[0-9.]+( / [0-9.]+)*", cells[2]):
            continue
        names = [re.sub(r".*/", "", n).removesuffix(".world.xml") for n in re.findall(r"`([^`]+)`", cells[0])]
        found.update(zip(names, (float(v) for v in cells[2].split(" / "))))
    assert found == MVSIM_RTF


def test_named_rows_and_the_rendered_case_ask_for_a_checkout(tmp_path, monkeypatch, capsys):
    from mvsim_ros.bench.cli import main
    from mvsim_ros.bench.node import NAMED_WORLDS, named_rows

    monkeypatch.delenv("MVSIM_DIR", raising=False)
    assert [r.name for r in named_rows(None)] == list(NAMED_WORLDS)
    assert not any(r.commanded for r in named_rows(None))  # on their files' own setpoints, as MVSim ran them
    with pytest.raises(FileNotFoundError, match="no such world"):
        named_rows(tmp_path)
    assert main(["--rendered"]) == 2
    assert main(["--rendered", "--mvsim", str(tmp_path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and "MRPT/mvsim" in lines[0] and str(tmp_path) in lines[1]


def test_the_scan_cost_yard_has_the_same_walls_as_ground_and_as_blocks():
    """The yard of --scan-cost: a scan from inside reads the same wall distances whichever body holds the walls and
    however many pieces they are cut into (within the fixtures' 1 cm skin)."""
    import numpy as np

    from mvsim_ros.bench.sensors import YARD_HALF, YARD_PIECES, yard_world_xml
    from mvsim_ros.physics import Simulation
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world_string

    scans = []
    for pieces in YARD_PIECES:
        for as_blocks in (False, True):
            world = load_world_string(yard_world_xml(pieces, as_blocks))
            assert len(world.blocks) == (pieces if as_blocks else 0)
            sim = Simulation(world)
            lidar = build_sensors(world).lidars[0]
            scans.append(lidar.ray_cast(sim.box2d.world, (1.0, 2.0), lidar.params.angles + 0.3))
    assert np.isfinite(scans[0]).all() and scans[0].min() > YARD_HALF - 3.0 - 0.1
    for ranges in scans[1:]:
        assert ranges == pytest.approx(scans[0], abs=0.02)


def test_node_rows_fail_in_one_line_without_mvsim_s_worlds_or_another_tree(tmp_path, monkeypatch, capsys):
    """--node with a folder that is no MVSim checkout, or --against a folder that is no source tree: exit status 2
    and one line each, before any node starts; $MVSIM_DIR names the checkout when --mvsim does not."""
    from mvsim_ros.bench.cli import main
    from mvsim_ros.bench.node import mvsim_checkout

    monkeypatch.setenv("MVSIM_DIR", str(tmp_path / "env"))
    assert mvsim_checkout() == tmp_path / "env" and mvsim_checkout(tmp_path) == tmp_path
    assert main(["--node"]) == 2
    monkeypatch.delenv("MVSIM_DIR")
    assert main(["--node", "--mvsim", str(tmp_path)]) == 2
    assert main(["--node", "--against", str(tmp_path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and str(tmp_path / "env") in lines[0] and "demo_1robot" in lines[1]
    assert "not a checkout of mvsim_ros" in lines[2]


def test_another_tree_runs_its_own_package_from_this_tree_s_root(tmp_path):
    """other_tree_environment's processes import the other tree's mvsim_ros even when started from this tree's
    root (where `python -c` would otherwise find this one first), and build nothing a tree does not have."""
    import subprocess
    import sys
    from pathlib import Path

    from mvsim_ros.bench.node_process import other_tree_environment

    (tmp_path / "tree" / "mvsim_ros").mkdir(parents=True)
    (tmp_path / "tree" / "mvsim_ros" / "__init__.py").write_text("")
    env = other_tree_environment(tmp_path / "tree", tmp_path / "native")
    assert env["MVSIM_NATIVE_DIR"] == str(tmp_path / "native")
    found = subprocess.run([sys.executable, "-c", "import mvsim_ros; print(mvsim_ros.__file__)"], env=env,
                           cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == str(tmp_path / "tree" / "mvsim_ros" / "__init__.py")
    assert not (tmp_path / "native" / "native").exists()


def test_node_command_on_a_named_world_prints_mvsim_s_figure_beside_it(capsys):
    from mvsim_ros.bench.cli import main
    from mvsim_ros.bench.node import MVSIM_RTF, WORLDS_DIR

    assert main(["--node", "--world", str(WORLDS_DIR / "diff_1.world.xml"), "--seconds", "1", "--repeat", "1"]) == 0
    row = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("diff_1 ")]
    assert len(row) == 1 and row[0][4] == f"{MVSIM_RTF['diff_1']:g}x"


def test_the_scan_cost_yard_table_has_a_row_per_layout_beside_the_ground_body():
    from mvsim_ros.bench.sensors import YARD_PIECES, yard_scan_cost_table

    lines = []
    best = yard_scan_cost_table(0.01, 1, out=lines.append)
    assert sorted(best) == sorted((pieces, blocks) for pieces in YARD_PIECES for blocks in (False, True))
    rows = [line.split() for line in lines[2:]]
    assert [r[0] for r in rows] == ["ground"] * len(YARD_PIECES) + [str(p) for p in YARD_PIECES]
    assert rows[0][-2:] == ["1.00", "1.00"]  # the ground-body row against itself
