"""Point-P transformations, the seed's PIDs and the tracker, against closed forms."""

import math

import numpy as np
import pytest

from mvsim_ros.tracking.pid import AxisPid, PidGains, PointPid
from mvsim_ros.tracking.point_p import output_point, reference_point
from mvsim_ros.tracking.shapes import Circle, Line, make_shape
from mvsim_ros.tracking.tracker import TrajectoryTracker


def test_output_transformation_is_the_seeds():
    for x, y, theta, pl in ((0.0, 0.0, 0.0, 0.1), (1.5, -2.0, 2.2, 0.3), (-4.0, 7.0, -0.7, 0.0)):
        assert output_point(x, y, theta, pl) == pytest.approx((x + pl * math.cos(theta), y + pl * math.sin(theta)),
                                                              abs=1e-15)


def test_trajectory_reference_is_p_of_a_vehicle_on_the_reference_and_its_velocity_the_derivative():
    circle, pl = Circle(2.0, 0.5), 0.3

    def p_ref(t):
        ref = reference_point(circle.position(t), circle.velocity(t), circle.acceleration(t), pl)
        return np.array([ref.x, ref.y]), np.array([ref.vx, ref.vy]), ref.heading

    for t in (0.0, 1.0, 4.2, 11.0):
        position, velocity, heading = p_ref(t)
        assert heading == pytest.approx(math.remainder(0.5 * t, 2 * math.pi), abs=1e-12)  # tangent of the circle
        x, y = circle.position(t)
        assert position == pytest.approx((x + pl * math.cos(heading), y + pl * math.sin(heading)), abs=1e-12)
        # P on a circle of radius sqrt(R^2 + PL^2) about the same centre, turning at W
        assert math.hypot(position[0], position[1] - 2.0) == pytest.approx(math.hypot(2.0, pl), abs=1e-12)
        h = 1e-6
        numeric = (p_ref(t + h)[0] - p_ref(t - h)[0]) / (2 * h)
        assert velocity == pytest.approx(numeric, abs=1e-7)
        assert np.linalg.norm(velocity) == pytest.approx(0.5 * math.hypot(2.0, pl), rel=1e-12)


def test_vehicle_heading_reference_cancels_pl_in_the_error_and_feeds_the_generator_velocity():
    ref = reference_point((1.0, 2.0), (0.3, -0.4), (5.0, 5.0), 0.25, mode="vehicle", vehicle_yaw=0.7)
    px, py = output_point(0.9, 2.1, 0.7, 0.25)
    assert (ref.x - px, ref.y - py) == pytest.approx((0.1, -0.1), abs=1e-15)
    assert (ref.vx, ref.vy) == (0.3, -0.4)
    with pytest.raises(ValueError, match="unknown reference heading mode"):
        reference_point((0, 0), (1, 0), (0, 0), 0.1, mode="sideways")


def test_a_standing_reference_keeps_the_last_direction():
    ref = reference_point((1.0, 1.0), (0.0, 0.0), (0.0, 0.0), 0.5, fallback=math.pi / 2)
    assert (ref.x, ref.y, ref.vx, ref.vy) == pytest.approx((1.0, 1.5, 0.0, 0.0), abs=1e-15)


def test_pid_follows_the_seeds_riemann_sum_and_finite_difference():
    gains = PidGains(kp=2.0, ki=0.5, kd=0.1, feed_forward=True)
    pid = AxisPid()
    errors, dt, ff = [0.4, 0.1, -0.2, 0.3], 0.02, 0.7
    integral, previous = 0.0, None
    for e in errors:
        integral += e * dt
        derivative = 0.0 if previous is None else (e - previous) / dt
        previous = e
        expected = ff + 2.0 * e + 0.5 * integral + 0.1 * derivative
        assert pid.update(gains, e, ff, dt) == pytest.approx(expected, abs=1e-12)
    no_ff = PidGains(kp=2.0, ki=0.0, kd=0.0, feed_forward=False)
    assert AxisPid().update(no_ff, 0.3, 10.0, dt) == pytest.approx(0.6, abs=1e-15)
    # the seed's tuning is the default: P with feed-forward
    assert PidGains() == PidGains(5.0, 0.0, 0.0, True)
    assert PointPid().update((0.1, -0.2), (1.0, 2.0), 0.02) == pytest.approx((1.5, 1.0), abs=1e-15)


@pytest.mark.parametrize("gains, message", [
    ({"kp": -1.0}, "Kp must be >= 0"), ({"ki": math.nan}, "Ki must be finite"), ({"kd": "big"}, "Kd must be a number"),
    ({"feed_forward": 1}, "FFWD must be a boolean"),
])
def test_bad_gains_are_refused(gains, message):
    with pytest.raises(ValueError, match=message):
        PidGains(**gains)


def test_tracker_is_silent_until_started_and_its_time_runs_from_the_start():
    tracker = TrajectoryTracker(Line(1.0, 0.0), pl_distance=0.1)
    out = tracker.update(3.0, 0.0, 0.0, 0.0)
    assert (out.vpx, out.vpy, out.t) == (0.0, 0.0, 0.0) and not tracker.active
    tracker.start(3.0)
    out = tracker.update(5.0, 2.0, 0.0, 0.0)  # the vehicle exactly on the line, 2 s after the start
    assert out.t == 2.0 and out.position_error == 0.0
    assert (out.vpx, out.vpy) == pytest.approx((1.0, 0.0), abs=1e-15)
    tracker.stop()
    assert tracker.update(6.0, 3.0, 0.0, 0.0).vpx == 0.0
    with pytest.raises(ValueError, match="x must be finite"):
        tracker.update(6.0, math.nan, 0.0, 0.0)
    with pytest.raises(ValueError, match="PL_distance must be >= 0"):
        TrajectoryTracker(Line(), pl_distance=-0.1)


def test_an_anchored_start_places_the_shape_at_the_vehicle():
    tracker = TrajectoryTracker(Circle(2.0, 0.5))
    tracker.start(0.0, (5.0, 1.0, math.pi / 2), anchor=True)
    (x, y), (vx, vy), _ = tracker.reference(0.0)
    assert (x, y, vx, vy) == pytest.approx((5.0, 1.0, 0.0, 1.0), abs=1e-12)
    (x, y), _, _ = tracker.reference(2 * math.pi)  # half a lap: 2R to the left of the start heading
    assert (x, y) == pytest.approx((1.0, 1.0), abs=1e-12)


def test_p_error_decays_as_exp_minus_kp_t_when_p_moves_as_commanded():
    """P moved exactly at the commanded velocity (what the exact linearization promises), with feed-forward: the
    reference's own motion cancels and each held step of dt gives e_{k+1} = (1 - Kp dt) e_k, i.e.
    e(t) -> e_0 exp(-Kp t) (seed: Kp = 5)."""
    kp, dt = 5.0, 0.001
    shape = make_shape("line", a=1.0, b=0.0)
    tracker = TrajectoryTracker(shape, PidGains(kp=kp), pl_distance=0.0)
    tracker.start(0.0)
    x, y = 0.0, 0.3  # P starts 0.3 m off the line
    errors = []
    for k in range(1000):
        out = tracker.update(k * dt, x, y, 0.0)
        errors.append(out.error_y)
        x += out.vpx * dt
        y += out.vpy * dt
    expected = -0.3 * (1.0 - kp * dt) ** np.arange(1000)
    assert np.allclose(errors, expected, atol=1e-12)
    assert errors[-1] == pytest.approx(-0.3 * math.exp(-kp * 1.0), rel=0.01)
