"""Where a recording goes: the target path checked, a partial file beside it, and the move into place.

A recording never touches an existing file until its run has started: it writes into a new partial file in the
target's folder (`.NAME.PID.partial`, created exclusively, never through a link) and `claim()` renames that onto
the target once the run is under way. A start that fails (a broken world, a taken viewer port, a signal) deletes
the partial file and leaves whatever was at the target as it was. After the claim the file is at its final name
for the rest of the run, so a process killed mid-run leaves its chunks there.

Targets:
- absent, or a regular file this process may write (replaced whole by the rename; a read-only file is refused);
- a symbolic link: the link itself is replaced by the new file, and `note` says so, unless `follow_symlinks`, in
  which case the file the link resolves to is the target (and must itself be absent or a regular file);
- anything else (a folder, a FIFO, a device such as /dev/null, a socket) is refused with one line: renaming onto
  it would replace a special file, and opening it would block or discard the run.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: What a file that is not a regular one is called in the refusal.
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class TargetError(ValueError):
    """The recording's target cannot be used (one line: which path and why)."""


@dataclass(frozen=True)
class Target:
    """A checked target: `path` (where the file ends up), `partial` (where it is written until `claim`), and
    `note` (one line for the log, or None)."""

    path: Path
    partial: Path
    note: str | None


def _kind(mode: int) -> str | None:
    """What a file of `mode` is, when it is not a regular file or a link."""
    return next((name for test, name in _KINDS if test(mode)), None)


def check_target(path: str | Path, follow_symlinks: bool = False) -> Target:
    """The Target for recording into `path`; TargetError when it is a folder or a special file (directly, or
    through a link that is followed). A missing folder shows when the partial file is created."""
    given = Path(path)
    if not str(path).strip():
        raise TargetError("cannot record: the file name is empty")
    note = None
    try:
        info = os.lstat(given)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise TargetError(f"cannot record to '{given}': {exc.strerror or exc}") from None
    final = given
    if info is not None and stat.S_ISLNK(info.st_mode):
        pointed = os.path.realpath(given)
        if follow_symlinks:
            final = Path(pointed)
            note = f"recording into '{pointed}', the file the link '{given}' points to"
            try:
                info = os.stat(final)
            except FileNotFoundError:
                info = None
            except OSError as exc:
                raise TargetError(f"cannot record to '{given}' (a link to '{pointed}'): {exc.strerror or exc}") \
                    from None
        else:
            note = (f"'{given}' is a symbolic link (to '{pointed}'): the recording replaces the link with a new "
                    f"file and leaves '{pointed}' alone (record_follow_symlinks:=true writes to '{pointed}' instead)")
            info = None
    if info is not None:
        kind = _kind(info.st_mode)
        if kind is not None:
            raise TargetError(f"cannot record to '{final}': it is {kind}, not a regular file; name a file to create "
                              "or replace")
        if not os.access(final, os.W_OK):  # a file made read-only is not replaced behind its owner's back
            raise TargetError(f"cannot record to '{final}': Permission denied (the file is read-only)")
    return Target(final, final.parent / f".{final.name}.{os.getpid()}.partial", note)


def create_partial(target: Target):
    """Create `target.partial` (exclusively, never through a link) and return it open for binary writing;
    TargetError when it cannot be created."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(target.partial, flags, 0o666)
    except FileExistsError:
        os.unlink(target.partial)  # left by an earlier process with this id (killed before its run started)
        descriptor = os.open(target.partial, flags, 0o666)
    except OSError as exc:
        raise TargetError(f"cannot record to '{target.path}': {exc.strerror or exc}") from None
    return os.fdopen(descriptor, "wb")


def claim(target: Target) -> None:
    """Move the partial file onto the target (atomically, in one folder). TargetError when the target has become a
    folder or a special file since the check, or the rename fails; the partial file is then kept."""
    try:
        info = os.lstat(target.path)
    except FileNotFoundError:
        info = None
    kind = None if info is None else _kind(info.st_mode)
    if kind is not None:
        raise TargetError(f"recording kept in '{target.partial}': '{target.path}' has become {kind}")
    try:
        os.replace(target.partial, target.path)
    except OSError as exc:
        raise TargetError(f"recording kept in '{target.partial}': moving it to '{target.path}' failed: "
                          f"{exc.strerror or exc}") from None


def discard(target: Target) -> None:
    """Delete the partial file (a run that never started)."""
    try:
        os.unlink(target.partial)
    except FileNotFoundError:
        pass
