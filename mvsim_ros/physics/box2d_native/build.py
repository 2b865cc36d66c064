"""Build the Box2D C shim (shim.cpp) against pybox2d's Box2D 2.3.2 headers: `python -m
mvsim_ros.physics.box2d_native.build` (the set-up script runs it; it is quick and does nothing when the library
is up to date).

The headers come from pybox2d's source distribution `Box2D==2.3.2` (the Box2D sources in pybox2d 2.3.2 and 2.3.10,
the wheel we run, are the same files), downloaded once with pip into `<prefix>/share/mvsim_ros/box2d-2.3.2/`. The
library goes to `<prefix>/share/mvsim_ros/native/libmvsim_box2d-<hash>.so`, the hash covering the shim's source and
the compiler flags, so an edited shim is rebuilt. It does not link against pybox2d: its Box2D symbols are resolved
at load time from pybox2d's extension module (see __init__.py).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

from mvsim_ros.core import quiet_box2d_timer
from mvsim_ros.core.package_share import native_library_path, native_share_dir

#: The pybox2d source distribution whose Box2D headers match the running extension's object layout.
HEADERS_SDIST = "Box2D==2.3.2"
HEADERS_SHA256 = "d1557dffdf9c1d6c796ec5df53e3d93227bb026c14b8411d22c295edaa2fb225"
#: No FMA contraction and no fast math: the shim's arithmetic rounds as pybox2d's does.
CXXFLAGS = ["-O2", "-std=c++11", "-shared", "-fPIC", "-pthread", "-ffp-contract=off", "-fno-builtin-sin",
            "-fno-builtin-cos", "-fvisibility=hidden", "-Wno-unused-parameter"]
SOURCE = Path(__file__).with_name("shim.cpp")


def share_dir() -> Path:
    """Where the headers and the built library live: this interpreter's prefix (the venv), or
    $MVSIM_NATIVE_DIR."""
    return native_share_dir()


def library_path() -> Path:
    """The library this source and these flags build to."""
    return native_library_path("libmvsim_box2d", SOURCE, CXXFLAGS)


def headers_dir(download: bool = True) -> Path | None:
    """The directory holding `Box2D/Box2D.h` (downloaded when absent and `download`), or None."""
    root = share_dir() / "box2d-2.3.2"
    if (root / "Box2D" / "Box2D.h").exists():
        return root
    if not download:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "-d", tmp, HEADERS_SDIST], check=True)
        archive = next(Path(tmp).glob("Box2D-2.3.2.tar.gz"))
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        if digest != HEADERS_SHA256:
            raise RuntimeError(f"{archive.name}: sha256 {digest}, expected {HEADERS_SHA256}")
        staging = Path(tmp) / "x"
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("Box2D-2.3.2/Box2D/")
                       and m.name.endswith((".h", ".txt"))]
            tar.extractall(staging, members=members, filter="data")
        root.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)
        shutil.move(str(staging / "Box2D-2.3.2"), root)
    return root


def build(force: bool = False) -> Path:
    """Compile the shim (and the quiet b2Timer, core/quiet_box2d_timer.py) if missing (or `force`); returns the
    shim's path."""
    _compile(SOURCE, CXXFLAGS, library_path(), "libmvsim_box2d-*.so", force)
    _compile(quiet_box2d_timer.SOURCE, quiet_box2d_timer.CXXFLAGS, quiet_box2d_timer.library_path(),
             "libmvsim_b2timer-*.so", force)
    return library_path()


def _compile(source: Path, flags: list[str], out: Path, family: str, force: bool) -> None:
    """Compile `source` against the Box2D headers into `out` unless it exists (or `force`), then delete the other
    libraries of its `family` (a glob) there: those of older sources."""
    if out.exists() and not force:
        return
    include = headers_dir()
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        raise RuntimeError("no C++ compiler (g++) to build the Box2D shim; install g++")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".tmp")
    python_include = sysconfig.get_paths()["include"]  # pybox2d's b2Settings.h includes Python.h (b2Assert)
    if not (Path(python_include) / "Python.h").exists():
        raise RuntimeError(f"Python.h not found in {python_include}: install this interpreter's development headers "
                           "(python3.11-dev on Debian)")
    subprocess.run([compiler, *flags, f"-I{include}", f"-I{python_include}", str(source), "-o", str(partial)],
                   check=True)
    partial.replace(out)
    for old in out.parent.glob(family):
        if old != out:
            old.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    args = parser.parse_args(argv)
    print(build(force=args.force))
    return 0


if __name__ == "__main__":
    sys.exit(main())
