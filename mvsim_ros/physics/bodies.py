"""Creating the Box2D world: vehicle chassis, obstacle blocks and occupancy-grid walls.

The Box2D world is the horizontal plane seen from above, so it has no gravity; ground friction comes from
the wheel models (vehicles) and from friction joints to the ground (blocks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import Box2D
import numpy as np

from mvsim_ros.physics import box2d_native
from mvsim_ros.physics.polygons import convex_pieces, merge_occupied_cells, signed_area
from mvsim_ros.world.specs import ActorSpec
from mvsim_ros.world.specs import BlockSpec, JointSpec, OccupancyGridSpec, VehicleSpec, WorldSpec

#: Friction coefficient between colliding bodies (chassis against walls, blocks, other vehicles).
BODY_CONTACT_FRICTION = 0.5


@dataclass(frozen=True)
class BodyTag:
    """Stored in each Box2D body's userData: what the body is and its index in its list."""

    kind: str  # "vehicle", "block", "actor" or "ground"
    index: int


#: userData of the sensor fixtures that find another body within the world's collision_threshold of a vehicle.
PROXIMITY = "proximity"


class ContactCounter:
    """Counts, per vehicle, the solid contacts touching it and the solid fixtures of other bodies within the world's
    collision_threshold (its PROXIMITY fixtures overlapping them); remembers any contact since the last reset.

    `install(world)` makes it the world's contact listener: the Box2D shim's (box2d_native.VehicleContactListener,
    which calls no Python during a step) when the shim is loaded, else a pybox2d listener in Python (_PythonCounting)
    doing the same. Both read which bodies are which vehicles from the bodies' tags when installed."""

    def __init__(self, vehicle_count: int):
        self.touching = np.zeros(vehicle_count, dtype=np.int64)
        self.since_reset = np.zeros(vehicle_count, dtype=bool)
        self._listener = None

    def install(self, world: Box2D.b2World) -> None:
        """Count the contacts of `world`'s vehicles (tagged BodyTag("vehicle", index)) from now on."""
        if not box2d_native.AVAILABLE:
            self._listener = _PythonCounting(self)
            world.contactListener = self._listener
            return
        vehicles, proximity = [], []
        for body in world.bodies:
            tag = body.userData
            if isinstance(tag, BodyTag) and tag.kind == "vehicle":
                vehicles.append((body, tag.index))
                proximity.extend(f for f in body.fixtures if f.userData == PROXIMITY)
        self._listener = box2d_native.VehicleContactListener(world, self.touching, self.since_reset, vehicles,
                                                             proximity)


class _PythonCounting(Box2D.b2ContactListener):
    """ContactCounter's counting as a pybox2d listener (Box2D then calls Python for every contact event)."""

    def __init__(self, counter: ContactCounter):
        super().__init__()
        self.touching, self.since_reset = counter.touching, counter.since_reset

    def _update(self, contact, delta: int) -> None:
        fa, fb = contact.fixtureA, contact.fixtureB
        fixtures = (fa, fb)
        if fa.sensor or fb.sensor:
            near = [f for f, other in ((fa, fb), (fb, fa)) if f.userData == PROXIMITY and not other.sensor]
            if not near:
                return
            fixtures = tuple(near)
        for fixture in fixtures:
            tag = fixture.body.userData
            if isinstance(tag, BodyTag) and tag.kind == "vehicle":
                self.touching[tag.index] += delta
                if delta > 0:
                    self.since_reset[tag.index] = True

    def BeginContact(self, contact):  # noqa: N802 (Box2D API name)
        self._update(contact, +1)

    def EndContact(self, contact):  # noqa: N802
        self._update(contact, -1)


@dataclass
class Box2DWorld:
    """The Box2D world and its bodies, in the same order as the world spec's vehicles and blocks.

    units: the front units of articulated vehicles (in vehicle order), pivots: their revolute joints to the rear
    units (body A rear, body B front). body_com_local: centre of mass of every vehicle body then every unit, in
    its own frame [m].
    """

    world: Box2D.b2World
    ground: Box2D.b2Body
    vehicles: list[Box2D.b2Body]
    blocks: list[Box2D.b2Body]
    contacts: ContactCounter
    units: list[Box2D.b2Body] = field(default_factory=list)
    pivots: list[Box2D.b2RevoluteJoint] = field(default_factory=list)
    body_com_local: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    actors: list[Box2D.b2Body] = field(default_factory=list)

    @property
    def vehicle_com_local(self) -> np.ndarray:
        """Centre of mass of each vehicle's (rear unit's) body in the vehicle frame [m]."""
        return self.body_com_local[:len(self.vehicles)]

    @property
    def bodies(self) -> list[Box2D.b2Body]:
        """Every body that carries wheels: the vehicles', then the articulated front units'."""
        return self.vehicles + self.units


def _polygon_fixtures(body, outline, density: float, sensor: bool = False, restitution: float = 0.0,
                      friction: float = BODY_CONTACT_FRICTION) -> None:
    for piece in convex_pieces(outline):
        body.CreatePolygonFixture(
            vertices=piece, density=density, friction=friction, isSensor=sensor,
            restitution=restitution,
        )


def add_proximity_fixtures(body: Box2D.b2Body, outline, threshold_m: float) -> None:
    """Sensor fixtures (PROXIMITY) over a vehicle's outline grown by threshold_m [m] (as their Box2D polygon radius,
    plus the chassis' own skin): another body's solid fixture overlaps one exactly when the distance between it and
    the chassis, radii included, is below threshold_m, MVSim's collision test with <collision_threshold>. Nothing
    for a threshold of 0 (touching contacts only)."""
    if threshold_m <= 0.0:
        return
    for piece in convex_pieces(outline):
        shape = Box2D.b2PolygonShape(vertices=piece)
        shape.radius = threshold_m + Box2D.b2_polygonRadius
        body.CreateFixture(shape=shape, density=0.0, isSensor=True, userData=PROXIMITY)


def add_vehicle_body(world: Box2D.b2World, spec: VehicleSpec, index: int, unit: int = 0) -> Box2D.b2Body:
    """The body of vehicle `index` (unit 0), or of its articulated front unit (unit 1), with its wheels."""
    pose = spec.init_pose
    x, y, yaw = pose.x, pose.y, pose.yaw
    chassis = spec.chassis
    if unit:  # front unit, in line with the rear one
        chassis = spec.articulation.front_chassis
        x, y, yaw = spec.articulation.front_unit_pose(x, y, yaw)
    body = world.CreateDynamicBody(position=(x, y), angle=yaw, userData=BodyTag("vehicle", index),
                                   linearDamping=chassis.linear_damping, angularDamping=chassis.angular_damping)
    area = abs(signed_area(chassis.shape))
    _polygon_fixtures(body, chassis.shape, chassis.mass / area)
    for wheel in spec.wheels:
        if wheel.unit != unit:
            continue
        half_length, half_width = wheel.radius, 0.5 * wheel.width
        body.CreatePolygonFixture(
            box=(half_length, half_width, (wheel.x, wheel.y), wheel.yaw),
            density=wheel.mass / (wheel.diameter * wheel.width),
            friction=BODY_CONTACT_FRICTION,
        )
    c, s = math.cos(pose.yaw), math.sin(pose.yaw)
    v = spec.init_vel
    body.linearVelocity = (c * v.vx - s * v.vy, s * v.vx + c * v.vy)
    body.angularVelocity = v.omega
    body.bullet = True  # continuous collision against other moving bodies too
    return body


def add_block_body(world: Box2D.b2World, ground: Box2D.b2Body, spec: BlockSpec, index: int, gravity: float):
    """The Box2D body of block `index`: its outline with the block's lateral friction and restitution (Box2D mixes
    them with the other body's: friction sqrt(a b), restitution max(a, b)), its linear and angular damping, its
    start twist, and Coulomb ground friction."""
    pose = spec.init_pose
    tag = BodyTag("block", index)
    contact = dict(sensor=spec.intangible, restitution=spec.restitution, friction=spec.lateral_friction)
    if spec.animation is not None:  # moved along its keyframes (physics/kinematic/movers.py), starting where they say
        start = spec.animation.pose_at(0.0, pose)
        body = world.CreateKinematicBody(position=(start.x, start.y), angle=start.yaw, userData=tag)
        _polygon_fixtures(body, spec.shape, 0.0, **contact)
        return body
    if spec.static:
        body = world.CreateStaticBody(position=(pose.x, pose.y), angle=pose.yaw, userData=tag)
        _polygon_fixtures(body, spec.shape, 0.0, **contact)
        return body
    body = world.CreateDynamicBody(position=(pose.x, pose.y), angle=pose.yaw, userData=tag,
                                   linearDamping=spec.linear_damping, angularDamping=spec.angular_damping)
    _polygon_fixtures(body, spec.shape, spec.mass / abs(signed_area(spec.shape)), **contact)
    _set_start_twist(body, spec)
    # Coulomb ground friction, solved by Box2D: force up to mu*m*g, torque up to mu*m*g times the radius of
    # gyration (the mean lever arm of a uniformly loaded footprint, to first order).
    max_force = spec.ground_friction * spec.mass * gravity
    gyration = math.sqrt(body.inertia / body.mass) if body.mass > 0 else 0.0
    world.CreateFrictionJoint(
        bodyA=ground, bodyB=body, localAnchorA=body.worldCenter, localAnchorB=body.localCenter,
        maxForce=max_force, maxTorque=max_force * gyration, collideConnected=True,
    )
    return body


def _set_start_twist(body: Box2D.b2Body, spec: BlockSpec) -> None:
    """The block's <init_vel> (its origin's twist in its own frame) as Box2D's centre-of-mass velocity in the world
    frame: v_com = R v + omega x (R c), c the centre of mass in the block's frame."""
    v = spec.init_vel
    if v.vx == 0.0 and v.vy == 0.0 and v.omega == 0.0:
        return
    c, s = math.cos(body.angle), math.sin(body.angle)
    cx, cy = body.localCenter
    rx, ry = c * cx - s * cy, s * cx + c * cy
    body.linearVelocity = (c * v.vx - s * v.vy - v.omega * ry, s * v.vx + c * v.vy + v.omega * rx)
    body.angularVelocity = v.omega


def _add_actor(world: Box2D.b2World, spec: ActorSpec, index: int) -> Box2D.b2Body:
    """An actor's kinematic body at its initial pose: a circle of its collision radius, or its declared
    <shape>."""
    pose = spec.init_pose
    body = world.CreateKinematicBody(position=(pose.x, pose.y), angle=pose.yaw, userData=BodyTag("actor", index))
    if spec.shape is not None:
        _polygon_fixtures(body, spec.shape, 0.0)
    else:
        body.CreateCircleFixture(radius=spec.collision_radius, density=0.0, friction=BODY_CONTACT_FRICTION)
    return body


def _add_grid_walls(ground: Box2D.b2Body, grid: OccupancyGridSpec) -> None:
    res = grid.resolution
    for r0, c0, r1, c1 in merge_occupied_cells(grid.occupied):
        half_x, half_y = 0.5 * (c1 - c0) * res, 0.5 * (r1 - r0) * res
        center = (grid.x_min + 0.5 * (c0 + c1) * res, grid.y_min + 0.5 * (r0 + r1) * res)
        ground.CreatePolygonFixture(
            box=(half_x, half_y, center, 0.0), density=0.0, friction=grid.lateral_friction,
            restitution=grid.restitution,
        )


def add_pivot_joint(world: Box2D.b2World, spec: VehicleSpec, rear: Box2D.b2Body,
                    front: Box2D.b2Body) -> Box2D.b2RevoluteJoint:
    """The powered pivot of an articulated vehicle: angle = front yaw - rear yaw, limited to +/- max_angle,
    a motor whose speed the simulation sets at every step (up to max_torque)."""
    a = spec.articulation
    return world.CreateRevoluteJoint(
        bodyA=rear, bodyB=front, localAnchorA=(a.rear_length, 0.0), localAnchorB=(-a.front_length, 0.0),
        referenceAngle=0.0, enableLimit=True, lowerAngle=-a.max_angle, upperAngle=a.max_angle, enableMotor=True,
        maxMotorTorque=a.max_torque, motorSpeed=0.0, collideConnected=False)


def _add_joint(world: Box2D.b2World, joint: JointSpec, body_a: Box2D.b2Body, body_b: Box2D.b2Body) -> None:
    """A Box2D joint for a world-file <joint>; the two bodies do not collide with each other.

    revolute: a pin at the anchors, with its angle (body B relative to body A, zero at the start) limited when
    enable_limit is set. distance, as MVSim's Box2D 2.4 joint: a rigid rod when min_length == max_length; else at
    most max_length apart (a rope joint), and with stiffness > 0 also a spring of rest length max_length, given to
    Box2D 2.3 as the frequency and damping ratio `spring_frequency_and_ratio` computes (2.3 has no lower limit).
    """
    anchors = dict(bodyA=body_a, bodyB=body_b, localAnchorA=joint.anchor_a, localAnchorB=joint.anchor_b,
                   collideConnected=False)
    if joint.kind == "revolute":
        world.CreateRevoluteJoint(referenceAngle=body_b.angle - body_a.angle, enableLimit=joint.enable_limit,
                                  lowerAngle=joint.lower_angle, upperAngle=joint.upper_angle, **anchors)
        return
    if joint.min_length >= joint.max_length:
        world.CreateDistanceJoint(length=joint.max_length, frequencyHz=0.0, dampingRatio=0.0, **anchors)
        return
    world.CreateRopeJoint(maxLength=joint.max_length, **anchors)
    if joint.stiffness > 0.0:
        frequency_hz, ratio = spring_frequency_and_ratio(joint.stiffness, joint.damping, body_a.mass, body_b.mass)
        world.CreateDistanceJoint(length=joint.max_length, frequencyHz=frequency_hz, dampingRatio=ratio, **anchors)


def spring_frequency_and_ratio(stiffness: float, damping: float, mass_a: float, mass_b: float) -> tuple[float, float]:
    """Box2D 2.3's (frequency [Hz], damping ratio) of a spring given as Box2D 2.4 takes it (stiffness [N/m],
    damping [N s/m]), the inverse of 2.4's b2LinearStiffness: with the reduced mass m = mA mB / (mA + mB) (or the
    one mass that is not 0, for a body joined to a static one), omega = sqrt(k / m), f = omega / 2 pi and
    ratio = c / (2 m omega)."""
    if mass_a > 0.0 and mass_b > 0.0:
        mass = mass_a * mass_b / (mass_a + mass_b)
    else:
        mass = mass_a if mass_a > 0.0 else mass_b
    if mass <= 0.0 or stiffness <= 0.0:
        return 0.0, 0.0
    omega = math.sqrt(stiffness / mass)
    return omega / (2.0 * math.pi), damping / (2.0 * mass * omega)


def destroy_body(world: Box2D.b2World, body: Box2D.b2Body) -> None:
    """Destroy `body` (its fixtures, contacts and joints go with it) safely for the contact listener.

    pybox2d releases a body's Python userData before Box2D destroys the body, and Box2D then reports the end of
    each of its touching contacts to the listener, which would read the released tag. The tag is therefore
    detached first (the listener skips untagged bodies) and kept alive until Box2D is done.
    """
    tag = body.userData
    body.userData = None
    world.DestroyBody(body)
    del tag


def static_wall_polygons(spec: WorldSpec) -> list[list[tuple[float, float]]]:
    """World-frame outlines [m] of the fixed walls: <walls> segments and <element class="vertical_plane">
    solid spans (door openings left free)."""
    polygons = [segment.polygon() for walls in spec.walls for segment in walls.segments]
    for element in spec.elements:
        if hasattr(element, "collision_polygons"):
            polygons.extend(element.collision_polygons())
    return polygons


def build_box2d_world(spec: WorldSpec) -> Box2DWorld:
    """Create every body of the world spec in a new Box2D world."""
    world = Box2D.b2World(gravity=(0.0, 0.0), doSleep=True)
    ground = world.CreateStaticBody(position=(0.0, 0.0), userData=BodyTag("ground", 0))
    for grid in spec.occupancy_grids:
        _add_grid_walls(ground, grid)
    for outline in static_wall_polygons(spec):
        if abs(signed_area(outline)) > 1e-9:
            _polygon_fixtures(ground, outline, 0.0)
    vehicles = [add_vehicle_body(world, v, i) for i, v in enumerate(spec.vehicles)]
    for body, vehicle in zip(vehicles, spec.vehicles):
        add_proximity_fixtures(body, vehicle.chassis.shape, spec.collision_threshold)
    articulated = [i for i, v in enumerate(spec.vehicles) if v.articulation is not None]
    units = [add_vehicle_body(world, spec.vehicles[i], i, unit=1) for i in articulated]
    pivots = [add_pivot_joint(world, spec.vehicles[i], vehicles[i], unit) for i, unit in zip(articulated, units)]
    blocks = [add_block_body(world, ground, b, i, spec.gravity) for i, b in enumerate(spec.blocks)]
    by_name = {v.name: b for v, b in zip(spec.vehicles, vehicles)}
    by_name.update({blk.name: b for blk, b in zip(spec.blocks, blocks)})
    for joint in spec.joints:
        _add_joint(world, joint, by_name[joint.body_a], by_name[joint.body_b])
    actors = [_add_actor(world, a, i) for i, a in enumerate(spec.actors)]
    contacts = ContactCounter(len(vehicles))
    contacts.install(world)
    com = np.array([tuple(b.localCenter) for b in vehicles + units], dtype=float).reshape(-1, 2)
    return Box2DWorld(world, ground, vehicles, blocks, contacts, units, pivots, com, actors)
