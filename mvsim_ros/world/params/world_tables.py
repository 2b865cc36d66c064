"""Parameter tables of the world and its objects (see table.py): the world's own tags and its <gui>, <lights> and
<georeference> blocks, the file-structure tags (include, variable, for, if, classes), markers, walls, joints, blocks,
every element class, actors and <visual>."""

from __future__ import annotations

from mvsim_ros.world.params.table import GUI_ONLY, NOT_SIMULATED, Param, ParamTable

_GROUP = "group"
_RAWLOG = "MVSim's MRPT .rawlog output; record with the CSV logs or MCAP recording here"
_ZMQ = "MVSim's ZMQ communication server; this simulator talks ROS 2 only"
_NOT_IN_MVSIM = "not read by MVSim (audited version); read here for worlds written for other MVSim versions"
_VIEWER = "sets the browser viewer's initial camera"
_LIGHTS = "lighting of MVSim's OpenGL scenes; the sensor renderer here lights its scene its own way"


def _section(name: str, meaning: str) -> Param:
    return Param(name, _GROUP, None, "", meaning)


WORLD = ParamTable("world", (
    Param("version", "str", "1.0", "", "world-file format version 'major.minor' (its syntax is checked, nothing "
          "else)", attribute=True),
    Param("server_address", "str", "localhost", "", "host of MVSim's ZMQ communication server",
          support=NOT_SIMULATED, note=_ZMQ),
    Param("gravity", "float", 9.81, "m/s^2", "gravity: wheel loads, friction limits and slopes",
          quantity="gravity"),
    Param("simul_timestep", "float", 0.0, "s", "fixed physics step; 0 = automatic: 5 ms, or the shortest "
          "sensor_period of the vehicles' sensors when that is shorter"),
    Param("b2d_vel_iters", "int", 8, "", "Box2D velocity-solver iterations per step",
          quantity="solver_iterations"),
    Param("b2d_pos_iters", "int", 3, "", "Box2D position-solver iterations per step",
          quantity="solver_iterations"),
    Param("collision_threshold", "float", 0.03, "m", "a body is in collision when another body's shape is "
          "closer than this (or touching)", quantity="collision_threshold"),
    Param("joystick_enabled", "bool", False, "", "drive the vehicle selected in MVSim's GUI with a gamepad",
          support=GUI_ONLY, note="MVSim's GUI reads the gamepad; use a ROS joystick node with cmd_vel here"),
    Param("save_to_rawlog", "str", "", "", "write every sensor observation to this MRPT .rawlog file",
          support=NOT_SIMULATED, note=_RAWLOG),
    Param("rawlog_odometry_rate", "float", 10.0, "Hz", "rate of odometry entries in the .rawlog",
          support=NOT_SIMULATED, note=_RAWLOG),
    Param("save_ground_truth_trajectory", "str", "", "", "if set, each vehicle's true trajectory is written to "
          "this file name with its extension replaced by '<vehicle>.txt' (rows: t x y z qx qy qz qw)"),
    Param("ground_truth_rate", "float", 50.0, "Hz", "rows per second of the ground-truth trajectory files",
          quantity="element_size"),
    Param("max_slope_to_collide", "float", 0.3, "", "upper terrain slope of a collision",
          support=NOT_SIMULATED, note="MVSim reads it and never uses it"),
    Param("min_slope_to_collide", "float", -0.5, "", "lower terrain slope of a collision",
          support=NOT_SIMULATED, note="MVSim reads it and never uses it"),
    _section("vehicle", "a vehicle (see `vehicle`)"),
    _section("vehicle:class", "a vehicle template, used by `<vehicle class=...>`"),
    _section("block", "an obstacle block (see `block`)"),
    _section("block:class", "a block template, used by `<block class=...>`"),
    _section("element", "a world element; its class attribute picks the kind (see `element.*`)"),
    _section("sensor", "a sensor fixed in the world (see `sensor.*`)"),
    _section("gui", "MVSim's GUI options (see `world.gui`)"),
    _section("georeference", "where the world is on Earth (see `world.georeference`)"),
    _section("lights", "lighting and shadows (see `world.lights`)"),
    _section("walls", "static walls from point pairs or a 3D model (see `walls`)"),
    _section("include", "another XML file read in place (see `world.include`)"),
    _section("variable", "a user variable for `${NAME}` (see `world.variable`)"),
    _section("for", "repeats its children for an integer variable (see `world.for`)"),
    _section("if", "its children only when the condition holds (see `world.if`)"),
    _section("marker", "a drawn line strip (see `marker`)"),
    _section("joint", "a joint between two bodies (see `joint`)"),
    _section("actor", "an animated pedestrian (see `actor`)"),
    _section("actor:class", "an actor template, used by `<actor class=...>`"),
), "The children and attributes of `<mvsim_world>`. A world with no `<simul_timestep>` (or 0) steps at 5 ms, or "
   "at the shortest `sensor_period` of the sensors mounted on its vehicles when that is shorter.")

WORLD_GUI = ParamTable("world.gui", (
    Param("win_w", "int", 800, "px", "initial window width", support=GUI_ONLY, note="MVSim's GUI window",
          quantity="window_size"),
    Param("win_h", "int", 600, "px", "initial window height", support=GUI_ONLY, note="MVSim's GUI window",
          quantity="window_size"),
    Param("ortho", "bool", False, "", "orthographic camera", support=GUI_ONLY, note="MVSim's GUI camera"),
    Param("show_forces", "bool", False, "", "draw wheel and body forces", support=GUI_ONLY,
          note="MVSim's GUI drawing"),
    Param("show_sensor_points", "bool", True, "", "draw sensor points", support=GUI_ONLY,
          note="MVSim's GUI drawing"),
    Param("force_scale", "float", 0.01, "m/N", "length of drawn force arrows per newton", support=GUI_ONLY,
          note="MVSim's GUI drawing"),
    Param("fov_deg", "deg", 60.0, "rad", "vertical field of view of the camera", note=_VIEWER, quantity="angle"),
    Param("follow_vehicle", "str", "", "", "vehicle the camera follows (empty: none)", note=_VIEWER),
    Param("start_maximized", "bool", True, "", "open the window maximised", support=GUI_ONLY,
          note="MVSim's GUI window"),
    Param("refresh_fps", "int", 20, "Hz", "GUI refresh rate", support=GUI_ONLY, note="MVSim's GUI window",
          quantity="window_size"),
    Param("headless", "bool", False, "", "run without a window", support=GUI_ONLY,
          note="this simulator never opens a window; the browser viewer is optional"),
    Param("clip_plane_min", "float", 0.05, "m", "near clipping distance", support=GUI_ONLY,
          note="MVSim's GUI camera", quantity="element_size"),
    Param("clip_plane_max", "float", 10000.0, "m", "far clipping distance", support=GUI_ONLY,
          note="MVSim's GUI camera", quantity="element_size"),
    Param("cam_distance", "float", 80.0, "m", "camera distance to the point it looks at", note=_VIEWER,
          quantity="element_size"),
    Param("cam_azimuth", "deg", 45.0, "rad", "camera azimuth", note=_VIEWER, quantity="angle"),
    Param("cam_elevation", "deg", 40.0, "rad", "camera elevation", note=_VIEWER, quantity="angle"),
    Param("cam_point_to", "floats", [0.0, 0.0, 0.0], "m", "point the camera looks at, 'x y [z]'", note=_VIEWER,
          quantity="position"),
    Param("show_sensor_previews", "bool", True, "", "show sensor image previews", support=GUI_ONLY,
          note=_NOT_IN_MVSIM),
    Param("show_gui_panels", "bool", True, "", "show the GUI's panels", support=GUI_ONLY, note=_NOT_IN_MVSIM),
    Param("show_trajectories", "bool", False, "", "draw vehicle trajectories", support=GUI_ONLY,
          note=_NOT_IN_MVSIM),
), "`<gui>`: MVSim's desktop GUI. The camera settings set the browser viewer's first view; the rest is "
   "accepted and warned about once.")

WORLD_LIGHTS = ParamTable("world.lights", (
    Param("enable_shadows", "bool", True, "", "cast shadows", support=NOT_SIMULATED, note=_LIGHTS),
    Param("shadow_map_size", "int", 2048, "px", "shadow map size", support=NOT_SIMULATED, note=_LIGHTS,
          quantity="window_size"),
    Param("light_azimuth_deg", "deg", 45.0, "rad", "azimuth of the directional light", support=NOT_SIMULATED,
          note=_LIGHTS, quantity="angle"),
    Param("light_elevation_deg", "deg", 70.0, "rad", "elevation of the directional light",
          support=NOT_SIMULATED, note=_LIGHTS, quantity="angle"),
    Param("light_clip_plane_min", "float", 0.1, "m", "near plane of the shadow frustum", support=NOT_SIMULATED,
          note=_LIGHTS, quantity="element_size"),
    Param("light_clip_plane_max", "float", 900.0, "m", "far plane of the shadow frustum", support=NOT_SIMULATED,
          note=_LIGHTS, quantity="element_size"),
    Param("light_color", "color", "#ffffff", "", "light colour", support=NOT_SIMULATED, note=_LIGHTS),
    Param("shadow_bias", "float", 1e-5, "", "shadow depth bias", support=NOT_SIMULATED, note=_LIGHTS),
    Param("shadow_bias_cam2frag", "float", 1e-5, "", "shadow bias along the view ray", support=NOT_SIMULATED,
          note=_LIGHTS),
    Param("shadow_bias_normal", "float", 1e-4, "", "shadow bias along the surface normal", support=NOT_SIMULATED,
          note=_LIGHTS),
    Param("light_ambient", "float", 0.5, "", "ambient light intensity (0..1)", support=NOT_SIMULATED,
          note=_LIGHTS, quantity="fraction"),
    Param("eye_distance_to_shadow_map_extension", "float", 2.0, "m/m", "shadow-map extent per metre of eye "
          "distance", support=NOT_SIMULATED, note=_LIGHTS, quantity="element_size"),
    Param("minimum_shadow_map_extension_ratio", "float", 0.005, "", "smallest shadow-map extent ratio (0..1)",
          support=NOT_SIMULATED, note=_LIGHTS, quantity="fraction"),
    Param("disable_lights_on_high_cpu_usage", "bool", True, "", "turn lights off when the CPU is busy",
          support=NOT_SIMULATED, note=_NOT_IN_MVSIM),
    Param("shadow_cascades", "int", 4, "", "shadow cascades of the GUI view (1..4)", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM),
    Param("sensor_shadow_cascades", "int", 1, "", "shadow cascades of sensor renders (1..4)",
          support=NOT_SIMULATED, note=_NOT_IN_MVSIM),
    Param("light_diffuse", "float", 0.8, "", "diffuse intensity (0..1)", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM),
    Param("light_specular", "float", 0.6, "", "specular intensity (0..1)", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM),
    Param("ambient_sky_color", "color", "#e0e8ff", "", "ambient colour from above", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM),
    Param("ambient_ground_color", "color", "#403a30", "", "ambient colour from below", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM),
    Param("point_light", _GROUP, None, "", "an extra point light", support=NOT_SIMULATED, note=_NOT_IN_MVSIM),
    Param("spot_light", _GROUP, None, "", "an extra spot light", support=NOT_SIMULATED, note=_NOT_IN_MVSIM),
), "`<lights>`: the directional light and shadows of MVSim's rendered scenes; accepted and warned about once.")

WORLD_GEOREFERENCE = ParamTable("world.georeference", (
    Param("latitude", "float", 0.0, "deg", "latitude of the world origin (WGS84)"),
    Param("longitude", "float", 0.0, "deg", "longitude of the world origin (WGS84)"),
    Param("height", "float", 0.0, "m", "ellipsoidal height of the world origin", quantity="position"),
    Param("world_to_enu_rotation_deg", "deg", 0.0, "rad", "rotation of the world frame from East-North-Up "
          "(0: +x points East)", quantity="angle"),
    Param("world_is_utm", "bool", False, "", "world x, y are UTM easting and northing [m]: the reference point's "
          "UTM coordinates are subtracted before the ENU conversion (needs latitude/longitude, no rotation)"),
), "`<georeference>`: where the world origin is on Earth (GNSS sensors).")

WORLD_INCLUDE = ParamTable("world.include", (
    Param("file", "str", None, "", "file to read in place (required), relative to the including file",
          attribute=True),
    Param("*", "str", None, "", "any other attribute defines a variable `${name}` inside the included file",
          attribute=True),
), "`<include file=... var=value/>` (read by the preprocessor, world/xml/preprocess.py).")

WORLD_VARIABLE = ParamTable("world.variable", (
    Param("name", "str", None, "", "variable name (required)", attribute=True),
    Param("value", "str", None, "", "its value (required); may use `${..}`, `$env{..}`, `$f{..}`", attribute=True),
), "`<variable name=... value=.../>`.")

WORLD_FOR = ParamTable("world.for", (
    Param("var", "str", None, "", "loop variable (required)", attribute=True),
    Param("from", "int", None, "", "first value, inclusive (required)", attribute=True),
    Param("to", "int", None, "", "last value, inclusive (required)", attribute=True),
), "`<for var=... from=... to=...>`: its children once per integer value.")

WORLD_IF = ParamTable("world.if", (
    Param("condition", "str", None, "", "children are read only if true: y/yes/true/on or a non-zero integer",
          attribute=True),
), "`<if condition=...>`.")

WORLD_CLASS_DEF = ParamTable("world.class_def", (
    Param("name", "str", None, "", "template name (required)", attribute=True),
), "`<vehicle:class>`, `<block:class>`, `<actor:class>`.")

MARKER = ParamTable("marker", (
    Param("type", "str", None, "", "marker kind; MVSim knows `line_strip` (required)", attribute=True),
    Param("color", "color", "#ffffff", "", "line colour", support=GUI_ONLY, note="drawn by MVSim's GUI only"),
    Param("translation", "floats", [0.0, 0.0, 0.0], "m", "offset added to every point, 'x y [z]'",
          support=GUI_ONLY, note="drawn by MVSim's GUI only", quantity="position"),
    Param("points", "str", None, "m", "the strip's points, 'x y z' rows (required)", support=GUI_ONLY,
          note="drawn by MVSim's GUI only"),
), "`<marker type=\"line_strip\">`: a drawn polyline, no physical effect.")

WALLS = ParamTable("walls", (
    Param("model_uri", "str", "", "", "3D model whose edges become walls (used without a `<shape>`)",
          support=NOT_SIMULATED, note="walls from a 3D model are not built here: give a <shape>"),
    Param("transformation", "str", "", "", "4x4 homogeneous matrix `[a b c d; ...]` applied to the points "
          "(empty: identity)"),
    Param("wallThickness", "float", 0.1, "m", "thickness of each wall box", quantity="wall_thickness"),
    Param("wallHeight", "float", 2.0, "m", "height of each wall box", quantity="element_size"),
    Param("scale", "float", 1.0, "", "scale of the model", support=NOT_SIMULATED,
          note="MVSim reads it and never applies it", quantity="element_size"),
    Param("color", "color", "#323232", "", "wall colour"),
    Param("shape", _GROUP, None, "m", "`<pt>x y</pt>` points; consecutive pairs are wall segments"),
), "`<walls>`: static wall boxes (MVSim's `wall_NNNN` blocks).")

JOINT = ParamTable("joint", (
    Param("type", "str", None, "", "`distance` (or `rope`) or `revolute` (or `pin`) (required)", attribute=True),
    Param("body_a", "str", None, "", "first body: a vehicle or block defined before (required)", attribute=True),
    Param("body_b", "str", None, "", "second body (required)", attribute=True),
    Param("anchor_a", "floats", None, "m", "anchor 'x y' in body A's frame (required by MVSim; absent: 0 0, "
          "warned)", attribute=True, quantity="body_coordinate"),
    Param("anchor_b", "floats", None, "m", "anchor 'x y' in body B's frame (required by MVSim; absent: 0 0, "
          "warned)", attribute=True, quantity="body_coordinate"),
    Param("max_length", "float", 5.0, "m", "distance joint: longest distance between the anchors, and the "
          "spring's rest length", attribute=True, quantity="joint_length"),
    Param("min_length", "float", 0.0, "m", "distance joint: shortest distance between the anchors (equal to "
          "max_length: a rigid rod)", attribute=True, quantity="joint_length"),
    Param("stiffness", "float", 0.0, "N/m", "distance joint: spring stiffness (0: no spring, a rope)",
          attribute=True, quantity="joint_stiffness"),
    Param("damping", "float", 0.0, "N.s/m", "distance joint: spring damping", attribute=True,
          quantity="joint_damping"),
    Param("enable_limit", "bool", False, "", "revolute joint: limit its angle", attribute=True),
    Param("lower_angle_deg", "deg", 0.0, "rad", "revolute joint: lower angle limit", attribute=True,
          quantity="angle"),
    Param("upper_angle_deg", "deg", 0.0, "rad", "revolute joint: upper angle limit", attribute=True,
          quantity="angle"),
), "`<joint .../>` (attributes). MVSim builds it with Box2D 2.4, which takes stiffness and damping in N/m and "
   "N.s/m; Box2D 2.3 here takes a frequency and a damping ratio, converted with the bodies' reduced mass m: "
   "f = sqrt(k/m) / 2 pi, ratio = c / (2 m 2 pi f). Between min_length (when above 0 and not max_length) and "
   "max_length only the upper limit is enforced here: Box2D 2.3 has no lower length limit (warned).")

_SIMULABLE_NOTE = "the pose and velocity tags MVSim reads for every simulable object"
BLOCK = ParamTable("block", (
    Param("name", "str", None, "", "unique name (default: block001, block002, ... in creation order)",
          attribute=True),
    Param("class", "str", None, "", "a `<block:class>` merged with this block", attribute=True),
    Param("mass", "float", 30.0, "kg", "block mass", quantity="mass"),
    Param("zmin", "float", None, "m", "bottom of the block (default 0, or from `<geometry>`/the model)",
          quantity="position"),
    Param("zmax", "float", None, "m", "top of the block (default 1, or from `<geometry>`/the model)",
          quantity="position"),
    Param("ground_friction", "float", 0.5, "", "block-ground Coulomb friction coefficient",
          quantity="friction_coefficient"),
    Param("lateral_friction", "float", 0.5, "", "friction with the bodies it touches (Box2D fixture friction)",
          quantity="friction_coefficient"),
    Param("restitution", "float", 0.01, "", "restitution of its collisions (0: no bounce, 1: elastic)",
          quantity="fraction"),
    Param("color", "color", "#0000ff", "", "colour"),
    Param("intangible", "bool", False, "", "drawn only: no collisions, not seen by sensors"),
    Param("static", "bool", False, "", "never moves (a Box2D static body)", aliases=("is_static",)),
    Param("visual_scale", "float", None, "", "this instance's scale of its `<visual>` model (default: the "
          "model's model_scale)", quantity="model_scale"),
    Param("linear_damping", "float", 0.1, "1/s", "Box2D linear damping: dv/dt = -c v", quantity="friction_parameter"),
    Param("angular_damping", "float", 0.1, "1/s", "Box2D angular damping: dw/dt = -c w",
          quantity="friction_parameter"),
    Param("shape", _GROUP, None, "m", "outline `<pt>x y</pt>` (default: a 1 m square centred on the origin)"),
    Param("geometry", _GROUP, None, "m", "a primitive `type=box|cylinder|sphere|ramp|semi_cylinder_bump` with "
          "its sizes: drawn, and (here always, MVSim only with `<shape_from_visual/>`) its outline collides; a "
          "box spans (0, 0, 0)..(lx, ly, lz) from the block's origin"),
    Param("shape_from_visual", _GROUP, None, "", "outline and zmin/zmax from the `<visual>` model's (or the "
          "geometry's) bounding box"),
    Param("visual", _GROUP, None, "", "3D model(s) (see `visual`)"),
    Param("init_pose", "str", "0 0 0", "m, m, deg", "start pose 'x y yaw' (" + _SIMULABLE_NOTE + ")"),
    Param("init_pose3d", "str", "0 0 0 0 0 0", "m, deg", "start pose 'x y z yaw pitch roll' (used without "
          "init_pose)"),
    Param("init_vel", "str", "0 0 0", "m/s, m/s, deg/s", "start velocity 'vx vy omega' in the block's frame"),
    Param("skip_elevation_adjust", _GROUP, None, "", "keep the given z instead of placing the block on the "
          "surface below"),
    Param("animation", _GROUP, None, "", "`<animation type=\"keyframes\">`: moves the block kinematically"),
    Param("publish", _GROUP, None, "", "MVSim's ZMQ publishing of the block's pose", support=NOT_SIMULATED,
          note=_ZMQ),
), "`<block>` and `<block:class>` children. Instance tags win over the class's here; MVSim reads the class's "
   "last, so there a class value overrides the instance's.")

BLOCK_GEOMETRY = ParamTable("block.geometry", (
    Param("type", "str", "", "", "box, cylinder, sphere, ramp or semi_cylinder_bump (required)", attribute=True),
    Param("radius", "float", 0.0, "m", "cylinder and sphere radius", attribute=True, quantity="geometry_size"),
    Param("length", "float", 0.0, "m", "cylinder height", attribute=True, quantity="geometry_size"),
    Param("lx", "float", 0.0, "m", "size along x", attribute=True, quantity="geometry_size"),
    Param("ly", "float", 0.0, "m", "size along y", attribute=True, quantity="geometry_size"),
    Param("lz", "float", 0.0, "m", "size along z", attribute=True, quantity="geometry_size"),
    Param("vertex_count", "int", 0, "", "facets of round shapes (0: 10)", attribute=True, quantity="vertex_count"),
), "`<geometry .../>` of a block (attributes; world/elements/block_geometry.py).")

ELEMENT_COMMON = ParamTable("element.common", (
    Param("class", "str", None, "", "element kind: ground_grid, occupancy_grid, elevation_map, horizontal_plane, "
          "vertical_plane, pointcloud, skybox or property_region (required)", attribute=True),
), "The attribute every `<element>` has (plus an optional `name`).")

ELEMENT_OCCUPANCY_GRID = ParamTable("element.occupancy_grid", (
    Param("file", "str", None, "", "map: a ROS map_server .yaml, an MRPT .gridmap(.gz) or an image (required)"),
    Param("resolution", "float", 0.1, "m", "cell size of an image map", quantity="element_size"),
    Param("centerpixel_x", "float", -1.0, "px", "image column of the world origin (negative: the image centre)",
          quantity="principal_point"),
    Param("centerpixel_y", "float", -1.0, "px", "image row of the world origin (negative: the image centre)",
          quantity="principal_point"),
    Param("occupancy_threshold", "float", 0.5, "", "occupancy above which an image cell is a wall",
          note=_NOT_IN_MVSIM + " (MRPT's threshold)", quantity="fraction"),
    Param("show_collisions", "bool", True, "", "draw the cells used as obstacles", support=GUI_ONLY,
          note="MVSim's GUI drawing"),
    Param("restitution", "float", 0.01, "", "restitution of the occupied cells", quantity="fraction"),
    Param("lateral_friction", "float", 0.5, "", "friction of the occupied cells", quantity="friction_coefficient"),
), "`<element class=\"occupancy_grid\">`: walls from a map. resolution, centerpixel_x/y apply to images only.")

ELEMENT_ELEVATION_MAP = ParamTable("element.elevation_map", (
    Param("elevation_image", "str", "", "", "grey image whose levels map onto [elevation_image_min_z, "
          "elevation_image_max_z]"),
    Param("texture_image", "str", "", "", "texture draped on the mesh (file or URL)"),
    Param("texture_image_rotate", "float", 0.0, "deg", "texture rotation: 0, 90, -90, 180 or -180"),
    Param("elevation_data_matrix", "str", "", "m", "heights written inline, `[z00 z01; z10 z11]`"),
    Param("elevation_data_matrix_scale", "float", 1.0, "", "factor applied to the elevation_data_matrix values",
          quantity="element_size"),
    Param("dem_xyzrgb_file", "str", "", "", "text file of 'x y z r g b' rows, resampled at `resolution`"),
    Param("dem_offset_x", "float", 0.0, "m", "added to the DEM file's x", quantity="position"),
    Param("dem_offset_y", "float", 0.0, "m", "added to the DEM file's y", quantity="position"),
    Param("dem_offset_z", "float", 0.0, "m", "added to the DEM file's z", quantity="position"),
    Param("elevation_image_min_z", "float", 0.0, "m", "height of the darkest grey", quantity="position"),
    Param("elevation_image_max_z", "float", 5.0, "m", "height of the brightest grey", quantity="position"),
    Param("corner_min_x", "float", None, "m", "x of the map's first sample (default: centred; a DEM: its "
          "smallest x)", quantity="position"),
    Param("corner_min_y", "float", None, "m", "y of the map's first sample (default: centred; a DEM: its "
          "smallest y)", quantity="position"),
    Param("mesh_color", "color", "#a0e0a0", "", "mesh colour without a texture"),
    Param("resolution", "float", 1.0, "m", "spacing of the samples", quantity="elevation_resolution"),
    Param("texture_extension_x", "float", 0.0, "m", "length one texture copy covers along x (0: the whole map)",
          aliases=("texture_size_x",), quantity="position"),
    Param("texture_extension_y", "float", 0.0, "m", "length one texture copy covers along y (0: the whole map)",
          aliases=("texture_size_y",), quantity="position"),
    Param("model_split_size", "float", 0.0, "m", "render the mesh in tiles this size (0: one mesh)",
          quantity="position"),
    Param("apply_kernel", "str", "", "", "odd square smoothing kernel applied to the heights, one row per line"),
    Param("debug_show_contact_points", "bool", False, "", "draw wheel contact points", support=GUI_ONLY,
          note=_NOT_IN_MVSIM),
), "`<element class=\"elevation_map\">`: a height field vehicles drive on. The first of elevation_image, "
   "elevation_data_matrix, dem_xyzrgb_file given is used. `texture_size_x/y` are read as the texture extension "
   "they stand for (MVSim ignores them on elevation maps).")

_PLANE_COMMON = (
    Param("color", "color", "#a0a0a0", "", "colour without a texture"),
    Param("enable_shadows", "bool", True, "", "take part in shadows", support=NOT_SIMULATED, note=_LIGHTS),
    Param("cull_face", "str", "NONE", "", "face culling: NONE, FRONT or BACK"),
    Param("texture", "str", "", "", "tiled texture (file or URL)"),
    Param("texture_size_x", "float", 1.0, "m", "texture tile size along the first axis", quantity="element_size"),
    Param("texture_size_y", "float", 1.0, "m", "texture tile size along the second axis", quantity="element_size"),
    Param("init_pose", "str", None, "m, m, deg", "pose 'x y yaw' of the plane's frame (" + _SIMULABLE_NOTE + ")"),
    Param("init_pose3d", "str", None, "m, deg", "pose 'x y z yaw pitch roll' (used without init_pose)"),
)

ELEMENT_HORIZONTAL_PLANE = ParamTable("element.horizontal_plane", (
    Param("x_min", "float", -10.0, "m", "smallest x", quantity="position"),
    Param("x_max", "float", 10.0, "m", "largest x", quantity="position"),
    Param("y_min", "float", -10.0, "m", "smallest y", quantity="position"),
    Param("y_max", "float", 10.0, "m", "largest y", quantity="position"),
    Param("z", "float", 0.0, "m", "height (the ground under every point inside)", quantity="position"),
    *_PLANE_COMMON,
    Param("animation", _GROUP, None, "", "`<animation type=\"keyframes\">` moving the plane (a lift)"),
    Param("init_vel", "str", None, "", "start velocity", support=NOT_SIMULATED, note="a plane has no body"),
    Param("skip_elevation_adjust", _GROUP, None, "", "keep the given z", support=NOT_SIMULATED,
          note="planes are not placed on the ground"),
    Param("publish", _GROUP, None, "", "MVSim's ZMQ publishing", support=NOT_SIMULATED, note=_ZMQ),
    Param("geo_corner_sw", "str", None, "", "south-west corner as latitude/longitude", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM),
    Param("geo_corner_ne", "str", None, "", "north-east corner as latitude/longitude", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM),
), "`<element class=\"horizontal_plane\">`: a floor, ceiling or table top.")

ELEMENT_VERTICAL_PLANE = ParamTable("element.vertical_plane", (
    Param("x0", "float", -10.0, "m", "x of the wall's start", quantity="position"),
    Param("x1", "float", -10.0, "m", "x of the wall's end", quantity="position"),
    Param("y0", "float", -10.0, "m", "y of the wall's start", quantity="position"),
    Param("y1", "float", 10.0, "m", "y of the wall's end", quantity="position"),
    Param("z", "float", 0.0, "m", "bottom of the wall", quantity="position"),
    Param("height", "float", 3.0, "m", "wall height", quantity="position"),
    Param("thickness", "float", 0.02, "m", "thickness of the collision box (half to each side)",
          quantity="wall_thickness"),
    *_PLANE_COMMON,
    Param("door", _GROUP, None, "", "a door: no collision across its width (see `element.vertical_plane."
          "opening`)"),
    Param("window", _GROUP, None, "", "a window: a hole in the drawing, still solid"),
    Param("animation", _GROUP, None, "", "keyframe animation", support=NOT_SIMULATED,
          note="a vertical plane's collision wall stays where x0..y1 put it"),
    Param("init_vel", "str", None, "", "start velocity", support=NOT_SIMULATED, note="a plane has no body"),
    Param("skip_elevation_adjust", _GROUP, None, "", "keep the given z", support=NOT_SIMULATED,
          note="planes are not placed on the ground"),
    Param("publish", _GROUP, None, "", "MVSim's ZMQ publishing", support=NOT_SIMULATED, note=_ZMQ),
), "`<element class=\"vertical_plane\">`: a straight wall that collides. init_pose moves its drawing only.")

_OPENING = (
    ("position", 0.5, "", "centre along the wall as a fraction of its length (clamped to 0..1)", ()),
    ("width", 1.0, "m", "width (<= 0: the opening is dropped)", ()),
    ("z_min", 0.0, "m", "bottom", ("z_start",)),
    ("z_max", 2.1, "m", "top", ("z_end",)),
)
ELEMENT_VERTICAL_PLANE_OPENING = ParamTable("element.vertical_plane.opening", (
    *(Param(name, "float", default, unit, meaning, aliases=aliases, attribute=True, quantity="position")
      for name, default, unit, meaning, aliases in _OPENING),
    Param("name", "str", "", "", "label", attribute=True),
    *(Param(name, "float", default, unit, meaning + " (child-tag form)", quantity="position")
      for name, default, unit, meaning, _ in _OPENING),
    Param("name", "str", "", "", "label (child-tag form)"),
), "`<door>` / `<window>` of a vertical plane: each value as an attribute or a child tag.")

_GRID = "drawn by MVSim's GUI only; the browser viewer draws its own grid"
ELEMENT_GROUND_GRID = ParamTable("element.ground_grid", (
    Param("floating", "bool", True, "", "the grid follows a vehicle", support=GUI_ONLY, note=_GRID),
    Param("floating_focus", "str", "", "", "vehicle it follows (sets floating)", support=GUI_ONLY, note=_GRID),
    Param("color", "color", "#e0e0e0", "", "line colour", support=GUI_ONLY, note=_GRID),
    Param("line_width", "float", 1.0, "px", "line width", support=GUI_ONLY, note=_GRID, quantity="element_size"),
    Param("x_min", "float", -25.0, "m", "smallest x", support=GUI_ONLY, note=_GRID, quantity="position"),
    Param("x_max", "float", 25.0, "m", "largest x", support=GUI_ONLY, note=_GRID, quantity="position"),
    Param("y_min", "float", -25.0, "m", "smallest y", support=GUI_ONLY, note=_GRID, quantity="position"),
    Param("y_max", "float", 25.0, "m", "largest y", support=GUI_ONLY, note=_GRID, quantity="position"),
    Param("interval", "float", 5.0, "m", "line spacing", support=GUI_ONLY, note=_GRID, quantity="element_size"),
), "`<element class=\"ground_grid\">`: reference lines on the ground (MVSim's GUI).")

ELEMENT_POINTCLOUD = ParamTable("element.pointcloud", (
    Param("file_txt_2d", "str", None, "", "text file of 'x y' rows (this or file_txt_3d is required)"),
    Param("file_txt_3d", "str", None, "", "text file of 'x y z' rows (used without file_txt_2d)"),
    Param("points_size", "float", 3.0, "px", "drawn point size", quantity="element_size"),
    Param("pose_3d", "str", "0 0 0 0 0 0", "m, deg", "pose 'x y z yaw pitch roll' of the cloud"),
), "`<element class=\"pointcloud\">`: drawn points, no physical effect.")

ELEMENT_SKYBOX = ParamTable("element.skybox", (
    Param("textures", "str", None, "", "texture name pattern with one `%s` for Front, Back, Up, Down, Left, "
          "Right (required; files or URLs)"),
), "`<element class=\"skybox\">`.")

ELEMENT_PROPERTY_REGION = ParamTable("element.property_region", (
    Param("x_min", "float", -1.0, "m", "box smallest x", quantity="position"),
    Param("y_min", "float", -1.0, "m", "box smallest y", quantity="position"),
    Param("z_min", "float", -1000.0, "m", "box smallest z", quantity="position"),
    Param("x_max", "float", 1.0, "m", "box largest x", quantity="position"),
    Param("y_max", "float", 1.0, "m", "box largest y", quantity="position"),
    Param("z_max", "float", 1000.0, "m", "box largest z", quantity="position"),
    Param("property_name", "str", "", "", "property holding inside the box (friction_mu, friction_C_rr, "
          "gps_no_coverage, or any name)"),
    Param("value_double", "float", 0.0, "", "a number value (wins over value_bool and value_string)",
          quantity="position"),
    Param("value_bool", "bool", False, "", "a true/false value (wins over value_string)"),
    Param("value_string", "str", "", "", "a text value"),
), "`<element class=\"property_region\">`: a named value inside a box.")

ACTOR = ParamTable("actor", (
    Param("name", "str", None, "", "unique name (default: actor001, actor002, ... in creation order)",
          attribute=True),
    Param("class", "str", None, "", "an `<actor:class>` whose tags come first", attribute=True),
    Param("walking_speed", "float", 1.4, "m/s", "speed along the path", quantity="actor_speed"),
    Param("running_speed", "float", 3.5, "m/s", "speed of segments whose waypoint says animation=\"run\"",
          quantity="actor_speed"),
    Param("height", "float", 1.75, "m", "body height", quantity="actor_size"),
    Param("collision_radius", "float", 0.3, "m", "radius of the collision cylinder", quantity="actor_size"),
    Param("collision_height", "float", 1.7, "m", "height of the collision cylinder", quantity="actor_size"),
    Param("animation_idle", "str", "idle", "", "model animation while standing"),
    Param("animation_walk", "str", "walk", "", "model animation while walking"),
    Param("animation_run", "str", "run", "", "model animation while running"),
    Param("path", _GROUP, None, "", "`<path loop=\"true\">` of `<waypoint pause=\"s\" animation=\"walk|run|idle\">"
          "x y yaw_deg</waypoint>` (or 'x y z yaw pitch roll'); loop and pause default true and 0 s"),
    Param("visual", _GROUP, None, "", "the (animated) model (see `visual`)"),
    Param("turning_rate", "float", 120.0, "deg/s", "turning rate", support=NOT_SIMULATED,
          note=_NOT_IN_MVSIM + "; actors turn at once"),
    Param("shape", _GROUP, None, "m", "outline `<pt>x y</pt>` to collide as instead of the cylinder",
          note=_NOT_IN_MVSIM),
    Param("init_pose", "str", "0 0 0", "m, m, deg", "start pose 'x y yaw'"),
    Param("init_pose3d", "str", "0 0 0 0 0 0", "m, deg", "start pose 'x y z yaw pitch roll' (used without "
          "init_pose)"),
    Param("skip_elevation_adjust", _GROUP, None, "", "keep the given z instead of placing the actor on the "
          "surface below"),
), "`<actor>` and `<actor:class>` (the instance's tags win).")

ACTOR_PATH = ParamTable("actor.path", (
    Param("loop", "bool", True, "", "start again from the first waypoint after the last", attribute=True),
    Param("waypoint", "str", None, "m, m, deg", "a point of the path, 'x y yaw' or 'x y z yaw pitch roll' "
          "(repeatable)"),
), "`<path>` of an actor.")

ACTOR_WAYPOINT = ParamTable("actor.waypoint", (
    Param("pause", "float", 0.0, "s", "time spent at this waypoint on arrival", attribute=True, quantity="duration"),
    Param("animation", "str", "", "", "how the actor reaches it: walk, run or idle", attribute=True),
), "Attributes of a `<waypoint>`.")

VISUAL = ParamTable("visual", (
    Param("enabled", "bool", True, "", "false: the whole `<visual>` is ignored", attribute=True),
    Param("model_uri", "str", "", "", "3D model file, URL or `archive.zip/inner/file` (empty: no model)"),
    Param("model_scale", "float", 1.0, "", "uniform scale of the model (> 0)"),
    Param("model_offset_x", "float", 0.0, "m", "model x offset", quantity="body_coordinate"),
    Param("model_offset_y", "float", 0.0, "m", "model y offset", quantity="body_coordinate"),
    Param("model_offset_z", "float", 0.0, "m", "model z offset", quantity="body_coordinate"),
    Param("model_yaw", "deg", 0.0, "rad", "model yaw", quantity="angle"),
    Param("model_pitch", "deg", 0.0, "rad", "model pitch", quantity="angle"),
    Param("model_roll", "deg", 0.0, "rad", "model roll", quantity="angle"),
    Param("show_bounding_box", "bool", False, "", "draw the model's bounding box", support=GUI_ONLY,
          note="MVSim's GUI drawing"),
    Param("model_cull_faces", "str", "NONE", "", "face culling: NONE, FRONT or BACK"),
    Param("model_color", "color", "#ffffff", "", "colour applied to the model"),
    Param("model_split_size", "float", 0.0, "m", "split the model in voxels this size for transparency "
          "(0: off)", support=GUI_ONLY, note="render ordering of MVSim's GUI"),
    Param("name", "str", "group", "", "name of the visual (what a wheel's linked_yaw refers to)"),
    Param("model_emissive", "str", None, "", "emissive colour", support=GUI_ONLY, note=_NOT_IN_MVSIM),
    Param("cast_shadows", "bool", True, "", "cast shadows", support=GUI_ONLY, note=_NOT_IN_MVSIM),
    Param("light_group", "str", None, "", "lighting group of the model", attribute=True, support=GUI_ONLY,
          note=_NOT_IN_MVSIM),
), "`<visual>` of vehicles, wheels, sensors, blocks and actors (several allowed).")

#: The tables of this group, in the order docs/parameters.md lists them.
TABLES: list[ParamTable] = [
    WORLD, WORLD_GUI, WORLD_LIGHTS, WORLD_GEOREFERENCE, WORLD_INCLUDE, WORLD_VARIABLE, WORLD_FOR, WORLD_IF,
    WORLD_CLASS_DEF, MARKER, WALLS, JOINT, BLOCK, BLOCK_GEOMETRY, ELEMENT_COMMON, ELEMENT_OCCUPANCY_GRID,
    ELEMENT_ELEVATION_MAP, ELEMENT_HORIZONTAL_PLANE, ELEMENT_VERTICAL_PLANE, ELEMENT_VERTICAL_PLANE_OPENING,
    ELEMENT_GROUND_GRID, ELEMENT_POINTCLOUD, ELEMENT_SKYBOX, ELEMENT_PROPERTY_REGION, ACTOR, ACTOR_PATH,
    ACTOR_WAYPOINT, VISUAL,
]
