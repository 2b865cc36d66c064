"""ament_python package set-up for mvsim_ros (also installable with pip: `pip install -e .`)."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "mvsim_ros"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.launch.py")),
        (f"share/{PACKAGE}/config", glob("config/*.yaml")),
        (f"share/{PACKAGE}/config/nav2", glob("config/nav2/*.yaml")),
        (f"share/{PACKAGE}/config/foxglove", glob("config/foxglove/*.json")),
        (f"share/{PACKAGE}/rviz", glob("rviz/*.rviz")),
        (f"share/{PACKAGE}/worlds", glob("worlds/*.xml") + glob("worlds/*.png")),
        (f"share/{PACKAGE}/worlds/definitions", glob("worlds/definitions/*")),
        (f"share/{PACKAGE}/worlds/maps", glob("worlds/maps/*")),
        (f"share/{PACKAGE}/worlds/models", glob("worlds/models/*")),
    ],
    install_requires=["setuptools", "numpy", "numba", "defusedxml", "Pillow", "PyYAML", "box2d", "google-re2",
                      "mcap", "lz4", "zstandard"],
    # cameras and 3D lidars (OpenGL); local <visual> models' outlines; the browser viewer's server; live Foxglove
    # (foxglove:=true); the benchmark's viewer case (drives Chromium); the comparison report's plots (mvsim_compare);
    # the run report (mvsim_report); Gymnasium environments (mvsim_ros.gym); scenario sweeps on Ray (mvsim_sweep)
    extras_require={"render": ["moderngl", "glcontext"], "models": ["trimesh", "pycollada"], "viewer": ["aiohttp"],
                    "foxglove": ["foxglove-sdk"],
                    "bench": ["playwright"], "compare": ["matplotlib"],
                    "report": ["mcap-ros2-support", "matplotlib", "plotly"],
                    # moviepy: gymnasium's RecordVideo; 1.x, whose requirements admit the Pillow pinned here
                    "gym": ["gymnasium", "moviepy<2"], "sweep": ["ray", "pyarrow"],
                    # the training example (mvsim_ros.gym.training): skrl's PPO on JAX, CPU only
                    "train": ["gymnasium", "skrl", "jax", "jaxlib", "flax", "optax"]},
    # The viewer page (index.html, its ES modules web/*.js, its style sheet), and the parts of three.js it imports when
    # `npm ci` put it in web/node_modules (tools/setup_env.sh does).
    package_data={"mvsim_ros.physics.box2d_native": ["shim.cpp", "quiet_timer.cpp"],
                  "mvsim_ros.output.recording": ["tee.c"],
                  "mvsim_ros.viewer": ["web/*.html", "web/*.js", "web/*.css", "web/package*.json",
                                       "web/node_modules/three/build/*.js",
                                       "web/node_modules/three/examples/jsm/controls/OrbitControls.js",
                                       "web/node_modules/three/examples/jsm/renderers/CSS2DRenderer.js",
                                       "web/node_modules/three/LICENSE"]},
    zip_safe=False,  # the viewer serves its page files from the package directory
    maintainer="mvsim_ros maintainers",
    maintainer_email="maintainers@mvsim-ros.dev",
    description="Lightweight multi-vehicle simulator for ROS 2 (MVSim world format).",
    license="BSD-3-Clause",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "mvsim_node = mvsim_ros.ros.node.process:main",
            "mvsim_fetch_models = mvsim_ros.cli.fetch_models:main",
            "mvsim_teleop = mvsim_ros.cli.teleop:main",
            "mvsim_view = mvsim_ros.cli.view:main",
            "mvsim_trajectory_tracker = mvsim_ros.tracking.nodes.tracker_node:main",
            "mvsim_car_kinematic_controller = mvsim_ros.tracking.nodes.kinematic_controller_node:main",
            "mvsim_car_dynamic_controller = mvsim_ros.tracking.nodes.dynamic_controller_node:main",
            "mvsim_compare = mvsim_ros.compare.cli:main",
            "mvsim_report = mvsim_ros.cli.report:main",
            "mvsim_sweep = mvsim_ros.cli.sweep:main",
        ],
    },
)
