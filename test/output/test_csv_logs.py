"""CSV vehicle logs: files, headers, row counts, values equal to the simulation state, sessions."""

from __future__ import annotations

import csv
import math
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.output import csv_logs as logs_module
from mvsim_ros.output.csv_logs import POSE_COLUMNS, WHEEL_COLUMNS, VehicleLogs, format_blocks
from mvsim_ros.world import load_world_string

CAR_CLASS = REPO / "worlds" / "definitions" / "car.vehicle.xml"
TWO_ROBOTS = robot_world_xml(extra='<vehicle name="r2" class="bot"><init_pose>0 3 0</init_pose></vehicle>')


def make_sim(xml: str = TWO_ROBOTS) -> Simulation:
    sim = Simulation(load_world_string(xml))
    for i in range(len(sim.vehicle_names)):
        sim.set_twist(i, 1.0, 0.5 * i)
    return sim


def run(sim: Simulation, logs: VehicleLogs, steps: int) -> None:
    for _ in range(steps):
        sim.step()
        logs.record()


def read(path: Path) -> tuple[list[str], list[list[float]]]:
    text = path.read_text()
    assert text.endswith("\n"), f"{path.name}: last line is not complete"
    rows = list(csv.reader(text.splitlines()))
    return rows[0], [[float(v) for v in row] for row in rows[1:]]


def session_dirs(log_dir: Path) -> list[Path]:
    return sorted(p for p in log_dir.iterdir() if p.is_dir())


@pytest.mark.parametrize("background", [True, False])
def test_files_headers_row_counts_and_values_match_the_simulation(tmp_path, background):
    sim = make_sim()
    logs = VehicleLogs(sim, tmp_path, background=background)
    steps = 250  # 1.25 s at 5 ms: several block flushes and a partial block at close
    run(sim, logs, steps)
    logs.close()

    (session,) = session_dirs(tmp_path)
    assert session.name.startswith("session-001_") and logs.session_dir == session
    assert sorted(p.name for p in session.iterdir()) == sorted(
        ["r1_pose.csv", "r1_l_wheel.csv", "r1_r_wheel.csv", "r2_pose.csv", "r2_l_wheel.csv", "r2_r_wheel.csv"])
    twist = sim.body_twist()
    for k, name in enumerate(sim.vehicle_names):
        header, rows = read(session / f"{name}_pose.csv")
        assert header == list(POSE_COLUMNS)
        assert len(rows) == steps and all(len(r) == 7 for r in rows)
        assert [r[0] for r in rows] == pytest.approx([(i + 1) * sim.dt for i in range(steps)], abs=1e-12)
        t, x, y, yaw, vx, vy, omega = rows[-1]
        assert t == pytest.approx(sim.time, abs=1e-9)
        assert [x, y, yaw] == pytest.approx(sim.pose[k].tolist(), rel=1e-14, abs=1e-300)
        assert [vx, vy, omega] == pytest.approx(twist[k].tolist(), rel=1e-12, abs=1e-14)
    w = sim.wheels
    wheel_files = [f"{sim.vehicle_names[v]}_{name}.csv" for v, name in
                   ((0, "l_wheel"), (0, "r_wheel"), (1, "l_wheel"), (1, "r_wheel"))]
    for j, name in enumerate(wheel_files):
        header, rows = read(session / name)
        assert header == list(WHEEL_COLUMNS)
        assert len(rows) == steps
        expected = [w.torque[j], w.normal_force[j], w.omega[j], w.phi[j], w.force_x[j], w.force_y[j]]
        assert rows[-1][0] == pytest.approx(sim.time, abs=1e-9)
        assert rows[-1][1:] == pytest.approx(expected, rel=1e-14, abs=1e-300)
        assert rows[0][2] == pytest.approx(15.0 * sim.gravity / 2)  # chassis weight shared by the two wheels
        assert rows[0][1] > 0.0  # accelerating forwards: positive motor torque (MVSim logs the opposite sign)


def test_each_row_is_the_state_after_its_step(tmp_path):
    sim = make_sim()
    expected = []
    with VehicleLogs(sim, tmp_path, background=False) as logs:
        for _ in range(40):
            sim.step()
            logs.record()
            expected += [sim.time, *sim.pose[1].tolist()]
    _, rows = read(logs.files[1])  # r2_pose.csv
    assert [v for r in rows for v in r[:4]] == pytest.approx(expected, rel=1e-14, abs=1e-300)


def test_rows_flushed_one_at_a_time_are_not_overwritten_while_being_formatted(tmp_path):
    sim = make_sim(robot_world_xml())
    expected = []
    with VehicleLogs(sim, tmp_path, flush_period_s=0.0) as logs:  # every row is its own block
        for _ in range(300):
            sim.step()
            logs.record()
            expected += [sim.time, *sim.pose[0].tolist()]
    _, rows = read(logs.files[0])
    assert [v for r in rows for v in r[:4]] == pytest.approx(expected, rel=1e-14, abs=1e-300)


def test_decimation_records_on_the_period_grid(tmp_path):
    sim = make_sim()
    logs = VehicleLogs(sim, tmp_path, period_s=0.05)
    run(sim, logs, 200)  # 1.0 s
    logs.close()
    for path in logs.files:
        _, rows = read(path)
        assert [r[0] for r in rows] == pytest.approx([0.05 * (i + 1) for i in range(20)], abs=1e-9)


def test_rows_are_written_in_blocks_while_running(tmp_path):
    sim = make_sim()
    logs = VehicleLogs(sim, tmp_path, flush_period_s=0.5, background=False)
    run(sim, logs, 50)  # 0.25 s: still in memory
    assert len(read(logs.files[0])[1]) == 0
    run(sim, logs, 60)  # past 0.5 s: the first block is in the files
    assert len(read(logs.files[0])[1]) == 100
    logs.close()
    assert len(read(logs.files[0])[1]) == 110


def test_clear_truncates_the_current_session(tmp_path):
    sim = make_sim()
    logs = VehicleLogs(sim, tmp_path)
    run(sim, logs, 130)  # one block written, 30 rows buffered
    logs.clear()
    for path in logs.files:
        header, rows = read(path)
        assert rows == [] and header[0] == "t_s"
    run(sim, logs, 7)
    logs.close()
    _, rows = read(logs.files[0])
    assert len(rows) == 7 and rows[0][0] == pytest.approx(131 * sim.dt)
    assert len(session_dirs(tmp_path)) == 1


def test_new_session_keeps_the_old_files_and_starts_numbered_new_ones(tmp_path):
    sim = make_sim()
    logs = VehicleLogs(sim, tmp_path)
    first = logs.session_dir
    run(sim, logs, 30)
    second = logs.new_session()
    assert second == logs.session_dir != first and logs.session == 2
    assert second.name.startswith("session-002_")
    run(sim, logs, 12)
    logs.close()
    for name in logs.file_names:
        assert len(read(first / name)[1]) == 30
        _, rows = read(second / name)
        assert len(rows) == 12 and rows[0][0] == pytest.approx(31 * sim.dt)
    # A later logger in the same directory continues the numbering.
    with VehicleLogs(sim, tmp_path) as later:
        assert later.session == 3
    assert len(session_dirs(tmp_path)) == 3


def test_close_leaves_whole_rows_and_refuses_more(tmp_path):
    sim = make_sim()
    logs = VehicleLogs(sim, tmp_path)
    run(sim, logs, 77)
    logs.close()
    logs.close()  # idempotent
    for path in logs.files:
        text = path.read_text()
        lines = text.split("\n")
        assert lines[-1] == "" and len(lines) == 77 + 2
        assert all(line.count(",") == 6 for line in lines[:-1])
    with pytest.raises(RuntimeError):
        logs.record()
    with pytest.raises(RuntimeError):
        logs.new_session()


def test_many_files_are_opened_per_block_with_the_same_content(tmp_path, monkeypatch):
    sims = [make_sim(), make_sim()]
    kept = VehicleLogs(sims[0], tmp_path / "kept")
    monkeypatch.setattr(logs_module, "MAX_OPEN_FILES", 0)
    reopened = VehicleLogs(sims[1], tmp_path / "reopened")
    assert not reopened._handles
    for _ in range(160):
        for sim, logs in zip(sims, (kept, reopened)):
            sim.step()
            logs.record()
    kept.close()
    reopened.close()
    for a, b in zip(kept.files, reopened.files):
        assert a.read_bytes() == b.read_bytes()


def test_ackermann_car_wheel_files_are_named_after_its_wheels(tmp_path):
    xml = (f'<mvsim_world><include file="{CAR_CLASS}"/>'
           '<vehicle name="car1" class="car"><init_pose>0 0 0</init_pose></vehicle></mvsim_world>')
    sim = Simulation(load_world_string(xml))
    sim.set_ackermann(0, 2.0, 0.2)
    with VehicleLogs(sim, tmp_path / "logs") as logs:
        run(sim, logs, 20)
    assert sorted(p.name for p in logs.session_dir.iterdir()) == [
        "car1_fl_wheel.csv", "car1_fr_wheel.csv", "car1_pose.csv", "car1_rl_wheel.csv", "car1_rr_wheel.csv"]
    assert all(len(read(p)[1]) == 20 for p in logs.files)


def test_unsafe_vehicle_names_become_safe_file_names(tmp_path):
    sim = make_sim(robot_world_xml().replace('name="r1"', 'name="a/b c"'))
    with VehicleLogs(sim, tmp_path) as logs:
        run(sim, logs, 2)
    names = sorted(p.name for p in logs.session_dir.iterdir())
    assert names == ["a_b_c_l_wheel.csv", "a_b_c_pose.csv", "a_b_c_r_wheel.csv"]


def test_bad_periods_are_refused(tmp_path):
    sim = make_sim()
    for kwargs in ({"period_s": -1.0}, {"period_s": math.nan}, {"flush_period_s": math.inf}):
        with pytest.raises(ValueError):
            VehicleLogs(sim, tmp_path, **kwargs)


def test_numbers_are_written_as_printf_g_with_15_digits():
    rng = np.random.default_rng(7)
    values = np.concatenate([
        rng.uniform(1.0, 10.0, 5000) * rng.choice([-1.0, 1.0], 5000) * 10.0 ** rng.integers(-8, 36, 5000),
        [0.0, -0.0, 1.0, -1.0, 0.5, 10.0, 0.1, 0.015000000000000001, 1e-4, 9.9999999999999995e-5, 123456.0,
         99999999999999.99, 999999999999999.9, 1e15, 1e16, 2.5, 0.125, 1.0000000000000005],
    ])
    text, offsets = format_blocks(values.reshape(1, -1, 1))
    lines = bytes(text).decode().splitlines()
    assert offsets.tolist() == [0, len(text)]
    assert lines == [("%.15g" % v).replace("-0", "0") if v == 0 else "%.15g" % v for v in values]
    # Outside 1e-8..1e37 the last digit may differ, but the value still reads back to 15 digits.
    extreme = np.array([1.2345678901234567e-12, -3.3e-300, 5e-324, 7.7e200, 1.6e308])
    text, _ = format_blocks(extreme.reshape(1, -1, 1))
    back = [float(s) for s in bytes(text).decode().splitlines()]
    assert back == pytest.approx(extreme.tolist(), rel=1e-14)
    text, _ = format_blocks(np.array([[[math.nan, math.inf, -math.inf]]]))
    assert bytes(text) == b"nan,inf,-inf\n"
    with pytest.raises(ValueError):
        format_blocks(values.reshape(1, -1, 1), digits=17)


# -- files removed while logging ----------------------------------------------------------------------------------

@pytest.mark.parametrize("background", [True, False])
@pytest.mark.parametrize("kept_open", [True, False])
def test_a_removed_session_folder_is_created_again_with_headers_and_one_message(tmp_path, monkeypatch, background,
                                                                                kept_open):
    if not kept_open:
        monkeypatch.setattr(logs_module, "MAX_OPEN_FILES", 0)
    sim = make_sim()
    messages: list[str] = []
    logs = VehicleLogs(sim, tmp_path, background=background, on_recreated=messages.append)
    run(sim, logs, 130)  # rows 1..100 flushed, 101..130 buffered
    logs.wait()
    assert len(read(logs.files[0])[1]) == 100 and messages == []
    shutil.rmtree(logs.session_dir)
    run(sim, logs, 170)  # flushes at rows 200 and 300
    logs.close()
    assert len(messages) == 1, messages
    assert "was removed while logging" in messages[0] and str(logs.session_dir) in messages[0]
    assert "\n" not in messages[0]
    assert sorted(p.name for p in logs.session_dir.iterdir()) == sorted(logs.file_names)
    for path, columns in zip(logs.files, [POSE_COLUMNS] * 2 + [WHEEL_COLUMNS] * 4):
        header, rows = read(path)
        assert header == list(columns)
        assert [r[0] for r in rows] == pytest.approx([(101 + i) * sim.dt for i in range(200)], abs=1e-9)


def test_a_removed_file_is_created_again_once_the_folder_is_settled(tmp_path, monkeypatch):
    monkeypatch.setattr(logs_module, "STAMP_SETTLE_S", 0.0)  # trust the folder's stamp at once
    sim = make_sim()
    messages: list[str] = []
    logs = VehicleLogs(sim, tmp_path, background=False, on_recreated=messages.append)
    time.sleep(0.05)  # past the file system's timestamp granularity
    run(sim, logs, 100)  # one block written: the folder's stamp is taken
    logs.files[1].unlink()
    run(sim, logs, 100)
    logs.close()
    assert len(messages) == 1 and "log files r2_pose.csv in" in messages[0], messages
    assert len(read(logs.files[0])[1]) == 200
    _, rows = read(logs.files[1])
    assert len(rows) == 100 and rows[0][0] == pytest.approx(101 * sim.dt)


def test_a_folder_that_cannot_be_made_again_is_an_os_error_saying_so(tmp_path):
    sim = make_sim()
    messages: list[str] = []
    logs = VehicleLogs(sim, tmp_path, background=False, on_recreated=messages.append)
    run(sim, logs, 10)
    shutil.rmtree(logs.session_dir)
    logs.session_dir.write_text("a file where the folder was")
    with pytest.raises(OSError, match="cannot be created again"):
        run(sim, logs, 100)
    assert messages == []
    logs.close()  # the block that could not be written is dropped: nothing left to write
    assert logs.closed and logs.session_dir.is_file()
