"""The node benchmark: its committed worlds are what it generates, and one short run measures a node whose robot
drives straight at the commanded speed, the clock advancing as the real-time factor says."""

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
