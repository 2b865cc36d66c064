"""The slope force each friction model holds at the contact patch (HELD_FRICTION_MODELS): the same forces as the
plain models, plus the part of F_x that holds the slope, which the wheel's drivetrain carries."""

import numpy as np
import pytest

from mvsim_ros.physics.friction import FRICTION_MODELS, HELD_FRICTION_MODELS
from mvsim_ros.world.elements.vehicles import FRICTION_CLASSES

G, DT, N = 9.81, 0.005, 400


def inputs(model: str, seed: int, slopes: bool = True):
    rng = np.random.default_rng(seed)
    names = FRICTION_MODELS[model][1]
    params = np.tile([FRICTION_CLASSES[model][p] for p in names], (N, 1))
    slope = rng.uniform(-300, 300, (2, N)) * (1.0 if slopes else 0.0)
    return (rng.uniform(-3, 3, N), rng.uniform(-0.5, 0.5, N), rng.uniform(-30, 30, N), rng.uniform(-20, 20, N),
            rng.uniform(0, 5, N), rng.uniform(0, 500, N), slope[0], slope[1], np.full(N, 0.1), np.full(N, 0.005),
            np.full(N, 1.0), params, G, DT)


@pytest.mark.parametrize("model", sorted(FRICTION_MODELS))
def test_held_models_give_the_plain_models_forces(model):
    plain = FRICTION_MODELS[model][0](*inputs(model, 1))
    held = HELD_FRICTION_MODELS[model](*inputs(model, 1))
    for a, b in zip(plain, held[:3]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("model", ["default", "wardiagnemma", "ellipse"])
def test_the_held_force_is_what_the_slope_adds_to_f_x_and_it_leaves_the_spin_alone(model):
    fx, fy, omega, held = HELD_FRICTION_MODELS[model](*inputs(model, 2))
    fx0, _, omega0, held0 = HELD_FRICTION_MODELS[model](*inputs(model, 2, slopes=False))
    np.testing.assert_allclose(fx - fx0, held, atol=1e-9)
    np.testing.assert_array_equal(omega, omega0)
    assert np.all(held0 == 0.0)
    slope_x = inputs(model, 2)[6]
    assert np.all(held * slope_x <= 0.0) and np.all(np.abs(held) <= np.abs(slope_x))  # against it, never more


def test_pacejka_holds_against_the_slope_within_its_ellipse():
    args = inputs("pacejka", 3)
    fx, fy, _, held = HELD_FRICTION_MODELS["pacejka"](*args)
    slope_x = args[6]
    assert np.all(held * slope_x <= 1e-12) and np.all(np.abs(held) <= np.abs(slope_x) + 1e-9)
