"""Box2D callable from compiled code: our C shim (shim.cpp) over the Box2D 2.3.2 that pybox2d runs.

The simulation builds its world with pybox2d (Python objects, the readable path); hot loops reach the same C++
objects through the shim's C functions, by address (`address(obj)`):
  - from Python: `read_bodies`, `apply_wrenches` (small compiled wrappers), `ray_scan` (ctypes): about a
    microsecond per call, whatever the number of bodies or beams;
  - from numba kernels: the `mvb_*` ExternalFunction declarations below (a direct C call, no Python).

`AVAILABLE` says whether the shim is built and loaded (`python -m mvsim_ros.physics.box2d_native.build`, run by the
set-up script); `UNAVAILABLE_REASON` why not. Without it everything still works through pybox2d's Python API, only
slower: the results are the same either way (the shim rounds to float32 as pybox2d does; tests compare both).

The shim reads the environment variable MVSIM_SCAN_THREADS (1 or 2, see shim.cpp) and takes any other value as
unset without a word; `setting_warnings()` says so in one line, for the node and mvsim_view to print.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import re
import weakref
from typing import Mapping

import Box2D
import numpy as np
from numba import njit, types

from mvsim_ros.physics.box2d_native.build import library_path

_DOUBLES = types.CPointer(types.float64)
_ADDRESSES = types.CPointer(types.intp)
#: Numba declarations of the shim's functions (see shim.cpp for units); usable only when AVAILABLE.
mvb_read_bodies = types.ExternalFunction("mvb_read_bodies", types.void(_ADDRESSES, types.int64, _DOUBLES))
mvb_apply_wrenches = types.ExternalFunction(
    "mvb_apply_wrenches", types.void(_ADDRESSES, types.int64, _DOUBLES, _DOUBLES, _DOUBLES))
mvb_world_step = types.ExternalFunction("mvb_world_step", types.int64(types.intp, types.float64, types.int64,
                                                                      types.int64))
mvb_ray_scan = types.ExternalFunction("mvb_ray_scan", types.int64(types.intp, types.intp, types.float64, types.float64,
                                                                  _DOUBLES, types.int64, types.float64, _ADDRESSES,
                                                                  types.int64, _DOUBLES))


#: The environment variable that sets how 2D lidar scans use threads, and the values the shim accepts.
SCAN_THREADS_VARIABLE = "MVSIM_SCAN_THREADS"
SCAN_THREADS_VALUES = {"1": "every 2D lidar scan on the simulation's thread",
                       "2": "every scan of 64 beams or more split over two threads"}
_C_INTEGER = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def setting_warnings(environ: Mapping[str, str] | None = None) -> list[str]:
    """One warning line when MVSIM_SCAN_THREADS (in `environ`, os.environ by default) holds a value other than
    1 or 2 (unset or empty say nothing): the variable, the value, the accepted values and what the shim does
    with it (it reads the leading integer, as C's atoi: '2x' is 2, anything else is taken as unset)."""
    text = (os.environ if environ is None else environ).get(SCAN_THREADS_VARIABLE, "")
    if text in SCAN_THREADS_VALUES or text == "":
        return []
    found = _C_INTEGER.match(text)
    read = str(int(found.group(1))) if found else ""
    accepted = "; ".join(f"{value}: {meaning}" for value, meaning in SCAN_THREADS_VALUES.items())
    done = (f"read as {read}" if read in SCAN_THREADS_VALUES else
            "taken as unset: scans of 64 beams or more that cost over 40 µs are split on machines with two or "
            "more cores")
    return [f"{SCAN_THREADS_VARIABLE}={text[:40]!r} is not an accepted value ({accepted}; or unset); {done}"]


def address(obj) -> int:
    """The C++ object address behind a pybox2d object (body, world, joint)."""
    return int(obj.this)


def addresses(objects) -> np.ndarray:
    """Addresses of pybox2d objects as an intp array (what the shim's list arguments take)."""
    return np.array([address(o) for o in objects], dtype=np.intp)


def _load() -> tuple[ctypes.CDLL | None, str]:
    path = library_path()
    if not path.exists():
        return None, f"the Box2D shim is not built ({path}); run python -m mvsim_ros.physics.box2d_native.build"
    try:
        # pybox2d's extension was loaded privately; make its Box2D symbols global so the shim resolves against it.
        extension = importlib.import_module("Box2D._Box2D")  # pybox2d's compiled module (SWIG's name)
        ctypes.CDLL(extension.__file__, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        import llvmlite.binding as llvm

        llvm.load_library_permanently(str(path))  # numba-compiled code finds the mvb_* symbols here
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        return None, f"the Box2D shim {path} does not load: {exc}"
    lib.mvb_read_bodies.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
    lib.mvb_read_bodies.restype = None
    lib.mvb_ray_scan.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_void_p,
                                 ctypes.c_int64, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
    lib.mvb_ray_scan.restype = ctypes.c_int64
    lib.mvb_scene_index_new.argtypes = [ctypes.c_void_p]
    lib.mvb_scene_index_new.restype = ctypes.c_void_p
    lib.mvb_scene_index_free.argtypes = [ctypes.c_void_p]
    lib.mvb_scene_index_free.restype = None
    lib.mvb_scene_index_builds.argtypes = [ctypes.c_void_p]
    lib.mvb_scene_index_builds.restype = ctypes.c_int64
    lib.mvb_scene_index_touch.argtypes = [ctypes.c_void_p]
    lib.mvb_scene_index_touch.restype = None
    lib.mvb_contacts_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.mvb_contacts_new.restype = ctypes.c_void_p
    lib.mvb_contacts_describe.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                          ctypes.c_void_p, ctypes.c_int64]
    lib.mvb_contacts_describe.restype = ctypes.c_int64
    lib.mvb_contacts_install.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.mvb_contacts_install.restype = None
    lib.mvb_contacts_free.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.mvb_contacts_free.restype = None
    problem = _layout_problem(lib)
    return (None, problem) if problem else (lib, "")


def _layout_problem(lib: ctypes.CDLL) -> str:
    """Empty if the shim reads a pybox2d body as pybox2d does (same headers, same object layout), else why not."""
    world = Box2D.b2World(gravity=(0, 0))
    body = world.CreateDynamicBody(position=(1.25, -2.5), angle=0.75)
    body.CreatePolygonFixture(box=(0.5, 0.25), density=1.0)
    body.linearVelocity, body.angularVelocity = (0.5, -1.5), 2.0
    row = np.zeros(6)
    lib.mvb_read_bodies(addresses([body]).ctypes.data, 1, row.ctypes.data)
    expected = (*body.position.tuple, body.angle, *body.linearVelocity.tuple, body.angularVelocity)
    if tuple(row.tolist()) != expected:
        return f"the Box2D shim reads {row.tolist()} where pybox2d reads {list(expected)}: header/layout mismatch"
    return ""


_LIB, UNAVAILABLE_REASON = _load()
#: True when the shim is built, loaded and agrees with pybox2d on the object layout.
AVAILABLE = _LIB is not None


def read_bodies(body_addresses: np.ndarray) -> np.ndarray:
    """(N, 6) rows (x, y, angle, vx, vy, omega) of the bodies: origin position [m], angle [rad], centre-of-mass
    velocity [m/s] and angular velocity [rad/s] (the shim must be AVAILABLE)."""
    return _read_bodies(body_addresses)


def apply_wrenches(body_addresses: np.ndarray, fx: np.ndarray, fy: np.ndarray, tz: np.ndarray) -> None:
    """World-frame force (fx, fy) [N] at each body's centre of mass and torque tz [N m] (float64 arrays)."""
    _apply_wrenches(body_addresses, fx, fy, tz)


@njit(cache=True)
def _read_bodies(body_addresses):
    out = np.empty((body_addresses.size, 6))
    mvb_read_bodies(body_addresses.ctypes, body_addresses.size, out.ctypes)
    return out


@njit(cache=True)
def _apply_wrenches(body_addresses, fx, fy, tz):
    mvb_apply_wrenches(body_addresses.ctypes, body_addresses.size, fx.ctypes, fy.ctypes, tz.ctypes)


class SceneIndex:
    """The shim's grid over the fixtures of every static body of one Box2D world (the ground: occupancy-grid walls,
    <walls>, vertical planes; and static blocks), which a ray scan walks beam by beam instead of testing every
    fixture in range (shim.cpp StaticIndex). It keeps itself up to date: a scan that finds a static body added or
    removed since the grid was built has it rebuilt first, and so does one that finds a static body moved or
    changed after `touch()` (whoever moves static bodies calls touch_scene_index: a scan compares the static
    bodies' states only then, one pointer comparison a body otherwise). `address` is what `ray_scan` and
    `mvb_ray_scan` take; freed with this object, which must not outlive its world."""

    def __init__(self, world: Box2D.b2World):
        #: The address of the b2World it indexes.
        self.world_address = address(world)
        self.address = int(_LIB.mvb_scene_index_new(self.world_address) or 0)
        if not self.address:
            raise MemoryError("the Box2D shim could not make a scene index")
        self._free = _LIB.mvb_scene_index_free

    @property
    def rebuilds(self) -> int:
        """How many times the grid was rebuilt because the world's static bodies changed."""
        return int(_LIB.mvb_scene_index_builds(self.address))

    def touch(self) -> None:
        """Static bodies of the world may have moved or changed: the next scan compares their states."""
        _LIB.mvb_scene_index_touch(self.address)

    def __del__(self):
        if getattr(self, "address", 0):
            self._free(self.address)
            self.address = 0


#: The SceneIndex of each world, dropped with the world.
_SCENE_INDEXES: "weakref.WeakKeyDictionary[Box2D.b2World, SceneIndex]" = weakref.WeakKeyDictionary()


def scene_index(world: Box2D.b2World) -> SceneIndex:
    """The SceneIndex of `world`, made on first use and shared by every lidar of the world."""
    index = _SCENE_INDEXES.get(world)
    if index is None:
        index = _SCENE_INDEXES[world] = SceneIndex(world)
    return index


def touch_scene_index(world: Box2D.b2World) -> None:
    """Tell the SceneIndex of `world`, if it has one, that static bodies may have moved or changed (activity,
    fixtures): call it after moving a static body, or its scans may use the grid as it was."""
    world_address = address(world)  # pybox2d hands out a new Python object for the same world (body.world)
    for index in list(_SCENE_INDEXES.values()):
        if index.world_address == world_address:
            index.touch()


class VehicleContactListener:
    """The shim's contact listener (shim.cpp VehicleContacts) installed on one Box2D world: per vehicle, the solid
    contacts touching it and the solid fixtures overlapping its proximity fixtures are counted into `touching`
    (int64) and any contact since the last reset flagged in `since_reset` (bool), both written in place during
    Box2D's steps with no Python called. It keeps the world and the arrays alive, and takes itself off the world
    when it goes."""

    def __init__(self, world: Box2D.b2World, touching: np.ndarray, since_reset: np.ndarray,
                 vehicle_bodies: list[tuple[Box2D.b2Body, int]], proximity_fixtures: list):
        """vehicle_bodies: (body, vehicle index) pairs; proximity_fixtures: the vehicles' proximity sensors."""
        if touching.dtype != np.int64 or since_reset.dtype != np.bool_ or not (
                touching.flags.c_contiguous and since_reset.flags.c_contiguous):
            raise TypeError("touching must be a C-contiguous int64 array and since_reset a bool one")
        self._world, self.touching, self.since_reset = world, touching, since_reset
        self.address = int(_LIB.mvb_contacts_new(touching.ctypes.data, since_reset.ctypes.data) or 0)
        if not self.address:
            raise MemoryError("the Box2D shim could not make a contact listener")
        self._free = _LIB.mvb_contacts_free
        bodies = addresses([body for body, _ in vehicle_bodies])
        vehicle = np.array([index for _, index in vehicle_bodies], dtype=np.int64)
        proximity = addresses(proximity_fixtures)
        if _LIB.mvb_contacts_describe(self.address, bodies.ctypes.data, vehicle.ctypes.data, bodies.size,
                                      proximity.ctypes.data, proximity.size):
            raise MemoryError("the Box2D shim could not describe the vehicles to its contact listener")
        _LIB.mvb_contacts_install(address(world), self.address)

    def __del__(self):
        if getattr(self, "address", 0):
            self._free(address(self._world), self.address)
            self.address = 0


def ray_scan(world_address: int, index_address: int, origin: tuple[float, float], bearings: np.ndarray,
             range_max: float, hidden: np.ndarray) -> np.ndarray:
    """Ranges [m] of beams from `origin` [m] along world `bearings` [rad] up to range_max [m]: the nearest
    non-sensor fixture not on a `hidden` body (sorted addresses), +inf when none; the fixtures of the world's static
    bodies are found through `index_address` (the world's SceneIndex.address, or 0 for none)."""
    bearings = np.ascontiguousarray(bearings, dtype=float)
    out = np.empty(bearings.size)
    if _LIB.mvb_ray_scan(world_address, index_address, float(origin[0]), float(origin[1]), bearings.ctypes.data,
                         bearings.size, float(range_max), hidden.ctypes.data, hidden.size, out.ctypes.data):
        raise MemoryError("the Box2D shim's ray scan failed")
    return out
