"""What a Simulation runs on and what it carries from step to step, as public named records.

`StepGroups`: the named groups and arrays the step's phases take (the Python `Simulation.step` and the compiled
steps of compiled_steps.py alike), built once with the simulation; the arrays are the simulation's own, only
ever written in place.

`SimulationState`: everything a step reads and writes that is neither a constant of the world file nor held by
Box2D (body poses, velocities and contacts live in the Box2D world): the clock, commands, wheels, controllers,
steering, pivots, odometry, kinematic movers, blocks' 3D poses and the terrain's state. Each field names its row
space (what one of its rows belongs to) and where the live array sits on the simulation. `Simulation.get_state()`
copies every field out, `Simulation.set_state()` writes them back in place, and a world edit (world_edit.py)
carries a state over to a simulation with other vehicles or blocks through a `RowMap`, field by field. A new
state variable is one field here: reading, writing and carrying it over follow from its row space.

Row spaces: "clock" (one value), "vehicle" (V), "wheel" (W, each vehicle's wheels contiguous), "steering" (the
Ackermann vehicles), "drivetrain" (the ackermann_drivetrain vehicles), "articulation" (the articulated
vehicles), "body" (the vehicles, then the articulated vehicles' front units), "block" (the world's blocks),
"mover" (the keyframe-animated blocks, then the actors), "support_point" (the terrain's support points, each
body's contiguous). Units SI, angles in radians.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import numpy as np

from mvsim_ros.physics.friction.groups import FrictionGroup, RegionOverride
from mvsim_ros.physics.step_data import CommandData, ControllerData, OdometryData, SteeringData, WheelData

#: Row spaces of the state; a row of each is labelled (entity kind, entity index, part...) by `StateRows`.
ROW_SPACES = ("vehicle", "wheel", "steering", "drivetrain", "articulation", "body", "block", "mover", "support_point")


@dataclass(frozen=True)
class StepGroups:
    """The step's named groups (step_data) and the arrays its phases read and write besides, over the simulation's
    own arrays.

    commands, steering, wheels, controllers, odometry: step_data's CommandData, SteeringData, WheelData,
    ControllerData, OdometryData. friction_groups: the wheels by friction model (friction.groups; their params
    are what the next step uses); region_overrides: the property regions that override friction parameters.
    slope_x, slope_y (W,) [N]: gravity along the ground on each wheel's share of mass, wheel frame: the terrain
    phase's slope loads turned into each wheel's steered frame at every friction phase (0 on flat ground).
    max_torque (W,) [N m]: each wheel motor's torque bound (inf: none); max_spin (W,) [rad/s]: its top speed;
    gravity [m/s^2]. ideal (V,) bool: twist_ideal vehicles (the body follows the command, no wheel forces).
    body_addresses (B,) intp: the C++ addresses of the Box2D bodies for the Box2D shim, or None when the bodies
    are driven through pybox2d's Python API.
    """

    commands: CommandData
    steering: SteeringData
    wheels: WheelData
    controllers: ControllerData
    odometry: OdometryData
    friction_groups: list[FrictionGroup]
    region_overrides: list[RegionOverride]
    slope_x: np.ndarray
    slope_y: np.ndarray
    max_torque: np.ndarray
    max_spin: np.ndarray
    gravity: float
    ideal: np.ndarray
    body_addresses: np.ndarray | None

    @property
    def one_friction_model(self) -> bool:
        """Whether one friction model covers all wheels (one friction call per step)."""
        groups = self.friction_groups
        return len(groups) == 1 and groups[0].all_wheels


def _variable(rows: str, at: str, terrain: bool = False) -> Any:
    """A SimulationState field: its row space (ROW_SPACES, or "clock" for a scalar attribute of the simulation
    itself), the attribute path of the live value on the simulation, and whether it is the terrain phase's
    (carried only between simulations that both run it)."""
    return field(metadata={"rows": rows, "at": at, "terrain": terrain})


@dataclass
class SimulationState:
    """A copy of a Simulation's state (see the module docstring; `Simulation.get_state` / `set_state`).

    Clock: time [s], steps. Per vehicle: wheel odometry odom_pose (x, y, yaw) and odom_twist (v, omega);
    acceleration (ax, ay, alpha) over the last step, world frame; the latest command (commands.py: v [m/s],
    omega [rad/s], steer [rad], steer_mode, steer_rate [rad/s], last_command_time [s], watched by the watchdog);
    contacts (touching: contacts now; touched_since_reset: since the last take_collisions). Per wheel (WheelArrays,
    WheelControllers): spin [rad/s], spin angle [rad], motor torque [N m], last ground force in the body frame [N],
    mounting yaw [rad] and its cos and sin, slope hold torque [N m], the PID's history and the raw torque [N m].
    Per Ackermann vehicle: the equivalent steering angle [rad]. Per drivetrain: its motor PID's history and raw
    torque. Per articulated vehicle: pivot angle [rad], rate [rad/s] and target [rad]. Per block: (x, y, z, yaw,
    pitch, roll) as last written. Per mover: the path pose it was last steered to. Terrain (per body and per
    support point): terrain.state (STATE_COLUMNS) and the ground under each support point [m].
    """

    time: float = _variable("clock", "time")
    steps: int = _variable("clock", "steps")
    odom_pose: np.ndarray = _variable("vehicle", "odom_pose")
    odom_twist: np.ndarray = _variable("vehicle", "odom_twist")
    acceleration: np.ndarray = _variable("vehicle", "acceleration")
    command_v: np.ndarray = _variable("vehicle", "commands.v")
    command_omega: np.ndarray = _variable("vehicle", "commands.omega")
    command_steer: np.ndarray = _variable("vehicle", "commands.steer")
    command_steer_mode: np.ndarray = _variable("vehicle", "commands.steer_mode")
    command_steer_rate: np.ndarray = _variable("vehicle", "commands.steer_rate")
    last_command_time: np.ndarray = _variable("vehicle", "commands.last_command_time")
    watched: np.ndarray = _variable("vehicle", "commands.watched")
    touching: np.ndarray = _variable("vehicle", "box2d.contacts.touching")
    touched_since_reset: np.ndarray = _variable("vehicle", "box2d.contacts.since_reset")
    wheel_spin: np.ndarray = _variable("wheel", "wheels.omega")
    wheel_angle: np.ndarray = _variable("wheel", "wheels.phi")
    wheel_torque: np.ndarray = _variable("wheel", "wheels.torque")
    wheel_force_x: np.ndarray = _variable("wheel", "wheels.force_x")
    wheel_force_y: np.ndarray = _variable("wheel", "wheels.force_y")
    wheel_yaw: np.ndarray = _variable("wheel", "wheels.yaw")
    wheel_cos: np.ndarray = _variable("wheel", "wheel_cos")
    wheel_sin: np.ndarray = _variable("wheel", "wheel_sin")
    hold_torque: np.ndarray = _variable("wheel", "wheels.hold_torque")
    pid_i_term: np.ndarray = _variable("wheel", "controllers.i_term")
    pid_d_state: np.ndarray = _variable("wheel", "controllers.d_state")
    pid_last_error: np.ndarray = _variable("wheel", "controllers.last_error")
    pid_ref_y1: np.ndarray = _variable("wheel", "controllers.ref_y1")
    pid_ref_y2: np.ndarray = _variable("wheel", "controllers.ref_y2")
    pid_first: np.ndarray = _variable("wheel", "controllers.first")
    raw_torque: np.ndarray = _variable("wheel", "controllers.raw_torque")
    steering_angle: np.ndarray = _variable("steering", "steering.delta")
    motor_i_term: np.ndarray = _variable("drivetrain", "drivetrains.motor.i_term")
    motor_d_state: np.ndarray = _variable("drivetrain", "drivetrains.motor.d_state")
    motor_last_error: np.ndarray = _variable("drivetrain", "drivetrains.motor.last_error")
    motor_ref_y1: np.ndarray = _variable("drivetrain", "drivetrains.motor.ref_y1")
    motor_ref_y2: np.ndarray = _variable("drivetrain", "drivetrains.motor.ref_y2")
    motor_first: np.ndarray = _variable("drivetrain", "drivetrains.motor.first")
    motor_raw_torque: np.ndarray = _variable("drivetrain", "drivetrains.motor.raw_torque")
    pivot_angle: np.ndarray = _variable("articulation", "articulations.gamma")
    pivot_rate: np.ndarray = _variable("articulation", "articulations.gamma_rate")
    pivot_target: np.ndarray = _variable("articulation", "articulations.target")
    block_pose3: np.ndarray = _variable("block", "block_pose3")
    mover_poses: np.ndarray = _variable("mover", "movers.poses")
    terrain_state: np.ndarray = _variable("body", "terrain.state", terrain=True)
    point_ground: np.ndarray = _variable("support_point", "terrain.point_ground", terrain=True)

    @classmethod
    def read(cls, sim) -> "SimulationState":
        """A copy of every field's live value on `sim` (a Simulation)."""
        values = {}
        for f in dataclasses.fields(cls):
            value = attrgetter(f.metadata["at"])(sim)
            values[f.name] = value if f.metadata["rows"] == "clock" else np.array(value, copy=True)
        return cls(**values)

    def write(self, sim) -> None:
        """Every field into `sim` (a Simulation): arrays written in place (the step's groups hold views of them),
        the clock set. Raises ValueError, before writing anything, for an array whose shape differs from the
        live one (a state of another world)."""
        fields = dataclasses.fields(self)
        for f in fields:
            if f.metadata["rows"] != "clock":
                live, value = attrgetter(f.metadata["at"])(sim), getattr(self, f.name)
                if np.shape(value) != live.shape:
                    raise ValueError(f"state field {f.name}: shape {np.shape(value)}, the simulation's is "
                                     f"{live.shape}")
        for f in fields:
            path, value = f.metadata["at"], getattr(self, f.name)
            if f.metadata["rows"] == "clock":  # an attribute of the simulation itself
                setattr(sim, path, value)
            else:
                attrgetter(path)(sim)[...] = value

    def carried(self, into: "SimulationState", rows: "RowMap", terrain: bool) -> "SimulationState":
        """`into` (the state of a simulation with other vehicles or blocks, changed in place and returned) with
        this state's values at the rows `rows` maps, field by field, and this state's clock. Terrain fields only
        when `terrain` (both simulations run the terrain phase)."""
        for f in dataclasses.fields(self):
            space = f.metadata["rows"]
            if f.metadata["terrain"] and not terrain:
                continue
            if space == "clock":
                setattr(into, f.name, getattr(self, f.name))
            else:
                new_rows, old_rows = rows.pairs[space]
                getattr(into, f.name)[new_rows] = getattr(self, f.name)[old_rows]
        return into


#: A row label: (entity kind "vehicle" / "block" / "actor", entity index, part...), e.g. ("vehicle", 3, 1) for
#: the second wheel of vehicle 3, ("vehicle", 2, 1) in "body" for vehicle 2's front unit.
RowLabel = tuple


@dataclass(frozen=True)
class StateRows:
    """What each row of each row space belongs to: labels[space][row] is a RowLabel."""

    labels: dict[str, list[RowLabel]]

    @classmethod
    def build(cls, vehicle_count: int, wheel_vehicle: np.ndarray, steering_vehicle: np.ndarray,
              drivetrain_vehicle: np.ndarray, articulation_vehicle: np.ndarray, block_count: int,
              animated_blocks: np.ndarray, actor_count: int, support_point_start: np.ndarray) -> "StateRows":
        """The rows of a simulation: wheel_vehicle (W,): each wheel's vehicle (each vehicle's wheels contiguous);
        steering_vehicle, drivetrain_vehicle, articulation_vehicle: the vehicle of each row of those tables;
        animated_blocks: the keyframe-animated blocks (the first movers); support_point_start (B + 1,): where
        each body's support points start."""
        vehicles = [("vehicle", k, 0) for k in range(vehicle_count)]
        first = np.searchsorted(wheel_vehicle, np.arange(vehicle_count)).tolist()
        wheels = [("vehicle", v, i - first[v]) for i, v in enumerate(wheel_vehicle.tolist())]
        bodies = vehicles + [("vehicle", v, 1) for v in articulation_vehicle.tolist()]
        start = support_point_start.tolist()
        points = [(kind, index, part, j) for b, (kind, index, part) in enumerate(bodies)
                  for j in range(start[b + 1] - start[b])]
        labels = {
            "vehicle": vehicles, "wheel": wheels, "body": bodies, "support_point": points,
            "steering": [("vehicle", v, 0) for v in steering_vehicle.tolist()],
            "drivetrain": [("vehicle", v, 0) for v in drivetrain_vehicle.tolist()],
            "articulation": [("vehicle", v, 0) for v in articulation_vehicle.tolist()],
            "block": [("block", b, 0) for b in range(block_count)],
            "mover": ([("block", b, 0) for b in animated_blocks.tolist()]
                      + [("actor", a, 0) for a in range(actor_count)]),
        }
        return cls(labels)


@dataclass(frozen=True)
class RowMap:
    """How the rows of an old state map to those of a new one, per row space: pairs[space] = (new rows, old rows)
    intp arrays; fresh[space]: the new rows with no old one (entities that are new)."""

    pairs: dict[str, tuple[np.ndarray, np.ndarray]]
    fresh: dict[str, np.ndarray]

    @classmethod
    def between(cls, old: StateRows, new: StateRows, sources: dict[str, list[int]]) -> "RowMap":
        """The map from `old`'s rows to `new`'s, where sources[kind][k] is the index in the old simulation of the
        new simulation's entity k of that kind ("vehicle", "block"), or -1 for a new one; kinds not given keep
        their indices (actors)."""
        pairs, fresh = {}, {}
        for space in ROW_SPACES:
            old_row = {label: r for r, label in enumerate(old.labels[space])}
            found, unmatched = [], []
            for r, (kind, index, *part) in enumerate(new.labels[space]):
                source = sources[kind][index] if kind in sources else index
                q = old_row.get((kind, source, *part)) if source >= 0 else None
                if q is None:
                    unmatched.append(r)
                else:
                    found.append((r, q))
            table = np.array(found, dtype=np.intp).reshape(-1, 2)
            pairs[space] = (table[:, 0], table[:, 1])
            fresh[space] = np.array(unmatched, dtype=np.intp)
        return cls(pairs, fresh)


__all__ = ["ROW_SPACES", "RowLabel", "RowMap", "SimulationState", "StateRows", "StepGroups"]
