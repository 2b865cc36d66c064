"""The five reference shapes of seed 002 against their closed forms, their derivatives, and bad parameters."""

import math

import numpy as np
import pytest

from mvsim_ros.tracking.shapes import SHAPES, Circle, Cycloid, FigureEight, Line, Parabola, RampedShape, make_shape

TIMES = (0.0, 0.37, 1.0, 2.5, 7.3, 12.9)


def seed_closed_form(shape, t):
    """Position and velocity as seed 002 writes them (section 5.6.1), term by term."""
    if isinstance(shape, Line):
        return (shape.a * t, shape.b * t), (shape.a, shape.b)
    if isinstance(shape, Parabola):
        a = shape.focal_length
        return (2 * a * t, a * t ** 2), (2 * a, 2 * a * t)
    if isinstance(shape, Circle):
        r, w = shape.R, shape.W
        return ((r * math.cos(w * t - math.pi / 2), r * math.sin(w * t - math.pi / 2) + r),
                (-w * r * math.sin(w * t - math.pi / 2), w * r * math.cos(w * t - math.pi / 2)))
    if isinstance(shape, FigureEight):
        a, w = shape.a, shape.W
        return ((a * math.sin(w * t), a * math.sin(w * t) * math.cos(w * t)),
                (w * a * math.cos(w * t), w * a * (math.cos(w * t) ** 2 - math.sin(w * t) ** 2)))
    r, d = shape.r, shape.d
    return (r * t - d * math.sin(t), d - d * math.cos(t)), (r - d * math.cos(t), d * math.sin(t))


SHAPE_CASES = [Line(3.0, 5.0), Line(-1.0, 0.25), Parabola(2.0), Parabola(0.5), Circle(2.0, 0.5), Circle(0.7, 1.3),
               FigureEight(3.0, 0.3), FigureEight(1.5, 1.0), Cycloid(0.5, 0.25), Cycloid(1.5, 0.5)]


@pytest.mark.parametrize("shape", SHAPE_CASES, ids=lambda s: f"{s.name}{tuple(s.parameters().values())}")
def test_position_and_velocity_are_the_seeds_closed_forms(shape):
    for t in TIMES:
        (x, y), (vx, vy) = seed_closed_form(shape, t)
        assert shape.position(t) == pytest.approx((x, y), abs=1e-12)
        assert shape.velocity(t) == pytest.approx((vx, vy), abs=1e-12)


@pytest.mark.parametrize("shape", SHAPE_CASES, ids=lambda s: f"{s.name}{tuple(s.parameters().values())}")
def test_velocity_and_acceleration_are_the_derivatives(shape):
    h = 1e-5
    for t in TIMES[1:]:
        for f, df in ((shape.position, shape.velocity), (shape.velocity, shape.acceleration)):
            numeric = (np.array(f(t + h)) - np.array(f(t - h))) / (2 * h)
            assert np.allclose(numeric, df(t), atol=1e-6 * max(1.0, np.abs(numeric).max()))


def test_every_shape_starts_at_the_origin_and_the_closed_ones_repeat():
    for shape in SHAPE_CASES:
        assert shape.position(0.0) == pytest.approx((0.0, 0.0), abs=1e-15)
    circle, eight = Circle(2.0, 0.5), FigureEight(3.0, 0.3)
    for shape in (circle, eight):
        assert shape.position(shape.period() + 1.1) == pytest.approx(shape.position(1.1), abs=1e-12)
    assert circle.position(math.pi / 0.5) == pytest.approx((0.0, 4.0), abs=1e-12)  # half a lap: the top
    assert max(abs(x) for x in eight.position(np.linspace(0, 21, 2001))[0]) == pytest.approx(3.0, abs=1e-6)


def test_arrays_of_times_give_arrays():
    t = np.linspace(0.0, 5.0, 11)
    for shape in SHAPE_CASES:
        for method in (shape.position, shape.velocity, shape.acceleration):
            x, y = method(t)
            assert np.shape(x) == t.shape and np.shape(y) == t.shape
            assert np.allclose([method(float(s)) for s in t], np.array([x, y]).T, atol=1e-12)


def test_names_seed_codes_and_aliases():
    assert list(SHAPES) == ["line", "parabola", "circle", "figure_eight", "cycloid"]
    assert [make_shape(code).name for code in range(5)] == list(SHAPES)
    assert make_shape("2", R=1.0, W=1.0) == Circle(1.0, 1.0)
    assert make_shape("eight").name == "figure_eight" and make_shape("Curtate-Cycloid").name == "cycloid"


@pytest.mark.parametrize("kind, params, message", [
    ("circle", {"R": 0.0}, "R must be > 0"),
    ("circle", {"W": -0.5}, "W must be > 0"),
    ("circle", {"R": math.nan}, "must be finite"),
    ("figure_eight", {"a": -1.0}, "a must be > 0"),
    ("cycloid", {"r": 0.5, "d": 0.5}, "curtate"),
    ("cycloid", {"r": 0.5, "d": -0.1}, "curtate"),
    ("line", {"a": 0.0, "b": 0.0}, "direction"),
    ("parabola", {"focal_length": 0.0}, "must not be 0"),
    ("parabola", {"focal_length": math.inf}, "must be finite"),
    ("line", {"a": "fast"}, "must be a number"),
    ("circle", {"radius": 2.0}, "unknown parameter"),
    ("square", {}, "unknown trajectory type"),
    (7, {}, "unknown trajectory type 7"),
])
def test_bad_parameters_are_refused_with_a_clear_error(kind, params, message):
    with pytest.raises(ValueError, match=message):
        make_shape(kind, **params)


def test_ramped_shape_keeps_the_path_starts_at_rest_and_catches_the_speed():
    base = Circle(2.0, 0.5)
    ramped = make_shape("circle", ramp_time=1.0, R=2.0, W=0.5)
    assert isinstance(ramped, RampedShape)
    assert ramped.velocity(0.0) == pytest.approx((0.0, 0.0), abs=1e-15)
    for t in (0.0, 0.5, 3.0, 20.0):  # on the circle at every time
        x, y = ramped.position(t)
        assert math.hypot(x, y - 2.0) == pytest.approx(2.0, abs=1e-12)
    speed = math.hypot(*ramped.velocity(20.0))
    assert speed == pytest.approx(base.W * base.R, rel=1e-8)  # e^-20 later: the shape's own speed
    assert ramped.position(20.0) == pytest.approx(base.position(19.0), abs=1e-8)  # trailing by tau = 1 s
    h = 1e-5
    for t in (0.3, 1.7, 4.0):
        numeric = (np.array(ramped.velocity(t + h)) - np.array(ramped.velocity(t - h))) / (2 * h)
        assert np.allclose(numeric, ramped.acceleration(t), atol=1e-6)
    with pytest.raises(ValueError, match="ramp_time must be >= 0"):
        make_shape("circle", ramp_time=-1.0)
