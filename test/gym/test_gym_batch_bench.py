"""The batched rows of the Gymnasium benchmark (mvsim_ros.bench.gym_steps.batch_table): one row per number of
copies, with and without a lidar, each case measured."""

from __future__ import annotations

from mvsim_ros.bench.gym_steps import NO_LIDAR_WORLD, batch_table


def test_batch_table_measures_every_case():
    lines: list[str] = []
    rows = batch_table(0.02, 1, (1, 3), out=lines.append)
    assert [(copies, lidar) for copies, lidar, *_ in rows] == [(1, True), (3, True), (1, False), (3, False)]
    assert all(rate > 0 for *_, batch_1, batch_2, vector in rows for rate in (batch_1, batch_2, vector))
    assert NO_LIDAR_WORLD.is_file() and len([line for line in lines if line.strip().endswith(tuple("0123456789"))]) == 4
