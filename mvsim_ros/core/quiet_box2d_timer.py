"""Box2D without its step profiler's clock reads: loads the quiet b2Timer (physics/box2d_native/quiet_timer.cpp)
ahead of pybox2d, so that b2World::Step stops calling gettimeofday about ten times a step to fill a profile the
simulator never reads. Physics results are the same bits either way; only b2World.GetProfile() reads zeros.

It works only when it runs before pybox2d's extension is loaded (mvsim_ros/__init__.py calls `install` first
thing); in a process that imported Box2D earlier, or where the library is not built, Box2D keeps its timers and
everything runs as usual, a little slower. MVSIM_BOX2D_PROFILE=1 keeps Box2D's own timers (for reading
GetProfile). This module imports neither Box2D nor anything that does.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

from mvsim_ros.core.package_share import native_library_path

#: The quiet b2Timer's source, and the flags the Box2D shim's build compiles it with.
SOURCE = Path(__file__).resolve().parent.parent / "physics" / "box2d_native" / "quiet_timer.cpp"
CXXFLAGS = ["-O2", "-std=c++11", "-shared", "-fPIC", "-fvisibility=hidden"]
#: Set to 1 to keep Box2D's own step timers.
KEEP_VARIABLE = "MVSIM_BOX2D_PROFILE"

_state = {"installed": False, "why_not": "install() was not called"}


def library_path() -> Path:
    """The library this source and these flags build to (box2d_native.build builds it)."""
    return native_library_path("libmvsim_b2timer", SOURCE, CXXFLAGS)


def install() -> bool:
    """Load the quiet b2Timer for pybox2d to bind to, if that can still work; True when it is in place."""
    if _state["installed"]:
        return True
    if os.environ.get(KEEP_VARIABLE) == "1":
        _state["why_not"] = f"{KEEP_VARIABLE}=1 keeps Box2D's timers"
    elif "Box2D" in sys.modules or "Box2D._Box2D" in sys.modules:
        _state["why_not"] = "Box2D was imported first"
    else:
        path = library_path()
        if not path.exists():
            _state["why_not"] = f"{path} is not built"
        else:
            try:
                ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
                _state["installed"], _state["why_not"] = True, ""
            except OSError as exc:
                _state["why_not"] = f"{path} does not load: {exc}"
    return _state["installed"]


def installed() -> tuple[bool, str]:
    """(whether the quiet timer is in place, why not when it is not)."""
    return _state["installed"], _state["why_not"]


__all__ = ["KEEP_VARIABLE", "install", "installed", "library_path"]
