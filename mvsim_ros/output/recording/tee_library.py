"""The recording tee (tee.c): built with the system's C compiler into the native folder, loaded with ctypes.

Besides recording, the tee holds the Foxglove forwarding gates (`mvsim_tee_gate`, `mvsim_tee_set_forward`,
`mvsim_tee_gate_pass`, `mvsim_tee_gate_clear`): which fast-path deliveries reach the Foxglove server, decided in C
(ros/foxglove/fast_path_tap.py).

`python -m mvsim_ros.output.recording.tee_library` builds it (the set-up script does; it is built on first use
otherwise). The library goes to `<prefix>/share/mvsim_ros/native/libmvsim_tee-<hash>.so` ($MVSIM_NATIVE_DIR
instead of the prefix's share folder when set), the hash covering the source and the flags.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mvsim_ros.core.package_share import native_library_path

SOURCE = Path(__file__).with_name("tee.c")
CFLAGS = ["-O2", "-std=c11", "-D_GNU_SOURCE", "-shared", "-fPIC", "-pthread", "-fvisibility=hidden", "-Wall"]


class TeeUnavailable(RuntimeError):
    """The tee library could not be built or loaded (the message says why)."""


class Chunk(ctypes.Structure):
    """A sealed chunk of tee.c: `records` (MCAP Message records, `records_length` bytes), `index` (`count` entries
    of channel, log time [ns], offset, each uint64), the first and last log times [ns]."""

    _fields_ = [("records", ctypes.c_void_p), ("records_length", ctypes.c_uint64), ("index", ctypes.c_void_p),
                ("count", ctypes.c_uint64), ("start_time", ctypes.c_uint64), ("end_time", ctypes.c_uint64)]


def library_path() -> Path:
    """The library this source and these flags build to."""
    return native_library_path("libmvsim_tee", SOURCE, CFLAGS)


def build(force: bool = False) -> Path:
    """Compile tee.c if its library is missing (or `force`); returns the library's path. TeeUnavailable without a
    C compiler or when compiling fails."""
    out = library_path()
    if out.exists() and not force:
        return out
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    language = []
    if compiler is None and shutil.which("g++"):  # the Box2D shim's compiler builds C too
        compiler, language = shutil.which("g++"), ["-x", "c"]
    if compiler is None:
        raise TeeUnavailable("no C compiler (cc) to build the recording tee; install gcc")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.stem}.{os.getpid()}.tmp")
    result = subprocess.run([compiler, *CFLAGS, *language, str(SOURCE), "-o", str(partial)], capture_output=True,
                            text=True)
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        errors = [line for line in result.stderr.splitlines() if "error" in line] or result.stderr.splitlines()
        raise TeeUnavailable(f"building the recording tee failed: {errors[0] if errors else compiler}")
    partial.replace(out)
    for old in out.parent.glob("libmvsim_tee-*.so"):
        if old != out:
            old.unlink(missing_ok=True)
    return out


@functools.cache
def tee() -> ctypes.CDLL:
    """The loaded tee library (built first if needed), its functions typed; TeeUnavailable when it cannot be."""
    try:
        library = ctypes.CDLL(str(build()))
    except OSError as exc:
        raise TeeUnavailable(f"loading the recording tee failed: {exc}") from exc
    u64, ptr, i32 = ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int32
    signatures = {
        "mvsim_tee_set_target": (None, [ptr]),
        "mvsim_tee_record": (i32, [ctypes.c_size_t, ctypes.c_char_p, u64, u64]),
        "mvsim_tee_register": (i32, [ctypes.c_size_t, i32, i32]),
        "mvsim_tee_start": (None, [u64, u64, u64]),
        "mvsim_tee_stop": (None, []),
        "mvsim_tee_take": (ctypes.POINTER(Chunk), [i32, i32]),
        "mvsim_tee_free": (None, [ctypes.POINTER(Chunk)]),
        "mvsim_tee_failures": (u64, []),
        "mvsim_tee_set_forward": (None, [ptr]),
        "mvsim_tee_gate": (i32, [ctypes.c_size_t, ctypes.c_int64]),
        "mvsim_tee_gate_pass": (i32, [ctypes.c_size_t, u64]),
        "mvsim_tee_gate_clear": (None, []),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(library, name)
        function.restype, function.argtypes = result, arguments
    return library


def deliver_address() -> int:
    """Address of mvsim_tee_deliver, the delivery function (runtime/fast_path/delivery.py's ABI) that records."""
    return ctypes.cast(tee().mvsim_tee_deliver, ctypes.c_void_p).value


def main() -> int:
    print(build(force="--force" in sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
