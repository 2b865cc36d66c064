"""ViewerServerProcess: the viewer's server in a child process — same page behaviour as ViewerServer, messages and
page state back to the owner, never blocking the owner (child stopped or gone), and no child outliving its owner."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import aiohttp
import pytest

from mvsim_ros.viewer.server import PortInUseError
from mvsim_ros.viewer.server_process import ViewerServerProcess

from test_server import SCENE, frame, pack, unpack_header


@pytest.fixture
def server():
    srv = ViewerServerProcess(port=0, rate_hz=25.0)
    srv.start()
    yield srv
    srv.stop()


def ws_url(srv: ViewerServerProcess) -> str:
    return f"ws://127.0.0.1:{srv.port}/ws"


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30.0))


async def until(condition, srv: ViewerServerProcess, seconds: float = 5.0) -> list[dict]:
    """Poll take_messages() (as ViewerLink does every frame) until condition(); returns the messages taken."""
    taken: list[dict] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        taken += srv.take_messages()
        if condition(taken):
            return taken
        await asyncio.sleep(0.02)
    raise AssertionError(f"condition not met within {seconds} s; messages: {taken}, pages: {srv.page_count}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) counts as gone
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_scene_frames_messages_and_page_state(server):
    server.set_scene(SCENE)
    image = pack({"type": "image", "camera": 2, "time": 0.5, "mime": "image/jpeg", "bytes": 3}, b"abc")

    async def go():
        async with aiohttp.ClientSession() as session, session.ws_connect(ws_url(server)) as ws:
            first = await ws.receive(timeout=5)
            assert first.type == aiohttp.WSMsgType.TEXT and json.loads(first.data) == SCENE
            await until(lambda _: server.page_count == 1, server)
            server.set_frame(frame(7))
            got = await ws.receive(timeout=5)
            assert got.type == aiohttp.WSMsgType.BINARY and unpack_header(got.data)["serial"] == 7
            await ws.send_str(json.dumps({"type": "drive", "vehicle": "r1", "v": 0.5, "w": -1}))
            await ws.send_str('{"type": "control", "action": "step", "steps": 3}')
            await ws.send_str('{"type": "drive", "vehicle": "r1", "v": NaN, "w": 0}')  # dropped by the child
            await ws.send_str('{"type": "camera", "index": 2}')
            taken = await until(lambda m: len(m) >= 2 and server.wanted_cameras() == {2}, server)
            assert taken == [{"type": "drive", "vehicle": "r1", "v": 0.5, "w": -1.0},
                             {"type": "control", "action": "step", "steps": 3}]
            server.set_image(2, image)
            got = await ws.receive(timeout=5)
            assert got.data == image
            server.set_scene({**SCENE, "version": 4})
            got = await ws.receive(timeout=5)
            assert json.loads(got.data)["version"] == 4

    run(go())

    async def closed():
        await until(lambda _: server.page_count == 0 and not server.wanted_cameras(), server)

    run(closed())


def test_frames_reach_the_page_at_the_rate_newest_only(server):
    server.set_scene(SCENE)

    async def go():
        async with aiohttp.ClientSession() as session, session.ws_connect(ws_url(server)) as ws:
            await ws.receive(timeout=5)
            serials, k = [], 0
            t0 = time.monotonic()
            while time.monotonic() - t0 < 2.0:  # the owner sets frames at 100 Hz
                server.take_messages()
                server.set_frame(frame(k))
                k += 1
                try:
                    msg = await ws.receive(timeout=0.01)
                    serials.append(unpack_header(msg.data)["serial"])
                except asyncio.TimeoutError:
                    pass
            return serials, time.monotonic() - t0

    serials, span = run(go())
    assert 18.0 <= len(serials) / span <= 27.0, len(serials) / span
    assert serials == sorted(serials) and len(set(serials)) == len(serials)


def test_owner_never_blocks_on_a_stopped_server(server):
    """A frozen server process (SIGSTOP) fills the pipe: the owner's calls stay quick and the scene is kept."""
    server.set_scene(SCENE)
    os.kill(server.pid, signal.SIGSTOP)
    try:
        big = frame(0, size=256 * 1024)
        slowest = 0.0
        for k in range(200):  # 50 MB offered to a pipe of at most 1 MiB
            t0 = time.perf_counter()
            server.set_frame(big)
            server.take_messages()
            slowest = max(slowest, time.perf_counter() - t0)
        server.set_scene({**SCENE, "version": 9})
    finally:
        os.kill(server.pid, signal.SIGCONT)
    assert slowest < 0.05, slowest
    server.set_frame(frame(99))

    async def go():
        async with aiohttp.ClientSession() as session, session.ws_connect(ws_url(server)) as ws:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # the owner keeps calling, as every frame does
                server.take_messages()
                try:
                    msg = await ws.receive(timeout=0.05)
                except asyncio.TimeoutError:
                    continue
                if msg.type == aiohttp.WSMsgType.TEXT and json.loads(msg.data)["version"] == 9:
                    return True
            return False

    assert run(go()), "the scene set while the server was stopped never reached a page"


def test_server_process_dying_leaves_the_owner_running(server, caplog):
    server.set_scene(SCENE)
    pid = server.pid
    os.kill(pid, signal.SIGKILL)
    with caplog.at_level(logging.WARNING, logger="mvsim_ros.viewer"):
        deadline = time.monotonic() + 5
        while not caplog.records and time.monotonic() < deadline:
            server.take_messages()
            server.set_frame(frame(1))
            time.sleep(0.01)
        for _ in range(20):  # still nothing raised, nothing more said
            server.set_scene(SCENE)
            server.set_image(0, b"x")
            assert server.take_messages() == []
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "server process ended" in warnings[0], warnings
    assert server.page_count == 0


def test_port_in_use_is_a_clear_error_and_leaves_no_process():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    srv = ViewerServerProcess(port=port)
    try:
        with pytest.raises(PortInUseError, match=rf"127\.0\.0\.1:{port}.*viewer_port"):
            srv.start()
    finally:
        taken.close()
    assert srv.pid is not None and not alive(srv.pid)


def test_stop_ends_the_child_and_ctrl_c_does_not(server):
    pid = server.pid
    os.kill(pid, signal.SIGINT)  # a Ctrl-C in the terminal reaches the whole process group
    time.sleep(0.3)
    assert alive(pid)
    server.set_scene(SCENE)
    server.stop()
    assert not alive(pid)


def test_child_does_not_outlive_a_killed_owner(tmp_path):
    owner = textwrap.dedent("""
        import sys, time
        from mvsim_ros.viewer.server_process import ViewerServerProcess
        srv = ViewerServerProcess(port=0)
        srv.start()
        print(srv.pid, flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", owner], stdout=subprocess.PIPE, text=True)
    try:
        child = int(proc.stdout.readline())
        assert alive(child)
        proc.kill()
        proc.wait(10)
        deadline = time.monotonic() + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child)
    finally:
        proc.kill()
        proc.wait(10)
