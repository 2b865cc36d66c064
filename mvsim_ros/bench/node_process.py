"""The simulator node as a separate process for the node benchmarks: started with parameters, stopped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def default_domain_id() -> None:
    """Give this process and the node processes it starts a ROS_DOMAIN_ID of their own (from the process id)
    unless one is set, so that a benchmark does not talk to other ROS programs on the machine."""
    os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))


def start_node(*params: str, env: dict | None = None) -> subprocess.Popen:
    """`mvsim_node` (its console script next to this Python, else the module) with `name:=value` parameters, its
    output discarded; `env`: its environment (this process's by default)."""
    script = Path(sys.executable).parent / "mvsim_node"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "mvsim_ros.ros.node.process"]
    args = [arg for param in params for arg in ("-p", param)]
    return subprocess.Popen(base + ["--ros-args", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)


def other_tree_environment(tree: Path, native_dir: Path) -> dict:
    """The environment that runs the mvsim_ros of another source tree `tree` (a checkout of this repository, e.g.
    `git worktree add /tmp/old <commit>`) with this Python: PYTHONPATH=tree, and its own native libraries built into
    `native_dir` (the Box2D shim and the recording library, where the tree has them, are named by a hash of their
    source, and a build deletes the other hashes of its folder, so two trees must not share one). Box2D's headers
    are copied from this tree's folder, so nothing is downloaded. RuntimeError when the tree is not a mvsim_ros
    checkout or does not build."""
    import shutil

    tree = Path(tree).resolve()
    if not (tree / "mvsim_ros" / "__init__.py").is_file():
        raise RuntimeError(f"{tree}: not a checkout of mvsim_ros (no mvsim_ros/__init__.py)")
    from mvsim_ros.physics.box2d_native.build import share_dir

    headers = share_dir() / "box2d-2.3.2"
    native_dir.mkdir(parents=True, exist_ok=True)
    if headers.is_dir() and not (native_dir / "box2d-2.3.2").exists():
        shutil.copytree(headers, native_dir / "box2d-2.3.2")
    # PYTHONSAFEPATH: `python -c` and `-m` would otherwise put the working directory (this tree, when run from its
    # root) ahead of PYTHONPATH.
    env = {**os.environ, "PYTHONPATH": str(tree), "MVSIM_NATIVE_DIR": str(native_dir), "PYTHONSAFEPATH": "1"}
    builders = {"physics/box2d_native/build.py": "from mvsim_ros.physics.box2d_native.build import main; main()",
                "output/recording/tee_library.py": "from mvsim_ros.output.recording.tee_library import main; main()"}
    builds = [code for path, code in builders.items() if (tree / "mvsim_ros" / path).is_file()]
    for code in builds:
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{tree}: building its native libraries failed: {done.stderr.strip()[-400:]}")
    return env


def stop_node(proc: subprocess.Popen, timeout_s: float = 20.0) -> None:
    """SIGTERM the node and wait for it; SIGKILL it after `timeout_s` [s]."""
    proc.terminate()
    try:
        proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


__all__ = ["default_domain_id", "other_tree_environment", "start_node", "stop_node"]
