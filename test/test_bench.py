"""The benchmark's worlds drive as commanded (so its figures measure real driving), and its ROS measurement
runs the publishing path."""

import math

import pytest

import dds_probe  # noqa: F401  (a per-run ROS_DOMAIN_ID)
from mvsim_ros.bench.physics import KINDS, make_simulation, measure


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_benchmark_vehicle_drives_its_circle(kind):
    sim = make_simulation(4, kind=kind)
    sim.run(6.0)
    v, omega = KINDS[kind][1]
    twist = sim.body_twist()
    assert twist[:, 0] == pytest.approx([v] * 4, rel=0.05)
    assert twist[:, 2] == pytest.approx([omega] * 4, rel=0.1)


def test_ros_measurement_times_both_chunks():
    bare, ros = measure(2, 0.3, True)
    assert math.isfinite(bare) and math.isfinite(ros) and bare > 0 and ros > 0
