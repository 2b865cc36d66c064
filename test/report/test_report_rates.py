"""The topic table: counts, mean rates over simulated time, periods, bytes and irregular rates."""

from __future__ import annotations

import re

import numpy as np
import pytest
from report_fixtures import CircleRun, RunWriter, boolean, circle_recording, odometry

from mvsim_ros.report import write_report
from mvsim_ros.report.rates import format_bytes, format_hz, topic_rate


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("rates") / "run.mcap"
    spec = circle_recording(path, CircleRun())
    return spec, write_report(path)


def test_topic_written_at_50_hz_of_stamps_reads_50_hz(report):
    spec, written = report
    rates = {rate.topic: rate for rate in written.rates}
    truth = rates["/veh1/base_pose_ground_truth"]
    assert truth.rate_hz == pytest.approx(50.0, rel=1e-12)
    assert format_hz(truth.rate_hz) == "50.0"
    assert truth.count == round(spec.seconds * 50.0) + 1
    assert truth.min_period_s == pytest.approx(0.02) and truth.max_period_s == pytest.approx(0.02)
    assert truth.type_name == "nav_msgs/msg/Odometry" and not truth.irregular
    assert rates["/veh1/odom"].rate_hz == pytest.approx(25.0)
    assert rates["/veh1/scan"].rate_hz == pytest.approx(10.0)


def test_bytes_are_the_serialized_sizes(report):
    from rclpy.serialization import serialize_message

    _, written = report
    truth = next(rate for rate in written.rates if rate.topic == "/veh1/base_pose_ground_truth")
    one = len(serialize_message(odometry(1.0, 1.0, 2.0, 0.3, 1.0, 0.5, "map")))
    assert truth.total_bytes == truth.count * one


def test_latched_topic_has_no_rate(report):
    _, written = report
    grid = next(rate for rate in written.rates if rate.topic == "/simul_map")
    assert grid.count == 1 and grid.rate_hz is None and format_hz(grid.rate_hz) == "–"


def test_page_table_lists_every_topic_with_its_rate(report):
    _, written = report
    html = written.index.read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"<tr[^>]*><td>([^<]+)</td>.*?</tr>", html)}
    for rate in written.rates:
        assert rate.topic in rows
    assert '<td class="num">50.0</td>' in rows["/veh1/base_pose_ground_truth"]
    assert "nav_msgs/msg/Odometry" in rows["/veh1/base_pose_ground_truth"]


def test_gaps_and_bursts_are_flagged_but_step_jitter_is_not():
    regular = np.arange(0, 2_000_000_000, 20_000_000)
    assert topic_rate("a", "t", regular, 0).irregular == ""
    quantized = np.cumsum(np.tile([60_000_000, 70_000_000, 70_000_000], 20))  # 15 Hz on a 10 ms step
    assert topic_rate("q", "t", quantized, 0).irregular == ""
    gap = np.delete(regular, [40, 41, 42])
    flagged = topic_rate("g", "t", gap, 0)
    assert "1 gap" in flagged.irregular and flagged.max_period_s == pytest.approx(0.08)
    burst = np.sort(np.append(regular, regular[10] + 1_000_000))
    assert "period" in topic_rate("b", "t", burst, 0).irregular


def test_rate_is_count_minus_one_over_the_span():
    times = np.array([0, 100_000_000, 300_000_000, 400_000_000])
    rate = topic_rate("x", "t", times[::-1], 12)  # order does not matter
    assert rate.rate_hz == pytest.approx(3 / 0.4)
    assert (rate.min_period_s, rate.max_period_s) == (pytest.approx(0.1), pytest.approx(0.2))
    assert topic_rate("y", "t", np.array([5, 5]), 0).rate_hz is None


def test_sizes_read_for_people():
    assert [format_bytes(n) for n in (812, 14541, 3_250_586)] == ["812 B", "14.2 KiB", "3.1 MiB"]


def test_page_flags_a_sensor_with_dropped_messages_but_not_event_topics(tmp_path):
    from std_msgs.msg import UInt8MultiArray

    path = tmp_path / "drops.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        for k in range(100):
            t = 0.05 * k
            writer.write("/r/odom", odometry(t, t, 0.0, 0.0, 1.0, 0.0, "odom"), t)
            if not 40 <= k < 50:  # a second without scans
                writer.write("/r/scan", UInt8MultiArray(data=bytes(64)), t)
            if k % 7 == 0 or k % 11 == 0:
                writer.write("/r/collision", boolean(k % 2 == 0), t)
        writer.finish()
    written = write_report(path)
    rates = {rate.topic: rate for rate in written.rates}
    assert rates["/r/scan"].irregular == "1 gap over 1.5x the median period"
    assert rates["/r/scan"].max_period_s == pytest.approx(0.55)
    assert rates["/r/odom"].irregular == "" and rates["/r/collision"].irregular == ""
    html = written.index.read_text()
    assert re.search(r'<tr class="irregular"><td>/r/scan</td>.*?irregular: 1 gap', html)
    assert html.count('<tr class="irregular">') == 1
