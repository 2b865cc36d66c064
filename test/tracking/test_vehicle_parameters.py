"""Single-track parameters read from a world's vehicle, against the simulator's own bodies and closed forms; the
seed car's world and its variables."""

import math

import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.tracking.seed_car import SEED_CAR_NAME, seed_car_world
from mvsim_ros.tracking.vehicle_parameters import (polygon_mass_properties, simulated_cornering_stiffness,
                                                   steering_geometry, vehicle_geometry)
from mvsim_ros.world import load_world_string
from mvsim_ros.world.elements.vehicles import PACEJKA_SURFACES


@pytest.mark.parametrize("chassis", [None, (-0.015, 0.44), (-0.2, 0.3)])
def test_mass_centre_of_gravity_and_inertia_are_box2ds(chassis):
    world = seed_car_world("dry", chassis=chassis)
    geometry = vehicle_geometry(world)
    sim = Simulation(world)
    body = sim.box2d.vehicles[0]
    com_x, com_y = sim.box2d.body_com_local[0]
    params = geometry.params
    assert params.mass == pytest.approx(body.mass, rel=1e-6)
    assert geometry.com_x == pytest.approx(com_x, abs=1e-6) and com_y == pytest.approx(0.0, abs=1e-6)
    assert params.iz == pytest.approx(body.inertia - body.mass * (com_x ** 2 + com_y ** 2), rel=1e-5)
    assert params.a + params.b == pytest.approx(0.325, abs=1e-12)
    assert params.b == pytest.approx(geometry.com_x, abs=1e-12)  # rear axle at x = 0


def test_the_seed_car_as_built():
    geometry = vehicle_geometry(seed_car_world("dry"), SEED_CAR_NAME)
    p = geometry.params
    assert p.mass == pytest.approx(4.0 + 4 * 0.34)
    assert p.b == pytest.approx(0.1477, abs=1e-4)  # the racecar description's chassis inertia origin
    assert p.front_weight_fraction == pytest.approx(0.4545, abs=1e-3)
    assert p.max_steering_angle == pytest.approx(math.radians(25.0))
    assert steering_geometry(seed_car_world("ice")) == pytest.approx((0.325, math.radians(25.0)))


@pytest.mark.parametrize("surface", sorted(PACEJKA_SURFACES))
def test_cornering_stiffness_is_the_magic_formulas_slope_times_the_simulators_load(surface):
    b, c, d, _ = PACEJKA_SURFACES[surface]
    params = vehicle_geometry(seed_car_world(surface)).params
    load = (4.0 / 4 + 0.34) * 9.81  # equal chassis share per wheel plus the wheel itself (MVSim)
    assert params.cf == pytest.approx(2 * load * b * c * d, rel=1e-12)
    assert params.cr == params.cf


def test_simulated_stiffness_at_speed_and_step():
    assert simulated_cornering_stiffness(100.0, 19.0, 9.81, 0.002, 1.0) == pytest.approx(
        100.0 / (1 + 19.0 * 9.81 * 0.002), rel=1e-12)
    assert simulated_cornering_stiffness(100.0, 19.0, 9.81, 0.0, 1.0) == 100.0


def test_polygon_properties_of_a_rectangle_either_way_round():
    for points in ([(0, 0), (2, 0), (2, 1), (0, 1)], [(0, 0), (0, 1), (2, 1), (2, 0)]):
        area, cx, cy, j = polygon_mass_properties(points)
        assert (area, cx, cy) == pytest.approx((2.0, 1.0, 0.5))
        # polar moment about the origin: about the centroid (b h (b^2 + h^2) / 12) plus area * distance^2
        assert j == pytest.approx(2.0 * (4 + 1) / 12 + 2.0 * (1.0 + 0.25))


def test_unusable_vehicles_are_refused_with_a_reason():
    from conftest import robot_world_xml

    with pytest.raises(ValueError, match="no vehicle named 'bus'; vehicles: racecar"):
        vehicle_geometry(seed_car_world("dry"), "bus")
    with pytest.raises(ValueError, match="no vehicle with index 3"):
        vehicle_geometry(seed_car_world("dry"), 3)
    with pytest.raises(ValueError, match="'r1' is not a four-wheel Ackermann vehicle"):
        steering_geometry(load_world_string(robot_world_xml()), "r1")


def test_a_car_on_coulomb_tyres_has_no_stiffness_to_read_but_a_steering_geometry():
    from conftest import REPO

    car_class = (REPO / "worlds" / "definitions" / "car.vehicle.xml").read_text()
    world = load_world_string(f'<mvsim_world version="1.0">{car_class}<vehicle name="c" class="car"/></mvsim_world>')
    with pytest.raises(ValueError, match="friction model 'default' has no cornering stiffness"):
        vehicle_geometry(world, "c")
    assert steering_geometry(world, "c") == pytest.approx((2.5, math.radians(35.0)))


def test_seed_car_world_variables_and_errors():
    assert seed_car_world("ice").vehicles[0].friction.params["Dy"] == 0.1
    assert seed_car_world("dry", timestep=0.005).timestep == 0.005
    with pytest.raises(ValueError, match="unknown surface 'mud'"):
        seed_car_world("mud")
