"""Red team, remote resources (issue 27): a server on 127.0.0.1 that sends one byte a second keeps neither a world
load, the node nor `mvsim_fetch_models` past its deadline, and a SIGINT during such a download ends them at once.

Every server here is a thread of this process on 127.0.0.1 that drips at most a bounded number of bytes and stops
when the test ends. The session runs offline (conftest); these tests turn that off with monkeypatch.
"""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dds_probe import node_command
from mvsim_ros.world import load_world
from mvsim_ros.world.files import resources
from mvsim_ros.world.xml.limits import WorldLimits
from mvsim_ros.world.files.visual_models import clear_model_cache
from mvsim_ros.world.warning_summary import without_fetch_hint

#: Extra wall time [s] a deadline may be overrun by (thread start, a busy 2-core machine).
SLACK_S = 1.0
#: A signal during a download must end the waiting within this many seconds.
SIGNAL_S = 0.5
#: The node and mvsim_fetch_models must be gone within this many seconds of a SIGINT.
EXIT_S = 2.0
#: The block's declared <geometry type="box" lx="3" ly="2" lz="1"/> outline.
DECLARED = [(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (0.0, 2.0)]
_DEFINITIONS = Path(__file__).resolve().parents[2] / "worlds" / "definitions"


class DripServer:
    """HTTP on 127.0.0.1:<free port>: every GET gets 200 with a Content-Length of `length` bytes, then one byte
    every `interval_s` seconds; it stops sending when the client goes away, after `length` bytes, or at close().

    requested: set at the first request; paths: the paths asked for; hangups: monotonic times [s] at which
    clients closed their connection while the body was still dripping."""

    def __init__(self, length: int = 1000, interval_s: float = 1.0):
        self.length, self.interval_s = length, interval_s
        self.requested = threading.Event()
        self.paths: list[str] = []
        self.hangups: list[float] = []
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}{path}"

    def close(self) -> None:
        self._stop.set()
        for thread in list(self._threads):
            thread.join(timeout=5)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:  # the 0.1 s accept timeout, or the listener closed
                continue
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5.0)
            request = b""
            while b"\r\n\r\n" not in request and len(request) < 65536:
                piece = conn.recv(4096)
                if not piece:
                    return
                request += piece
            self.paths.append(request.split(b" ", 2)[1].decode())
            self.requested.set()
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                         b"Content-Length: %d\r\nConnection: close\r\n\r\n" % self.length)
            for _ in range(self.length):
                if self._client_left(conn) or self._stop.is_set():
                    return
                try:
                    conn.sendall(b"x")
                except OSError:
                    self.hangups.append(time.monotonic())
                    return

    def _client_left(self, conn: socket.socket) -> bool:
        """Wait one interval (or until the client closes); True, with the time noted, when it closed."""
        readable, _, _ = select.select([conn], [], [], self.interval_s)
        if readable:
            try:
                gone = conn.recv(1) == b""
            except OSError:
                gone = True
            if gone:
                self.hangups.append(time.monotonic())
                return True
        return False


@pytest.fixture
def drip():
    servers: list[DripServer] = []

    def start(**kwargs) -> DripServer:
        servers.append(DripServer(**kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def online(tmp_path, monkeypatch):
    """Downloads allowed (no proxy), cache = tmp_path/cache, no failures remembered from other tests."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("MVSIM_STORAGE_DIR", str(cache))
    monkeypatch.delenv("MVSIM_OFFLINE", raising=False)
    monkeypatch.delenv("MVSIM_DOWNLOAD_DEADLINE_S", raising=False)
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    resources.forget_failures()
    clear_model_cache()
    yield cache
    resources.forget_failures()


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def block_world(folder: Path, *uris: str, robot: bool = False) -> Path:
    """A world with one block per model URI, each shaped from its model (<shape_from_visual/>): the load reads
    the models. With `robot`, also a differential robot (the node prints its start-up line for it)."""
    folder.mkdir(parents=True, exist_ok=True)
    blocks = "".join(
        f'<block name="b{k}"><init_pose>{4 * k} 5 0</init_pose><geometry type="box" lx="3" ly="2" lz="1"/>'
        f"<shape_from_visual/>\n<visual><model_uri>{uri}</model_uri></visual></block>\n"
        for k, uri in enumerate(uris))
    vehicle = (f'<include file="{_DEFINITIONS / "diff_robot.vehicle.xml"}"/>\n<vehicle name="r1" class="diff_robot"/>\n'
               if robot else "")
    path = folder / "w.world.xml"
    path.write_text(f'<mvsim_world version="1.0">\n{vehicle}{blocks}</mvsim_world>\n')
    return path


# ------------------------------------------------------------------------------------------- in-process


def test_a_drip_fed_download_ends_at_its_deadline_and_leaves_nothing(online, drip):
    server = drip()
    url = server.url("/slow/model.obj")
    started = time.monotonic()
    result = resources.resolve_uri(url, deadline_s=2)
    elapsed = time.monotonic() - started
    assert result.path is None
    assert result.reason.startswith("download deadline of 2 s reached after ")
    assert result.reason.endswith(" bytes (MVSIM_DOWNLOAD_DEADLINE_S)")
    assert 2.0 <= elapsed < 2.0 + SLACK_S
    assert files_under(online) == []  # no half-written file, no temporary one
    deadline = time.monotonic() + SLACK_S
    while not server.hangups and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.hangups and server.hangups[0] - started < 2.0 + SLACK_S  # the connection was closed, not left
    again = resources.resolve_uri(server.url("/slow/other.obj"))  # a host that missed its deadline: not again
    assert "failed earlier in this process (download deadline of 2 s" in again.reason
    assert server.paths == ["/slow/model.obj"]


def test_the_deadline_comes_from_the_environment(online, drip, monkeypatch):
    server = drip()
    monkeypatch.setenv("MVSIM_DOWNLOAD_DEADLINE_S", "1.5")
    assert resources.current_settings().deadline_s == 1.5
    started = time.monotonic()
    reason = resources.resolve_uri(server.url("/m.obj")).reason
    assert reason.startswith("download deadline of 1.5 s reached") and time.monotonic() - started < 1.5 + SLACK_S


def test_a_world_load_with_a_drip_fed_model_warns_at_the_load_deadline_and_keeps_the_declared_shape(
        online, drip, tmp_path):
    server = drip()
    url = server.url("/m/crate.obj")
    world_file = block_world(tmp_path / "w", url)
    started = time.monotonic()
    world = load_world(world_file, limits=WorldLimits(max_download_seconds=2))
    elapsed = time.monotonic() - started
    assert elapsed < 2.0 + SLACK_S
    assert world.blocks[0].shape == DECLARED
    warnings = [w for w in world.warnings if url in w]
    assert len(warnings) == 1, world.warnings
    assert f"remote model unavailable: {url} (download deadline of 2 s reached after " in warnings[0]
    said = without_fetch_hint(warnings[0])
    assert said.endswith("bytes (limit max_download_seconds = 2, node parameter load_max_download_seconds)); "
                         "using the declared shape/bounding box")


def test_the_load_total_bounds_all_downloads_together(online, drip, tmp_path):
    """Three drip-fed models on three hosts, 2 s each allowed but 3 s in all: the first fails at 2 s, the second
    at what is left (1 s), the third is not requested; the load ends after about 3 s."""
    servers = [drip(), drip(), drip()]
    urls = [server.url(f"/m{k}.obj") for k, server in enumerate(servers)]
    started = time.monotonic()
    world = load_world(block_world(tmp_path / "w", *urls),
                       limits=WorldLimits(max_download_seconds=2, max_remote_seconds=3))
    elapsed = time.monotonic() - started
    assert 3.0 <= elapsed < 3.0 + SLACK_S
    assert all(block.shape == DECLARED for block in world.blocks)
    found = {url: [w for w in world.warnings if url in w] for url in urls}
    assert all(len(heard) == 1 for heard in found.values()), world.warnings
    assert "(limit max_download_seconds = 2, node parameter load_max_download_seconds)" in found[urls[0]][0]
    assert re.search(r"download deadline of (0\.9\d*|1) s reached", found[urls[1]][0]), found[urls[1]]
    assert ("what is left of the limit max_remote_seconds = 3, node parameter load_max_remote_seconds"
            in found[urls[1]][0])
    assert "no time left for downloads in this load" in found[urls[2]][0]
    assert [s.paths for s in servers] == [["/m0.obj"], ["/m1.obj"], []]


def test_a_signal_during_a_drip_fed_download_interrupts_the_load_at_once(online, drip, tmp_path):
    """The node's handling (ros/signals.py): inside `interruptible()`, SIGINT raises Interrupted within SIGNAL_S
    while the load waits for a download, and the download is cancelled (connection closed, nothing cached)."""
    from mvsim_ros.ros.node.signals import Interrupted, StopSignals

    server = drip()
    world_file = block_world(tmp_path / "w", server.url("/m.obj"))
    sent: list[float] = []

    def interrupt() -> None:
        if server.requested.wait(10):
            time.sleep(0.5)
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

    stop = StopSignals().install()
    try:
        threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(Interrupted):
            with stop.interruptible():
                load_world(world_file, limits=WorldLimits(max_download_seconds=60))
        ended = time.monotonic()
    finally:
        stop.hold()
        stop.uninstall()
    assert sent and ended - sent[0] < SIGNAL_S
    assert files_under(online) == []
    deadline = time.monotonic() + SLACK_S
    while not server.hangups and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.hangups and server.hangups[0] - sent[0] < SIGNAL_S + 0.5


# ------------------------------------------------------------------------------------------- the node process


def _start(command: list[str]) -> tuple[subprocess.Popen, list[str], threading.Thread]:
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []

    def read() -> None:
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return proc, lines, reader


def _finish(proc: subprocess.Popen, reader: threading.Thread) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    reader.join(timeout=10)


def _not_ros_log(lines: list[str]) -> list[str]:
    """Lines that are no ROS log line of the node: tracebacks, exceptions, Python warnings, anything else."""
    return [line for line in lines if line.strip() and not line.startswith(("[INFO] ", "[WARN] "))]


def test_the_node_on_a_drip_fed_model_starts_after_its_load_deadline_with_one_warning(online, drip, tmp_path):
    server = drip()
    url = server.url("/m/crate.obj")
    world_file = block_world(tmp_path / "w", url, robot=True)
    proc, lines, reader = _start(node_command(f"world_file:={world_file}", "load_max_download_seconds:=2",
                                              "realtime_factor:=0"))
    try:
        assert server.requested.wait(60), lines
        asked = time.monotonic()
        deadline = asked + 30
        while not any("drive it:" in line for line in lines) and time.monotonic() < deadline:
            assert proc.poll() is None, lines
            time.sleep(0.05)
        warned = [line for line in lines if url in line]
        assert len(warned) == 1 and warned[0].startswith("[WARN] "), lines
        assert "download deadline of 2 s reached after" in warned[0]
        assert "node parameter load_max_download_seconds" in warned[0]
        assert server.hangups and server.hangups[0] - asked < 2.0 + SLACK_S
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
    finally:
        _finish(proc, reader)
    assert proc.returncode == 0 and not _not_ros_log(lines), lines


def test_sigint_during_a_drip_fed_download_ends_the_node_at_once(online, drip, tmp_path):
    server = drip()
    world_file = block_world(tmp_path / "w", server.url("/m/crate.obj"), robot=True)
    proc, lines, reader = _start(node_command(f"world_file:={world_file}", "load_max_download_seconds:=60"))
    try:
        assert server.requested.wait(60), lines
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        exit_s = time.monotonic() - sent
    finally:
        _finish(proc, reader)
    assert exit_s < EXIT_S, f"still running {exit_s:.2f} s after SIGINT; {lines[-5:]}"
    assert proc.returncode == 0 and not _not_ros_log(lines), lines
    assert not any("Traceback" in line for line in lines)
    assert files_under(online) == []


# ------------------------------------------------------------------------------------------- mvsim_fetch_models


def _fetch_command(world_file: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "mvsim_ros.cli.fetch_models", str(world_file), *args]


def test_fetch_models_ends_at_its_deadline(online, drip, tmp_path):
    server = drip()
    url = server.url("/m/crate.obj")
    world_file = block_world(tmp_path / "w", url)
    proc = subprocess.Popen(_fetch_command(world_file, "--deadline", "2"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert server.requested.wait(60)
        asked = time.monotonic()
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - asked
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1 and err == "", err
    assert out.startswith(f"{url}: failed: download deadline of 2 s reached after ")
    assert len(out.splitlines()) == 1
    assert took < 2.0 + SLACK_S
    assert files_under(online) == []


def test_fetch_models_exits_130_on_sigint_with_one_line(online, drip, tmp_path):
    server = drip()
    world_file = block_world(tmp_path / "w", server.url("/m/crate.obj"))
    proc = subprocess.Popen(_fetch_command(world_file), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.requested.wait(60)
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
        exit_s = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert exit_s < EXIT_S
    assert err.splitlines() == ["mvsim_fetch_models: interrupted (Ctrl-C); nothing more fetched"], err
    assert out == ""
    assert files_under(online) == []


# ------------------------------------------------------------------------------------------- node parameters


def test_the_resource_limits_are_node_parameters():
    from mvsim_ros.ros.node.parameters import PARAMETERS, coerce, load_limits

    defaults = {"load_max_download_seconds": 120, "load_max_remote_seconds": 300,
                "load_max_mesh_vertices": 1_000_000, "load_max_mesh_faces": 2_000_000,
                "load_max_mesh_bytes": 512 * 1024 * 1024}
    assert {name: PARAMETERS[name].default for name in defaults} == defaults
    values = {name: spec.default for name, spec in PARAMETERS.items()}
    values["load_max_download_seconds"] = 7
    limits = load_limits(values)
    assert isinstance(limits, WorldLimits) and limits.max_download_seconds == 7
    assert limits.max_elements == PARAMETERS["load_max_elements"].default
    with pytest.raises(ValueError, match="parameter 'load_max_remote_seconds' = 0: must be > 0"):
        coerce("load_max_remote_seconds", 0, PARAMETERS["load_max_remote_seconds"])
