"""The Gymnasium benchmark (mvsim_ros.bench.gym_steps): its table has one row per case with measured rates."""

from __future__ import annotations

import re

from mvsim_ros.bench.gym_steps import GYM_WORLD, gym_table, measure_physics


def test_gym_table_measures_every_case():
    lines: list[str] = []
    rows = gym_table(0.1, 1, out=lines.append)
    assert [case for case, _ in rows] == ["one env", "vector of 8 (all copies)", "physics alone (Simulation.run)",
                                          "physics alone (step_many, per env step)"]
    assert all(rate > 0 for _, rate in rows)
    assert "differential_1_lidar.world.xml" in lines[0] and GYM_WORLD.is_file()
    printed = [line for line in lines if re.match(r"^(one env|vector|physics)", line)]
    assert len(printed) == 4
    for line, (_, rate) in zip(printed, rows):
        steps, real_time = re.search(r"([0-9,]+) +([0-9.]+)$", line).groups()
        assert int(steps.replace(",", "")) == round(rate) and float(real_time) == round(rate * 0.05, 1)


def test_the_physics_alone_covers_the_simulated_time_asked():
    assert measure_physics(0.5) > 0 and measure_physics(0.5, compiled=True) > 0
