"""``mvsim_fetch_models WORLD [--storage-dir DIR] [--timeout S] [--deadline S]``: fetch every resource a world names,
ahead of time.

Loads the world with our loader (offline, so loading itself downloads nothing), collects every resource URI of
the resulting spec and resolves each through :mod:`mvsim_ros.world.files.resources`: remote files are downloaded once
into the cache (MVSim's folder and layout), zips extracted. One line per resource on stdout::

    https://host/m/crate.dae: downloaded 48213 bytes (/home/u/.cache/mvsim-storage/crate.dae)
    https://host/m/pack.zip/d/cube.obj: cached (/home/u/.cache/mvsim-storage/pack.out/d/cube.obj)
    models/shelf.obj: local (/path/worlds/models/shelf.obj)
    https://host/m/gone.dae: failed: HTTP 404 Not Found

Exit status: 0 when every resource is available, 1 when any failed, 2 when the world does not load (one line
on stderr, no traceback) or the arguments are wrong, 130 after Ctrl-C (SIGINT: one line on stderr, no traceback;
a download in progress is cancelled and leaves nothing in the cache).

Each download has an overall deadline (``--deadline``, else ``$MVSIM_DOWNLOAD_DEADLINE_S``, else 120 s), from the
request to the last byte, besides the timeout for connecting and for every read (``--timeout``): a server that
sends one byte now and then fails at the deadline.

Only the standard library is imported with this module: the world loader (numpy and the rest) is imported when
`main` runs, inside its handling of Ctrl-C, so that an interrupt at any moment of the run ends it with one line.

URIs are collected generically (:func:`collect_resource_uris`), so resources of spec kinds added later are
found without changes here: every string that is an http(s) URI anywhere in the spec, plus every value of a
``model_uri`` field or a field whose name contains ``texture`` (a skybox pattern's ``%s`` expanded to its six
faces); a kept XML tag counts as a field named by its tag. Relative paths resolve against the folder of the
XML file of the nearest enclosing spec that has a ``source``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

if TYPE_CHECKING:  # imported when used (see the module's docstring)
    from mvsim_ros.world.files.resources import Resolution
    from mvsim_ros.world.specs import WorldSpec

#: Field names (or kept tag names) whose values are resource URIs even when local.
_URI_FIELD_WORDS = ("model_uri", "texture")
#: Exit status after Ctrl-C: 128 + SIGINT, as a shell reports a process ended by it.
EXIT_INTERRUPTED = 128 + signal.SIGINT


def collect_resource_uris(world: WorldSpec) -> list[tuple[str, Path]]:
    """Every resource URI the spec names, with the folder its relative paths resolve against; in order, once each.

    Disabled ``<visual enabled="false">`` groups are skipped (MVSim does not load them).
    """
    from mvsim_ros.world.files import resources

    found: list[tuple[str, Path]] = []
    seen: set[tuple[str, str]] = set()
    base = Path(world.source_file or ".").parent
    for uri, folder in _walk(world, "", base, set()):
        key = (uri, "" if resources.is_remote_uri(uri) else str(folder))
        if key not in seen:
            seen.add(key)
            found.append((uri, folder))
    return found


def describe(resolution: Resolution) -> str:
    """One report line for a resolved resource: '<uri>: cached (path)', 'downloaded N bytes (path)', 'failed: ...'."""
    if resolution.path is None:
        return f"{resolution.uri}: failed: {resolution.reason}"
    if resolution.source == "downloaded":
        return f"{resolution.uri}: downloaded {resolution.downloaded_bytes} bytes ({resolution.path})"
    return f"{resolution.uri}: {resolution.source} ({resolution.path})"


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point; returns the exit status (0 all available, 1 some failed, 2 world not loaded or wrong
    arguments, 130 interrupted by Ctrl-C)."""
    try:
        return _fetch_all(_arguments(argv))
    except KeyboardInterrupt:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt the exit
        print("mvsim_fetch_models: interrupted (Ctrl-C); nothing more fetched", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED


def _positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, checked (argparse exits with status 2 and one line for a wrong one)."""
    from mvsim_ros.world.files import resources

    parser = argparse.ArgumentParser(
        prog="mvsim_fetch_models",
        description="Download every remote resource (3D models, textures) an MVSim world file names into the "
                    "local cache, and report each one.")
    parser.add_argument("world", help="MVSim world XML file")
    parser.add_argument("--storage-dir", default=None,
                        help="cache folder (default: $MVSIM_STORAGE_DIR, else ~/.cache/mvsim-storage)")
    parser.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="seconds allowed for connecting and for every read (default: "
                             f"$MVSIM_DOWNLOAD_TIMEOUT_S, else {resources.DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--deadline", type=_positive_seconds, default=None, metavar="S",
                        help="seconds allowed for each whole download, from the request to the last byte (default: "
                             f"${resources.ENV_DEADLINE_S}, else {resources.DEFAULT_DEADLINE_S:g})")
    args = parser.parse_args(argv)
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        parser.error(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
    return args


def _fetch_all(args: argparse.Namespace) -> int:
    """Load the world offline, then resolve (download) each resource it names, one report line each."""
    from mvsim_ros.world.files import resources
    from mvsim_ros.world.errors import WorldFileError
    from mvsim_ros.world.loader import load_world

    try:
        with resources.overrides(storage_dir=args.storage_dir, offline=True):
            world = load_world(args.world)
    except WorldFileError as exc:
        print(f"mvsim_fetch_models: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - one line, no traceback, for any loader failure
        print(f"mvsim_fetch_models: {args.world}: cannot load the world: {exc.__class__.__name__}: {exc}",
              file=sys.stderr)
        return 2
    uris = collect_resource_uris(world)
    if not uris:
        print(f"{args.world}: names no resource files")
        return 0
    failed = 0
    with resources.overrides(storage_dir=args.storage_dir, timeout_s=args.timeout, deadline_s=args.deadline):
        for uri, folder in uris:
            resolution = resources.resolve_uri(uri, folder)
            failed += resolution.path is None
            print(describe(resolution), flush=True)
    return 1 if failed else 0


def _walk(value, name: str, base: Path, visiting: set[int]) -> Iterator[tuple[str, Path]]:
    """(uri, base folder) pairs found in value, reached through a field / key / kept tag called name."""
    import numpy as np

    if isinstance(value, (str, Path)):
        yield from _uris_of(str(value).strip(), name, base)
        return
    if value is None or isinstance(value, (bool, int, float, complex, bytes, np.ndarray, np.generic)):
        return
    if id(value) in visiting:
        return
    visiting.add(id(value))
    try:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            if getattr(value, "model_uri", None) is not None and getattr(value, "enabled", True) is False:
                return
            source = getattr(value, "source", None)
            source_file = getattr(source, "file", None) or getattr(value, "source_file", None)
            if isinstance(source_file, str) and source_file:
                base = Path(source_file).parent
            tag = getattr(value, "tag", None)
            for item in dataclasses.fields(value):
                child_name = tag if item.name == "text" and isinstance(tag, str) else item.name
                yield from _walk(getattr(value, item.name), child_name, base, visiting)
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from _walk(item, str(key), base, visiting)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                yield from _walk(item, name, base, visiting)
    finally:
        visiting.discard(id(value))


def _uris_of(text: str, name: str, base: Path) -> Iterator[tuple[str, Path]]:
    from mvsim_ros.world.files import resources
    from mvsim_ros.world.specs import SKYBOX_FACES

    if not text or (name == "warnings"):
        return
    if not (resources.is_remote_uri(text) or any(word in name for word in _URI_FIELD_WORDS)):
        return
    if "texture" in name and "%s" in text:
        for face in SKYBOX_FACES:
            yield text.replace("%s", face), base
    else:
        yield text, base


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
