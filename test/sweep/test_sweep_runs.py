"""A sweep file's runs and one run's metrics, without Ray: the grid of worlds x parameters x seeds, stable run ids,
clear errors for a bad file, and metrics that match closed forms (distance v t, the wall's distance, a circle of
radius v/w, the time to a goal); a run that cannot be built or driven is a failed row."""

from __future__ import annotations

import math
import re

import pytest

from mvsim_ros.sweep.run import execute_run
from mvsim_ros.sweep.spec import RunSpec, SweepFileError, load_sweep
from sweep_support import write_sweep, write_worlds


def settings(**fields) -> dict:
    base = {"vehicle": None, "seconds": 4.0, "control_period": 0.05, "program": {"schedule": [[0.0, 0.5, 0.0]]},
            "goal": None, "reference": None}
    return {**base, **fields}


def test_the_runs_are_every_world_parameter_combination_and_seed(tmp_path):
    spec = load_sweep(write_sweep(tmp_path))
    runs = spec.runs()
    assert len(runs) == 2 * 2 * 2 * 2
    assert len({run.run_id for run in runs}) == len(runs)
    assert {dict(run.parameters)["friction.mu"] for run in runs} == {0.5, 0.8}
    assert [run.run_id for run in load_sweep(tmp_path / "sweep.yaml").runs()] == [run.run_id for run in runs]


@pytest.mark.parametrize("fields, message", [
    ({"worlds": []}, "worlds: expected a list"),
    ({"parameters": {"mu": [1]}}, "expected <kind>.<name>"),
    ({"parameters": {"friction.mu": []}}, "non-empty list"),
    ({"seeds": 0}, "seeds: expected"),
    ({"program": {"teleop": 1}}, "program: expected"),
    ({"speed": 3}, "unknown key(s) speed"),
])
def test_a_bad_sweep_file_is_one_line_naming_it(tmp_path, fields, message):
    path = write_sweep(tmp_path, **fields)
    with pytest.raises(SweepFileError, match=re.escape(message)) as error:
        load_sweep(path)
    assert str(error.value).startswith(str(path)) and "\n" not in str(error.value)


def test_driving_straight_covers_v_t_and_stops_short_of_a_far_wall(tmp_path):
    with_lidar, _ = write_worlds(tmp_path)
    row = execute_run(RunSpec(str(with_lidar), (("world.WALL_X", 6.0),), 0, settings()))
    assert row["status"] == "ok", row["reason"]
    assert row["path_length"] == pytest.approx(0.5 * 4.0, rel=0.03)  # v t, less the first instants' acceleration
    assert row["final_x"] == pytest.approx(row["path_length"], rel=1e-3) and row["collisions"] == 0
    # The lidar (0.2 m ahead of the centre) saw the wall at 6 m; closest at the end: 6 - x_end - 0.2.
    assert row["min_obstacle_distance"] == pytest.approx(6.0 - row["final_x"] - 0.2, abs=0.02)
    assert row["energy"] > 0 and row["sim_seconds"] == pytest.approx(4.0)


def test_a_near_wall_is_a_collision_and_the_run_stops_there(tmp_path):
    _, bare = write_worlds(tmp_path)
    row = execute_run(RunSpec(str(bare), (("world.WALL_X", 1.0),), 0, settings()))
    assert row["collisions"] >= 1
    assert row["final_x"] == pytest.approx(1.0 - 0.25, abs=0.05)  # the chassis front (0.25 m) against the wall
    assert math.isnan(row["min_obstacle_distance"])  # no lidar


def test_a_circle_of_radius_v_over_w_reaches_its_goal_on_time(tmp_path):
    _, bare = write_worlds(tmp_path)
    v, w = 0.4, 0.4  # radius 1 m, centre (0, 1); half a turn takes pi / w
    run = RunSpec(str(bare), (("world.WALL_X", 9.0),), 0, settings(
        seconds=10.0, program={"schedule": [[0.0, v, w]]}, goal=[0.0, 2.0, 0.1], reference={"circle": [0.0, 1.0, 1.0]}))
    row = execute_run(run)
    assert row["path_error_mean"] < 0.03 and row["path_error_max"] < 0.06
    assert row["time_to_goal"] == pytest.approx(math.pi / w, abs=0.4)


def test_unknown_parameters_and_broken_worlds_are_failed_rows(tmp_path):
    _, bare = write_worlds(tmp_path)
    row = execute_run(RunSpec(str(bare), (("friction.grip", 1.0),), 0, settings()))
    assert row["status"] == "failed" and "friction parameter 'grip'" in row["reason"] and "mu" in row["reason"]
    broken = tmp_path / "broken.world.xml"
    broken.write_text("<mvsim_world version='1.0'><vehicle></mvsim_world>")
    row = execute_run(RunSpec(str(broken), (), 0, settings()))
    assert row["status"] == "failed" and "broken.world.xml" in row["reason"] and math.isnan(row["path_length"])
