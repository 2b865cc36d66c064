"""The browser viewer's wire protocol: what the simulator sends to the page and what the page sends back.

Transport: one WebSocket per page at ``/ws`` on the viewer's HTTP server (the page itself is served from ``/``).
Browsers may open it only from the page's own origin or an allowed one, with ``/ws?token=...`` when the run has a
token (the page passes on the ``token`` of its own address); see access.py. A page may send at most
server.PAGE_MESSAGE_RATE messages a second.
Everything is little-endian; lengths are SI (m, s, rad) and the world frame is ROS's: x east/forward, y left,
z up (REP-103). three.js is y-up, so the page puts the whole world under one group rotated -pi/2 about x.

Server -> page
--------------
1. **scene** (text, JSON) — sent on connect and whenever the simulation is rebuilt (reset, spawn, delete):
   ``{"type": "scene", "version": int, "world": str, "dt": float, "gui": {...}, "bounds": [...], "meshes": [...],
   "vehicles": [...], "wheels": [...], "lidars": [...], "lidars3d": [...], "cameras": [...]}``

   - ``gui``: the world's ``<gui>`` camera hints: ``cam_distance`` [m], ``cam_azimuth`` [rad],
     ``cam_elevation`` [rad], ``fov`` [rad], ``follow_vehicle`` (name or ""), ``cam_point_to`` [x, y, z],
     ``from_world`` (bool: the world's ``<gui>`` sets the camera's place or a vehicle to follow: the page's first
     view is that camera; otherwise the first view frames the whole world, ``bounds``).
   - ``bounds``: [[x_min, y_min], [x_max, y_max]] [m] of the world's content (the page's "fit world" view).
   - ``meshes``: triangles to draw, each ``{"name": str, "group": GROUP, "index": int, "vertices": B64,
     "indices": B64 | null, "double_sided": bool, "cull_face": "NONE" | "FRONT" | "BACK", "roof": bool}``.
     ``vertices`` is base64 of float32 rows of 9 values
     ``(x, y, z, nx, ny, nz, r, g, b)`` (colours 0..1) in the object's own frame; ``indices`` base64 of uint32
     triangle corners (null: consecutive triples). ``cull_face`` is the world file's face culling (MVSim's: a
     ceiling with FRONT is not drawn from above); ``roof``: a horizontal plane at or above ROOF_MIN_HEIGHT (the
     page's "roofs" toggle hides those). ``group`` says which pose table of the frame places it and
     ``index`` is its row there: ``"static"`` (ground, walls, occupancy grids, vertical planes, terrain: world
     frame, index -1), ``"plane"`` (horizontal planes: ``planes`` rows), ``"block"`` (``blocks`` rows),
     ``"body"`` (vehicle chassis and articulated front units: ``bodies`` rows), ``"actor"`` (``actors`` rows).
   - ``vehicles``: ``{"name": str, "body": int, "steerable": bool, "articulated": bool, "color": "#rrggbb",
     "accent": "#rrggbb", "footprint": bool, "outline": [[x, y], ...], "height": float}`` in the simulation's
     vehicle order; ``body``
     is its row in ``bodies``; ``outline`` is the chassis polygon in the vehicle's frame [m] (drawn on the
     ground, red while the vehicle collides); ``accent`` is a colour distinct from every other vehicle's (its
     chassis colour when no other vehicle has it) for its outline, trail, label and legend entry; ``height``
     is the chassis top [m] (the name label goes above it).
     ``steerable``: takes (speed, steering angle) commands (Ackermann and articulated); otherwise (v, omega).
   - ``wheels``: every wheel of every vehicle, in the simulation's wheel order: ``{"body": int, "x": float,
     "y": float, "z": float, "radius": float, "width": float, "color": "#rrggbb"}`` (mount in the body's frame;
     z is the axle height, = radius).
   - ``lidars`` / ``lidars3d`` / ``cameras``: ``{"name": str, "vehicle": str}`` in sensor order (``vehicle``
     "" for world-level sensors).

2. **frame** (binary), at the viewer rate (default 25 Hz of wall time): ``u32 n`` then ``n`` bytes of JSON
   header, zero-padded to a multiple of 4 bytes, then float32 arrays back to back. Header:
   ``{"type": "frame", "version": int (the scene it belongs to), "time": float [s], "paused": bool,
   "rtf": float (measured real-time factor), "rtf_target": float (the real-time factor aimed at; 0: as fast as
   possible), "arrays": [[name, rows, cols], ...]}``; the arrays follow in
   that order, each rows x cols float32, row-major. Names:

   - ``bodies`` (B x 6): x, y, z, yaw, pitch, roll of every vehicle body then every front unit;
   - ``blocks`` (K x 6), ``planes`` (P x 6): same columns; ``actors`` (A x 4): x, y, z, yaw;
   - ``vehicles`` (V x 8), one row per vehicle: x [m], y [m], yaw [rad] of its reference point (world frame),
     forward speed and lateral speed [m/s] (vehicle frame), yaw rate [rad/s], steering angle [rad] (Ackermann:
     the equivalent front angle; articulated: the pivot angle; else 0) and collision (1: touching a wall, block
     or vehicle now, else 0);
   - ``wheels`` (W x 3): spin angle phi [rad] (about the axle, positive rolling forward), steering yaw [rad] in
     the body frame and spin rate omega [rad/s];
   - ``scan:<k>`` (N+1 x 3): lidar k's origin (row 0) then the world-frame end point of every ray (a ray
     with no return ends at the lidar's max range); absent until the lidar has scanned;
   - ``points:<k>`` (M x 3): 3D lidar k's latest points, world frame (at most MAX_CLOUD_POINTS, evenly
     subsampled);
   - ``footprint:<i>`` (F x 2): the dynamic footprint polygon of vehicle i (towing a trailer), world frame.

3. **image** (binary), only for the camera the page chose, at most IMAGE_RATE_HZ: same framing with header
   ``{"type": "image", "camera": int, "time": float, "mime": "image/jpeg", "bytes": int}`` followed by the
   encoded image bytes (no float arrays).

4. **trails** (binary), right after each scene a page receives: the vehicles' recent paths as the simulation's
   owner kept them (TrailHistory: at most TRAIL_POINTS points, TRAIL_MIN_STEP apart), framed as a frame with
   header ``{"type": "trails", "version": int, "vehicles": [name, ...], "arrays": [...]}`` and one array
   ``trail:<i>`` (N x 2: x, y [m], oldest first) per vehicle, in the scene's vehicle order.

Page -> server (text, JSON)
---------------------------
- ``{"type": "drive", "vehicle": str, "v": float, "w": float}``: forward speed [m/s] and yaw rate [rad/s],
  the same path as ``cmd_vel`` (NaN guard, clamping, watchdog). The page sends it every DRIVE_REPEAT_S while
  a drive key is held and once with zeros on release or space.
- ``{"type": "steer", "vehicle": str, "speed": float, "angle": float}``: speed [m/s] and steering angle [rad]
  for a steerable vehicle, the same path as ``ackermann_cmd``; same repetition.
- ``{"type": "control", "action": "pause" | "play" | "step" | "reset", "steps": int}``: run state; ``steps``
  only for "step" (default 1). Controls arriving together are merged (a burst of resets is one reset, the steps
  add up to at most MAX_STEPS) and resets run at most once per RESET_INTERVAL_S of wall time (a later one waits
  its turn): see link.py.
- ``{"type": "camera", "index": int | null}``: which camera's images to receive (null: none).
- ``{"type": "set_pose", "vehicle": str, "x": float, "y": float, "yaw": float}``: put a vehicle at a planar pose
  of the world frame [m, m, rad] with zero velocity, the same path as ``initialpose`` (a pose the simulation
  refuses, e.g. beyond the world bounds, is ignored with a warning).
- ``{"type": "goal", "vehicle": str, "x": float, "y": float, "yaw": float}``: a navigation goal for the vehicle
  named (the page sends the one selected); under ROS it is published as geometry_msgs/PoseStamped on that
  vehicle's ``<veh>/goal_pose`` (frame ``map``; the same topic prefix as its ``cmd_vel``: ``r2/goal_pose`` with
  several vehicles, ``goal_pose`` with one and no forced namespace), as rviz's "2D Goal Pose" tool does;
  ``mvsim_view`` has no planner and only shows it.

  In both, ``vehicle`` must be a vehicle of the current scene, |x| and |y| at most MAX_COORD and |yaw| at most
  MAX_YAW; of those arriving together only the newest per vehicle is applied.

A page that falls behind gets only the newest frame: the server keeps one pending frame per page and drops
older ones, so a slow or closed tab never blocks the simulation.
"""

from __future__ import annotations

import math

#: Default TCP port of the viewer's HTTP/WebSocket server.
DEFAULT_PORT = 8090
#: Default address it binds (loopback: only this machine can open the page).
DEFAULT_HOST = "127.0.0.1"
#: Frames per second of wall time sent to each page.
DEFAULT_RATE_HZ = 25.0
#: Camera images per second of wall time, at most, to the page that asked for them.
IMAGE_RATE_HZ = 5.0
#: Most points of one 3D lidar cloud sent per frame.
MAX_CLOUD_POINTS = 20000
#: Seconds between repeated drive/steer messages while a key is held (the watchdog is 1 s by default).
DRIVE_REPEAT_S = 0.1
#: Mesh groups and the pose table (frame array) that places each.
MESH_GROUPS = {"static": None, "plane": "planes", "block": "blocks", "body": "bodies", "actor": "actors"}
#: Run-state actions a page may ask for.
CONTROL_ACTIONS = ("pause", "play", "step", "reset")
#: Least wall time between two resets asked by pages [s] (a reset rebuilds the simulation: tens of ms).
RESET_INTERVAL_S = 0.5
#: Most steps one "step" control may ask for, and most steps page controls may have waiting at once.
MAX_STEPS = 100000
#: Largest |x| or |y| [m] a page may ask for in set_pose or goal.
MAX_COORD = 1.0e5
#: Largest |yaw| [rad] a page may send in set_pose or goal.
MAX_YAW = math.tau
#: Page messages that name a vehicle and a planar pose.
POSE_MESSAGES = ("set_pose", "goal")
