"""Terrain under the wheels: ground height for all wheels at once, 3D pose of every body, slope gravity.

What MVSim does (read in MRPT/mvsim; summarised in our words):

* Ground query (``World.cpp``: ``getElevationsAt`` / ``getHighestElevationUnder``): every world element and block
  may report a height at (x, y): an elevation map (``ElevationMap::getElevationAt``: the grid cell split into two
  triangles along its (0,0)-(1,1) diagonal, linear on each; nothing outside the grid), a horizontal plane
  (``HorizontalPlane::getElevationAt``: its height inside its x/y extent, at its *current* pose, so animated
  planes lift what stands on them), a block (``Block::getElevationAt``: inside its outline, ``z + lz x / lx`` for
  a ramp, ``z + lz sqrt(1 - (2y/ly)^2)`` for a semi-cylinder bump, ``z + zmax`` for anything else). The heights
  form a set; a point queried from height z gets the highest one not above z, and 0 when there is none (also
  when the only ones are above z). That is how stacked floors work: a wheel looks one step up from where it
  stands and finds the floor it is on, not the one above.
* Terrain phase (``World_simul.cpp``, ``internal_simul_pre_step_terrain_elevation``, run before the controllers
  and friction of every step): for each vehicle, each wheel's contact point (x, y, 0) is placed with the
  vehicle's 3D pose and the ground is queried at it from one wheel radius above (the axle height: that radius is
  the step a wheel climbs). A rigid SE(3) fit of the local contact points to (x, y, ground) (Horn's method, scale
  fixed to 1) gives z, pitch and roll; x, y and yaw stay Box2D's. Two passes per step, each from the pose the
  last one found. All heights equal: z is that height and the vehicle is level. A two-wheel vehicle uses the
  anchor of its first joint as a third point (queried from 0.5 m up); a two-wheel vehicle without a joint is
  only updated when both wheels find the same height (otherwise its z, pitch and roll stay as they were).
* Slope gravity (MVSim docs, "Gravity Slope Handling"; ``VehicleBase.cpp``, the friction models): "down" in the
  vehicle frame, R^T (0, 0, -1), times (chassis mass / wheels + wheel mass) g gives each wheel's gravity along the
  ground. It is handed to the friction model, which adds it laterally to the impulse that cancels side slip (before
  the Coulomb clamp) and longitudinally to the contact-patch force with the capacity traction leaves (outside the
  wheel's spin balance), and it is applied to the chassis at the wheel: below the friction limit the two cancel
  and a vehicle stays put with no torque; beyond it the vehicle slides. MVSim keeps the flat-ground load
  m g / n on each wheel; twist_ideal vehicles get neither friction nor gravity forces. Blocks keep the z they were
  loaded with (raised onto the surface under them then); actors follow their waypoints' z.
* Also in MVSim's terrain phase: terrain that rises more than 0.55 wheel diameters above a vehicle's wheels
  around its outline becomes a Box2D obstacle (steep steps block it). Not simulated here yet.

What we do, and where it differs (each on purpose):

* Same query (`surfaces.py`, one numba call for all points), same step rule, same triangles as the rendered
  terrain mesh; NaN samples of a DEM make their cells "no surface" (the mesh leaves them out). Blocks that no wheel
  can ever reach (top higher than one step above every other surface) are left out of the per-step query.
* The fit (`contacts.py`) is a least-squares plane through the ground under the contact points, in the horizontal
  frame of the body's yaw: identical to Horn's fit when the contacts are coplanar (3 wheels, any plane; 4+
  wheels on a uniform slope), the vertical least-squares compromise otherwise. Two passes per step as MVSim, run
  right after the Box2D step so the reported 3D pose matches the planar one (MVSim's next step starts from it).
  Bodies whose wheels do not span a plane get MVSim's joint anchor (or the articulation pivot), and without one
  the ends of their chassis outline across the wheel axis: a two-wheel robot pitches with the ground under it
  instead of keeping a stale pose. Articulated front units are fitted as bodies of their own.
* Normal loads are the flat-ground share times cos(pitch) cos(roll) (a tilted wheel presses less on the ground;
  MVSim keeps m g / n), so the friction limit on a slope theta is mu m g cos(theta).
* The slope force the contact patch holds is reported as the torque the wheel's drivetrain carries to hold it
  (`WheelArrays.hold_torque` = R F_hold): in MVSim's model that load never reaches the motor controller (a
  vehicle at rest on a slope needs no torque, one climbing at constant speed neither), so `torque` (the
  controller's) plus `hold_torque` is what the wheel's drive delivers: m g sin(theta) R / n per wheel on a climb.
* Box2D-driven blocks follow the ground under their origin each step (MVSim leaves them at their loaded z);
  static blocks keep their loaded z; ``skip_elevation_adjust`` keeps a block's z as given. Actors: as MVSim.

Modules: surfaces (what the ground is and the query), contacts (support points, fit, slope loads), phase (the
per-step terrain phase of the Simulation), orientation (quaternions and rotation matrices from yaw/pitch/roll).
"""

from mvsim_ros.physics.terrain.orientation import (body_angular_velocity, gravity_in_body, orientation_quaternions,
                                                   rotation_matrices)
from mvsim_ros.physics.terrain.phase import Terrain
from mvsim_ros.physics.terrain.surfaces import TerrainSurfaces

__all__ = ["Terrain", "TerrainSurfaces", "body_angular_velocity", "gravity_in_body", "orientation_quaternions",
           "rotation_matrices"]
