"""What the node's taps cost: recording a run (`python -m mvsim_ros.bench --record`) and serving Foxglove with a
client subscribed to every channel (`--foxglove`). Per row, the node's real-time factor on the row's world without
and with the tap, run alternately, and what the tap carried.

Each pair of runs measures the node as `--node` does (node_rtf: /clock over a span of wall time at
realtime_factor 0). The recording goes to a temporary folder (lz4 chunks, every topic), removed after each run.
The Foxglove client (FOXGLOVE_CLIENT, its own Python process: aiohttp) speaks the Foxglove WebSocket protocol: it
subscribes to every channel the server advertises and receives and counts every message's bytes; on a machine of
few cores it takes its share of them from the node, as a Foxglove app on the same machine would.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from mvsim_ros.bench.node import BenchRow
from mvsim_ros.bench.node_process import default_domain_id
from mvsim_ros.bench.node_rtf import node_rtf

#: The rows measured by default: 1 and 10 robots with a noisy 2D lidar each.
DEFAULT_ROWS = (BenchRow(1, "differential", True), BenchRow(10, "differential", True))


def recorded_run(row: BenchRow, wall_seconds: float, compression: str = "lz4") -> tuple[float, int, int]:
    """One run recording into a temporary file: (real-time factor, bytes written, messages in the file)."""
    from mcap.reader import make_reader

    with tempfile.TemporaryDirectory(prefix="mvsim_bench_record_") as folder:
        path = Path(folder) / "run.mcap"
        rtf = node_rtf(row, wall_seconds, params=(f"record:={path}", f"record_compression:={compression}")).rtf
        size = path.stat().st_size
        with path.open("rb") as stream:
            summary = make_reader(stream).get_summary()
        messages = summary.statistics.message_count if summary is not None and summary.statistics else 0
    return rtf, size, messages


def record_table(wall_seconds: float, repeat: int = 3, rows=DEFAULT_ROWS, compression: str = "lz4",
                 out=print) -> list[tuple[BenchRow, float, float]]:
    """Print (through `out`) and return, per row: the median real-time factor without and with recording over
    `repeat` alternating pairs of runs."""
    default_domain_id()
    out(f"recording cost: node at realtime_factor 0, without and with record:=FILE.mcap ({compression}, every topic), "
        f"runs alternating, median of {repeat} runs of {wall_seconds:g} s each")
    out(f"\n{'world':<26} {'plain':>9} {'recording':>10} {'cost':>7} {'MB/s (wall)':>12} {'msgs/s (wall)':>14}")
    results = []
    for row in rows:
        plain, recording, rates, message_rates = [], [], [], []
        for _ in range(repeat):
            plain.append(node_rtf(row, wall_seconds).rtf)
            rtf, size, messages = recorded_run(row, wall_seconds, compression)
            recording.append(rtf)
            span = wall_seconds + 2.0  # node_rtf's warm-up and measured span; the file holds the start-up too
            rates.append(size / span / 1e6)
            message_rates.append(messages / span)
        a, b = statistics.median(plain), statistics.median(recording)
        out(f"{row.name:<26} {a:8.1f}x {b:9.1f}x {100 * (1 - b / a):6.1f}% {statistics.median(rates):11.1f} "
            f"{statistics.median(message_rates):14,.0f}")
        results.append((row, a, b))
    return results


#: A Foxglove WebSocket client (argv: URL): subscribes to every advertised channel, counts the messages received and
#: their bytes until its standard input closes, then prints {"messages", "bytes", "seconds"} (seconds connected).
FOXGLOVE_CLIENT = """
import asyncio, json, re, sys, threading, time
import aiohttp

async def main(url):
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(done.set)), daemon=True).start()
    messages = size = next_id = 0
    async with aiohttp.ClientSession() as session:
        while not done.is_set():
            try:
                ws = await session.ws_connect(url, protocols=("foxglove.sdk.v1",), max_msg_size=0)
                break
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
        else:
            print(json.dumps({"messages": 0, "bytes": 0, "seconds": 0.0}))
            return
        start = time.monotonic()
        stop = asyncio.ensure_future(done.wait())
        while not done.is_set():
            receive = asyncio.ensure_future(ws.receive())
            await asyncio.wait({receive, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not receive.done():
                receive.cancel()
                break
            message = receive.result()
            if message.type == aiohttp.WSMsgType.BINARY and message.data[:1] == b"\\x01":
                messages += 1
                size += len(message.data) - 13  # opcode, subscription id, log time
            elif message.type == aiohttp.WSMsgType.TEXT:
                data = json.loads(message.data)
                ids = [c["id"] for c in data["channels"]] if data.get("op") == "advertise" else []
                unknown = re.match(r"Unknown channel ID: (\\d+)", data.get("message", ""))
                if data.get("op") == "status" and unknown:  # answered before the server recorded the channel
                    ids.append(int(unknown.group(1)))
                if ids:
                    subscriptions = []
                    for channel_id in ids:
                        next_id += 1
                        subscriptions.append({"id": next_id, "channelId": channel_id})
                    await ws.send_str(json.dumps({"op": "subscribe", "subscriptions": subscriptions}))
            elif message.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                break
        seconds = time.monotonic() - start
        await ws.close()
    print(json.dumps({"messages": messages, "bytes": size, "seconds": seconds}))

asyncio.run(main(sys.argv[1]))
"""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free at the moment."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def foxglove_run(row: BenchRow, wall_seconds: float, max_rate_hz: float | None = None) -> tuple[float, int, int, float]:
    """One run with `foxglove:=true` (and `foxglove_max_rate:=max_rate_hz` [Hz] unless None: the node's default)
    and FOXGLOVE_CLIENT subscribed to every channel: (real-time factor, messages and bytes the client received,
    seconds it was connected)."""
    port = free_port()
    client = subprocess.Popen([sys.executable, "-c", FOXGLOVE_CLIENT, f"ws://127.0.0.1:{port}"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        params = ("foxglove:=true", f"foxglove_port:={port}")
        if max_rate_hz is not None:
            params += (f"foxglove_max_rate:={float(max_rate_hz)!r}",)
        rtf = node_rtf(row, wall_seconds, params=params).rtf
    finally:
        out, err = client.communicate(input="", timeout=60)
    if client.returncode != 0 or not out.strip():
        raise RuntimeError(f"the Foxglove client failed: {err.strip()[-400:]}")
    counted = json.loads(out.strip().splitlines()[-1])
    return rtf, counted["messages"], counted["bytes"], counted["seconds"]


def foxglove_table(wall_seconds: float, repeat: int = 3, rows=DEFAULT_ROWS, out=print,
                   max_rate_hz: float | None = None) -> list[tuple[BenchRow, float, float]]:
    """Print (through `out`) and return, per row: the median real-time factor of the node alone and of the node
    with `foxglove:=true` and one client subscribed to every channel, over `repeat` alternating pairs of runs;
    `max_rate_hz`: the node's `foxglove_max_rate` [Hz] (None: its default)."""
    default_domain_id()
    limit = "the node's default" if max_rate_hz is None else f"{max_rate_hz:g} Hz"
    out(f"Foxglove cost: node at realtime_factor 0, alone and with foxglove:=true (foxglove_max_rate: {limit}) and "
        f"one client subscribed to every channel (receiving and counting every message), runs alternating, median "
        f"of {repeat} runs of {wall_seconds:g} s each")
    out(f"\n{'world':<26} {'node':>9} {'node+client':>12} {'ratio':>7} {'client msgs/s':>14} {'client MB/s':>12}")
    results = []
    for row in rows:
        plain, served, message_rates, byte_rates = [], [], [], []
        for _ in range(repeat):
            plain.append(node_rtf(row, wall_seconds).rtf)
            rtf, messages, size, seconds = foxglove_run(row, wall_seconds, max_rate_hz)
            served.append(rtf)
            message_rates.append(messages / seconds if seconds > 0 else 0.0)
            byte_rates.append(size / seconds / 1e6 if seconds > 0 else 0.0)
        a, b = statistics.median(plain), statistics.median(served)
        out(f"{row.name:<26} {a:8.1f}x {b:11.1f}x {b / a:7.2f} {statistics.median(message_rates):14,.0f} "
            f"{statistics.median(byte_rates):12.2f}")
        results.append((row, a, b))
    return results


__all__ = ["DEFAULT_ROWS", "FOXGLOVE_CLIENT", "foxglove_run", "foxglove_table", "free_port", "record_table",
           "recorded_run"]
