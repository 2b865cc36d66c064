#!/usr/bin/env bash
# Idempotent development/CI environment set-up for mvsim_ros on Debian 12 (Python 3.11).
#
#   bash tools/setup_env.sh        (or: make setup)
#
# What it does, in order:
#   1. installs missing Debian packages (compiler, cmake, Mesa EGL for headless OpenGL);
#   2. creates .venv/ with Python 3.11 (the ROS 2 wheels are cp311 only);
#   3. pip-installs requirements.txt and this package in editable mode;
#   4. builds the interface packages in interfaces/ (tf2_msgs, ackermann_msgs, simulation_interfaces)
#      into .venv/, but
#      only where they cannot be imported already (a real ROS 2 install provides them);
#   5. checks that the messages round-trip over DDS in one process (simulation_interfaces: a service call);
#   6. installs three.js for the browser viewer (npm ci in mvsim_ros/viewer/web/) and Foxglove's client libraries
#      for the tests (npm ci in test/foxglove/), each pinned by its package-lock.json, when missing or the lock
#      changed.
# A stamp file (.venv/.setup-stamp) holds a hash of the inputs; when it matches, the script
# returns at once. Environment knobs: PYTHON=/path/to/python3.11 to choose the interpreter.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
STAMP="$VENV/.setup-stamp"
BUILD_ROOT="$ROOT/build/interfaces"
INTERFACE_PKGS=(tf2_msgs ackermann_msgs simulation_interfaces)
export DEBIAN_FRONTEND=noninteractive

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# Hash of every input that should trigger a re-run when it changes.
inputs_hash() {
    (
        cd "$ROOT"
        for f in requirements*.txt setup.py setup.cfg package.xml tools/setup_env.sh \
                 mvsim_ros/viewer/web/package.json mvsim_ros/viewer/web/package-lock.json; do
            if [ -f "$f" ]; then printf '== %s\n' "$f"; cat "$f"; else printf '== %s (absent)\n' "$f"; fi
        done
        if [ -d interfaces ]; then
            find interfaces -type f -print0 | LC_ALL=C sort -z |
                while IFS= read -r -d '' f; do printf '== %s\n' "$f"; cat "$f"; done
        fi
    ) | sha256sum | cut -d' ' -f1
}

# Hash of one interface package's sources (recorded next to what we installed from it).
pkg_hash() {
    (cd "$ROOT/interfaces/$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
        sha256sum | cut -d' ' -f1
}

# ---------------------------------------------------------------------------------------------
# Serialise concurrent runs on the same checkout (e.g. two `make test` at once).
mkdir -p "$ROOT/build"
LOCK="$ROOT/build/.setup-env.lock"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$LOCK"
    flock 9
fi

# npm folders: the viewer's three.js, and Foxglove's own client libraries the tests read recordings and talk to
# the node with. Each is installed by `npm ci` from its package-lock.json; a stamp in its node_modules holds the
# hash of its package files, so a changed lock installs again.
WEB_DIR="$ROOT/mvsim_ros/viewer/web"
WEB_MARKER="node_modules/three/build/three.module.js"
FOXGLOVE_DIR="$ROOT/test/foxglove"
FOXGLOVE_MARKER="node_modules/@mcap/core/package.json"
npm_lock_hash() { sha256sum "$1/package.json" "$1/package-lock.json" | sha256sum | cut -d' ' -f1; }
npm_ready() {  # npm_ready DIR MARKER: DIR's packages installed from its current lock
    [ -f "$1/$2" ] && [ -f "$1/node_modules/.mvsim-lock.sha256" ] &&
        [ "$(cat "$1/node_modules/.mvsim-lock.sha256")" = "$(npm_lock_hash "$1")" ]
}
web_ready() { npm_ready "$WEB_DIR" "$WEB_MARKER" && npm_ready "$FOXGLOVE_DIR" "$FOXGLOVE_MARKER"; }

# Fast path: nothing changed since the last successful run.
HASH="$(inputs_hash)"
if [ -x "$VPY" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ] && web_ready; then
    log "environment up to date ($VENV)"
    exit 0
fi
T_START=$SECONDS
log "setting up environment in $VENV"

# ---------------------------------------------------------------------------------------------
# 1. Debian packages (installed only when missing).
APT_UPDATED=0
apt_ensure() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v apt-get >/dev/null 2>&1 || die "missing Debian packages (${missing[*]}) and no apt-get"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "need root or sudo to install: ${missing[*]}"
        sudo=(sudo)
    fi
    log "apt: installing ${missing[*]}"
    if [ "$APT_UPDATED" -eq 0 ]; then
        "${sudo[@]}" apt-get update -qq
        APT_UPDATED=1
    fi
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Compiler and cmake for the interface packages; Mesa EGL for headless OpenGL (moderngl).
apt_ensure cmake g++ make libegl1 libegl-mesa0 libgl1-mesa-dri libgl1
# tmux: the keyboard-teleop test drives mvsim_teleop in a terminal it can send keys to.
apt_ensure tmux
# chromium (+ a font for the page's text): the browser viewer's tests run it headless, WebGL in software
# (SwiftShader); npm: installs three.js for the viewer page.
apt_ensure chromium fonts-liberation
command -v npm >/dev/null 2>&1 || apt_ensure npm
command -v npm >/dev/null 2>&1 || die "npm is required to install three.js for the browser viewer (apt-get install npm)"

# ---------------------------------------------------------------------------------------------
# 2. Python 3.11 virtual environment.
is_py311() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; }

if [ ! -x "$VPY" ]; then
    PY="${PYTHON:-}"
    if [ -z "$PY" ]; then
        if command -v python3.11 >/dev/null 2>&1; then
            PY=python3.11
        elif command -v python3 >/dev/null 2>&1 && is_py311 python3; then
            PY=python3
        else
            die "Python 3.11 is required (the ROS 2 Kilted wheels are cp311); found: $(python3 -V 2>&1 || echo none). Install python3.11 or set PYTHON=/path/to/python3.11"
        fi
    fi
    is_py311 "$PY" || die "$PY is not Python 3.11 (the ROS 2 Kilted wheels are cp311)"
    # Debian's own python needs python3-venv for ensurepip.
    if ! "$PY" -c 'import ensurepip, venv' 2>/dev/null; then
        apt_ensure python3-venv
    fi
    log "creating venv with $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
    "$PY" -m venv "$VENV"
fi
is_py311 "$VPY" || die "$VPY is not Python 3.11; remove .venv/ (make distclean) and re-run"

# pip, minus the noise this machine's pip configuration prints for absent local index folders.
vpip() {
    "$VPY" -m pip "$@" 2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
}

# ---------------------------------------------------------------------------------------------
# 3. Python dependencies and the package itself (editable).
t=$SECONDS
log "pip install -r requirements.txt"
vpip install -q -r "$ROOT/requirements.txt"
if [ -f "$ROOT/setup.py" ]; then
    log "pip install -e . (mvsim_ros)"
    vpip install -q -e "$ROOT"
else
    log "WARNING: no setup.py yet; skipping 'pip install -e .'"
fi
log "python packages done in $((SECONDS - t)) s"

# ---------------------------------------------------------------------------------------------
# 4. Interface packages, built only when not importable (or when our own earlier build of them
#    is out of date with interfaces/<pkg>).
needs_build() {
    local pkg=$1 marker="$VENV/share/$1/mvsim_ros_interface.sha256"
    if ! "$VPY" -c "import $pkg.msg" >/dev/null 2>&1; then return 0; fi
    [ -f "$marker" ] && [ "$(cat "$marker")" != "$(pkg_hash "$pkg")" ]
}

BUILD_DEPS_READY=0
prepare_build() {
    [ "$BUILD_DEPS_READY" -eq 1 ] && return 0
    log "pip install -r requirements-build.txt"
    vpip install -q -r "$ROOT/requirements-build.txt"

    # Python headers (Debian's python3.11 ships them separately).
    if ! "$VPY" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
        if [ "$("$VPY" -c 'import sys; print(sys.base_prefix)')" = /usr ]; then
            apt_ensure python3.11-dev
        else
            die "Python.h not found for $VPY; install this interpreter's development headers"
        fi
    fi

    # The wheels' exported CMake files name the wheel build machine's include dirs; point them
    # at this interpreter's include dir and numpy's.
    log "patching include paths in the wheels' CMake exports"
    "$VPY" - "$VENV/share" <<'PYEOF'
import pathlib, sys, sysconfig
import numpy
repl = {
    "/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include": numpy.get_include(),
    "/opt/python/cp311-cp311/include/python3.11": sysconfig.get_paths()["include"],
}
n = 0
for f in pathlib.Path(sys.argv[1]).rglob("*.cmake"):
    text = f.read_text()
    if "/opt/python/cp311-cp311" not in text:
        continue
    for old, new in repl.items():
        text = text.replace(old, new)
    f.write_text(text)
    n += 1
print(f"[setup]   patched {n} file(s)")
PYEOF
    BUILD_DEPS_READY=1
}

build_pkg() {
    local pkg=$1 src="$ROOT/interfaces/$1" bdir="$BUILD_ROOT/$1" t=$SECONDS
    prepare_build
    log "building interface package $pkg (log: ${bdir#"$ROOT"/}/build.log)"
    rm -rf "$bdir"
    mkdir -p "$bdir"
    if ! (
        export AMENT_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH"
        cmake -S "$src" -B "$bdir" \
            -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_PREFIX_PATH="$VENV" \
            -DCMAKE_INSTALL_PREFIX="$VENV" \
            -DPython3_EXECUTABLE="$VPY" \
            -DBUILD_TESTING=OFF
        cmake --build "$bdir" -j2
        cmake --install "$bdir"
    ) >"$bdir/build.log" 2>&1; then
        tail -n 40 "$bdir/build.log" >&2
        die "building $pkg failed (full log: $bdir/build.log)"
    fi
    "$VPY" -c "import $pkg.msg" || die "$pkg built and installed but 'import $pkg.msg' fails"
    pkg_hash "$pkg" >"$VENV/share/$pkg/mvsim_ros_interface.sha256"
    log "  $pkg built and installed in $((SECONDS - t)) s"
}

for pkg in "${INTERFACE_PKGS[@]}"; do
    if needs_build "$pkg"; then
        build_pkg "$pkg"
    else
        log "$pkg already importable; not building"
    fi
done

# ---------------------------------------------------------------------------------------------
# 4b. The Box2D shim (mvsim_ros/physics/box2d_native): a few C functions over the Box2D 2.3.2 that pybox2d runs,
#     so the compiled step loop and lidar ray casts call Box2D without Python. Compiled against pybox2d's own
#     headers (its 2.3.2 source distribution, pinned by hash); rebuilt only when shim.cpp changes.
if ! "$VPY" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    apt_ensure python3.11-dev  # pybox2d's b2Settings.h includes Python.h
fi
t=$SECONDS
log "building the Box2D shim"
"$VPY" -c "from mvsim_ros.physics.box2d_native.build import main; main()" 2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2) \
    || die "building the Box2D shim failed"
"$VPY" -c 'from mvsim_ros.physics import box2d_native as n; import sys; sys.exit(n.UNAVAILABLE_REASON or 0)' \
    || die "the Box2D shim does not load"
log "  Box2D shim ready in $((SECONDS - t)) s"

# 4c. The recording tee (mvsim_ros/output/recording/tee.c): the C function through which published messages are
#     delivered and, while a run is recorded (record:=FILE.mcap), copied into MCAP chunks. Built with the C
#     compiler that comes with g++; rebuilt only when tee.c changes (and on first use, if missing).
"$VPY" -m mvsim_ros.output.recording.tee_library >/dev/null || die "building the recording tee failed"

# ---------------------------------------------------------------------------------------------
# 5. Smoke test: publish and receive a TFMessage and an AckermannDriveStamped, and call a
#    simulation_interfaces service, in one process.
log "checking message round-trip over DDS"
ROUNDTRIP_PY=$(cat <<'PYEOF'
import os, sys, time
import rclpy
from ackermann_msgs.msg import AckermannDrive, AckermannDriveStamped
from geometry_msgs.msg import TransformStamped
from tf2_msgs.msg import TFMessage
from simulation_interfaces.msg import Result, SimulatorFeatures
from simulation_interfaces.srv import GetSimulatorFeatures
from simulation_interfaces.action import SimulateSteps  # noqa: F401  (the action type must import too)

# Field names, types and order must match ROS exactly for other nodes to interoperate.
expected = {"steering_angle": "float", "steering_angle_velocity": "float", "speed": "float",
            "acceleration": "float", "jerk": "float"}
fields = AckermannDrive.get_fields_and_field_types()
if list(fields.items()) != list(expected.items()):
    sys.exit(f"AckermannDrive fields differ from ROS: {fields}")
if (Result.RESULT_FEATURE_UNSUPPORTED, Result.RESULT_OK, SimulatorFeatures.STEP_SIMULATION_ACTION) != (0, 1, 33):
    sys.exit("simulation_interfaces constants differ from ROS")

rclpy.init()
node = rclpy.create_node(f"setup_env_check_{os.getpid()}")
prefix = f"/setup_env_check_{os.getpid()}"
got = {}
node.create_subscription(TFMessage, prefix + "/tf", lambda m: got.setdefault("tf", m), 10)
node.create_subscription(AckermannDriveStamped, prefix + "/ackermann",
                         lambda m: got.setdefault("ack", m), 10)
pub_tf = node.create_publisher(TFMessage, prefix + "/tf", 10)
pub_ack = node.create_publisher(AckermannDriveStamped, prefix + "/ackermann", 10)


def features(_request, response):
    response.features.features = [SimulatorFeatures.SPAWNING]
    response.features.spawn_formats = ["check"]
    return response


node.create_service(GetSimulatorFeatures, prefix + "/get_simulator_features", features)
client = node.create_client(GetSimulatorFeatures, prefix + "/get_simulator_features")
future = None

t = TransformStamped()
t.header.frame_id, t.child_frame_id = "odom", "base_link"
t.transform.translation.x = 1.5
t.transform.rotation.w = 1.0
tf_msg = TFMessage(transforms=[t])
ack = AckermannDriveStamped()
ack.header.frame_id = "base_link"
ack.drive.speed, ack.drive.steering_angle = 2.0, 0.25

deadline = time.monotonic() + 15.0
while (len(got) < 2 or future is None or not future.done()) and time.monotonic() < deadline:
    pub_tf.publish(tf_msg)
    pub_ack.publish(ack)
    if future is None and client.service_is_ready():
        future = client.call_async(GetSimulatorFeatures.Request())
    rclpy.spin_once(node, timeout_sec=0.1)
node.destroy_node()
rclpy.shutdown()

if len(got) < 2:
    sys.exit(f"round-trip FAILED: received only {sorted(got)} within 15 s")
if future is None or not future.done():
    sys.exit("simulation_interfaces GetSimulatorFeatures call got no answer within 15 s")
answer = future.result().features
if (list(answer.features), list(answer.spawn_formats)) != ([SimulatorFeatures.SPAWNING], ["check"]):
    sys.exit("GetSimulatorFeatures answer corrupted: %s" % answer)
rx_t = got["tf"].transforms[0]
if (rx_t.child_frame_id, rx_t.transform.translation.x) != ("base_link", 1.5):
    sys.exit("TFMessage corrupted: %s" % got["tf"])
if (got["ack"].drive.speed, got["ack"].drive.steering_angle) != (2.0, 0.25):
    sys.exit("AckermannDriveStamped corrupted: %s" % got["ack"])
print("[setup]   TFMessage, AckermannDriveStamped and GetSimulatorFeatures round-trip OK")
PYEOF
)
"$VPY" -c "$ROUNDTRIP_PY" || die "message round-trip check failed"

# ---------------------------------------------------------------------------------------------
# 6. npm packages exactly as their package-lock.json pins them: three.js for the browser viewer, Foxglove's client
#    libraries for the tests.
npm_install() {  # npm_install DIR MARKER WHAT
    if npm_ready "$1" "$2"; then
        log "$3 up to date"
        return
    fi
    local t=$SECONDS
    log "npm ci in ${1#"$ROOT"/} ($3)"
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $1 ($3)"
    [ -f "$1/$2" ] || die "npm ci did not install $2 in $1"
    npm_lock_hash "$1" >"$1/node_modules/.mvsim-lock.sha256"
    log "  installed in $((SECONDS - t)) s"
}
npm_install "$WEB_DIR" "$WEB_MARKER" "three.js for the browser viewer"
npm_install "$FOXGLOVE_DIR" "$FOXGLOVE_MARKER" "Foxglove's client libraries for the tests"

echo "$HASH" >"$STAMP"
log "done in $((SECONDS - T_START)) s"
