"""Foxglove forwarding's wall-clock rate limit (`foxglove_max_rate`): the tee's native gate drops by wall time
(driven with given times), only due fast-path deliveries reach the forward function (a separate process with a fake
rcl), Python publishers' taps are due within the limit, transient-local publishers and a limit of 0 forward every
message, and bad values of the parameter are refused with one line naming it."""

from __future__ import annotations

import math
import subprocess
import sys
from types import SimpleNamespace

import pytest
from geometry_msgs.msg import Twist
from rclpy.qos import DurabilityPolicy, QoSProfile

from mvsim_ros.output.recording import tee_library
from mvsim_ros.ros.foxglove.rate_gate import RateGate, interval_ns
from mvsim_ros.ros.node.parameters import PARAMETERS, ParameterError, coerce
from mvsim_ros.ros.publishing.outlet import Outlet

MS = 1_000_000  # [ns]


@pytest.fixture
def tee():
    try:
        library = tee_library.tee()
    except tee_library.TeeUnavailable as exc:
        pytest.skip(str(exc))
    library.mvsim_tee_gate_clear()
    yield library
    library.mvsim_tee_gate_clear()


def test_the_native_gate_forwards_one_message_per_interval_of_wall_time(tee):
    limited, every, never, unknown = 0x7F0001000, 0x7F0002000, 0x7F0003000, 0x7F0004000
    assert tee.mvsim_tee_gate(limited, 10 * MS) == 0
    assert tee.mvsim_tee_gate(every, 0) == 0
    assert tee.mvsim_tee_gate(never, -1) == 0
    times = [0, 5, 10, 12, 20, 29, 30, 100, 105, 110, 111]  # [ms]
    passed = [tee.mvsim_tee_gate_pass(limited, t * MS) for t in times]
    # Due at 0, 10, 20, 30; after the pause, 100 and 105 (the credit of one unused interval), then 110, not 111.
    assert passed == [1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    assert all(tee.mvsim_tee_gate_pass(every, t * MS) for t in (0, 0, 1, 1, 2))
    assert not any(tee.mvsim_tee_gate_pass(h, t * MS) for h in (never, unknown) for t in (0, 50, 5000))
    assert tee.mvsim_tee_gate(limited, 10 * MS) == 0  # a new gate: the first message is due again
    assert tee.mvsim_tee_gate_pass(limited, 111 * MS) == 1


#: In its own process (the tee's target is process-wide): a fake rcl publish counts deliveries, the forward
#: function counts what reaches Python; prints delivered, forwarded for gated, every and ungated handles, seconds.
FAKE_DELIVERIES = """
import ctypes, json, time
from mvsim_ros.output.recording import tee_library
DELIVER = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t)
delivered, forwarded = {}, {}
publish = DELIVER(lambda h, m, a: delivered.__setitem__(h, delivered.get(h, 0) + 1) or 0)
forward = DELIVER(lambda h, m, a: forwarded.__setitem__(h, forwarded.get(h, 0) + 1) or 0)
tee = tee_library.tee()
tee.mvsim_tee_set_target(ctypes.cast(publish, ctypes.c_void_p).value)
tee.mvsim_tee_set_forward(ctypes.cast(forward, ctypes.c_void_p).value)
tee.mvsim_tee_gate(1, 1_000_000_000)
tee.mvsim_tee_gate(2, 0)
buffer = ctypes.create_string_buffer(16)
message = (ctypes.c_size_t * 3)(ctypes.addressof(buffer), 16, 16)
start = time.monotonic()
for _ in range(2000):
    for handle in (1, 2, 3):
        tee.mvsim_tee_deliver(handle, ctypes.addressof(message), 0)
seconds = time.monotonic() - start
tee.mvsim_tee_set_forward(None)
for handle in (1, 2, 3):
    tee.mvsim_tee_deliver(handle, ctypes.addressof(message), 0)
print(json.dumps({"delivered": [delivered.get(h, 0) for h in (1, 2, 3)],
                  "forwarded": [forwarded.get(h, 0) for h in (1, 2, 3)], "seconds": seconds}))
"""


def test_only_due_deliveries_reach_the_forward_function(tee):
    import json

    result = subprocess.run([sys.executable, "-c", FAKE_DELIVERIES], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    counts = json.loads(result.stdout.strip().splitlines()[-1])
    assert counts["delivered"] == [2001, 2001, 2001]  # every message is published, forwarded or not
    gated, every, ungated = counts["forwarded"]
    assert 1 <= gated <= 2 + math.ceil(counts["seconds"])  # 1 s interval: two at first, then one per second
    assert every == 2000 and ungated == 0  # none forwarded once the forward function is unset


def test_the_python_gate_allows_one_message_per_interval():
    now = [0.0]
    gate = RateGate(0.010, clock=lambda: now[0])
    passed = []
    for t in (0, 5, 10, 12, 20, 29, 30, 100, 105, 110, 111):
        now[0] = t / 1000
        passed.append(gate.due())
        if passed[-1]:
            gate.passed()
    assert passed == [True, False, True, False, True, False, True, True, True, True, False]
    assert interval_ns(0.0) == 0 and interval_ns(60.0) == 16_666_667 and interval_ns(0.1) == 10_000_000_000


def publisher(topic: str, durability: DurabilityPolicy, pointer: int | None = None) -> SimpleNamespace:
    published: list = []
    return SimpleNamespace(topic_name=topic, publish=published.append, published=published,
                           qos_profile=QoSProfile(depth=1, durability=durability),
                           handle=SimpleNamespace(publish_raw=published.append, pointer=pointer))


@pytest.fixture
def bridge_factory():
    pytest.importorskip("foxglove")
    from mvsim_ros.ros.foxglove.bridge import FoxgloveBridge

    made = []

    def make(max_rate_hz: float):
        node = SimpleNamespace(publishers=[], subscriptions=[],
                               get_logger=lambda: SimpleNamespace(warning=lambda text: None))
        made.append(FoxgloveBridge(node, "127.0.0.1", 0, [], lambda: 1.5, max_rate_hz))
        return made[-1]

    yield make
    for bridge in made:
        bridge.close()


def test_python_taps_are_due_within_the_limit_and_latched_topics_always(bridge_factory, monkeypatch):
    from mvsim_ros.ros.publishing import outlet as outlet_module

    bridge = bridge_factory(0.1)  # one message per 10 s of wall time
    volatile = publisher("/r1/cmd_vel_echo", DurabilityPolicy.VOLATILE)
    latched = publisher("/latched", DurabilityPolicy.TRANSIENT_LOCAL)
    limited_tap, latched_tap = bridge.tap_publisher(volatile, Twist), bridge.tap_publisher(latched, Twist)
    assert limited_tap.due() and latched_tap.due()
    for _ in range(2):  # the first message, then one on the credit of the interval before it
        assert limited_tap.due()
        limited_tap.send(b"\0\1\0\0")
        latched_tap.send(b"\0\1\0\0")
    assert not limited_tap.due()  # the next is due 10 s later
    assert latched_tap.due()

    serialized = []
    monkeypatch.setattr(outlet_module, "serialize_message", lambda msg: serialized.append(msg) or b"bytes")
    sent = []
    outlet = Outlet(volatile, outlet_module.TopicTap(sent.append, lambda: True, limited_tap.due))
    outlet.publish(Twist())
    assert serialized == [] and sent == [] and len(volatile.published) == 1  # not due: published as is

    unlimited = bridge_factory(0.0)
    tap = unlimited.tap_publisher(publisher("/r1/cmd_vel_echo", DurabilityPolicy.VOLATILE), Twist)
    for _ in range(5):
        assert tap.due()
        tap.send(b"\0\1\0\0")


def test_fast_path_publishers_get_a_native_gate(bridge_factory, tee):
    bridge = bridge_factory(0.1)
    volatile, latched = 0x7E0001000, 0x7E0002000
    bridge.tap_publisher(publisher("/r1/odom_like", DurabilityPolicy.VOLATILE, volatile), Twist)
    bridge.tap_publisher(publisher("/latched", DurabilityPolicy.TRANSIENT_LOCAL, latched), Twist)
    assert [tee.mvsim_tee_gate_pass(volatile, t * MS) for t in (0, 1, 9_999, 10_000)] == [1, 0, 0, 1]
    assert all(tee.mvsim_tee_gate_pass(latched, t * MS) for t in (0, 1, 2))
    unlimited = bridge_factory(0.0)
    every = 0x7E0003000
    unlimited.tap_publisher(publisher("/r2/odom_like", DurabilityPolicy.VOLATILE, every), Twist)
    assert all(tee.mvsim_tee_gate_pass(every, t * MS) for t in (0, 0, 1))


@pytest.mark.parametrize("value", [-1.0, 0.05, math.nan, math.inf, "fast", True])
def test_bad_max_rates_are_refused_with_one_line(value):
    with pytest.raises(ParameterError, match="foxglove_max_rate") as caught:
        coerce("foxglove_max_rate", value, PARAMETERS["foxglove_max_rate"])
    assert "\n" not in str(caught.value)


def test_good_max_rates_are_taken():
    spec = PARAMETERS["foxglove_max_rate"]
    assert spec.default == 60.0
    assert coerce("foxglove_max_rate", 0, spec) == 0.0 and coerce("foxglove_max_rate", 30, spec) == 30.0
    assert coerce("foxglove_max_rate", 0.1, spec) == 0.1


def test_the_node_forwards_each_stream_within_its_limit(tmp_path):
    """The whole path (parameter, bridge, native gate): the node at realtime_factor 0 with foxglove_max_rate:=5 and
    a client subscribed to every channel; /clock (the fast path) and /r1/odom reach it at about 5 Hz of wall time
    while the simulation publishes them hundreds of times faster."""
    import asyncio
    import json
    import re
    import time

    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from conftest import DEMO_WORLD

    pytest.importorskip("foxglove")
    aiohttp = pytest.importorskip("aiohttp")
    from mvsim_ros.ros.node.simulator_node import MvsimNode

    context = rclpy.Context()
    rclpy.init(context=context)
    node = MvsimNode(context=context, parameter_overrides=[
        Parameter("world_file", value=str(DEMO_WORLD)), Parameter("headless", value=True),
        Parameter("realtime_factor", value=0.0), Parameter("foxglove", value=True),
        Parameter("foxglove_port", value=0), Parameter("foxglove_max_rate", value=5.0),
        Parameter("status_period", value=0.0)])
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    unknown = re.compile(r"Unknown channel ID: (\d+)")

    async def count(seconds: float) -> tuple[dict[str, int], float, float]:
        received: dict[str, int] = {}
        topics: dict[int, str] = {}
        url = f"ws://127.0.0.1:{node.foxglove.port}"
        async with aiohttp.ClientSession() as session, session.ws_connect(url, protocols=("foxglove.sdk.v1",)) as ws:
            start, sim_start = time.monotonic(), node.sim.time
            while time.monotonic() < start + seconds:
                executor.spin_once(timeout_sec=0.0)
                try:
                    message = await asyncio.wait_for(ws.receive(), 0.005)
                except asyncio.TimeoutError:
                    continue
                if message.type == aiohttp.WSMsgType.TEXT:
                    data = json.loads(message.data)
                    ids = []
                    if data["op"] == "advertise":
                        ids = [c["id"] for c in data["channels"]]
                        topics.update((c["id"], c["topic"]) for c in data["channels"])
                    elif data["op"] == "status" and unknown.match(data.get("message", "")):
                        ids = [int(unknown.match(data["message"]).group(1))]
                    if ids:  # subscription id = channel id (a repeated subscription replaces the first)
                        await ws.send_str(json.dumps({"op": "subscribe", "subscriptions": [
                            {"id": i, "channelId": i} for i in ids]}))
                elif message.type == aiohttp.WSMsgType.BINARY and message.data[0] == 1:
                    topic = topics[int.from_bytes(message.data[1:5], "little")]
                    received[topic] = received.get(topic, 0) + 1
            return received, time.monotonic() - start, node.sim.time - sim_start

    try:
        received, wall, simulated = asyncio.run(count(3.0))
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=context)
    assert simulated > 2.0  # /clock was published at least 200 times, odometry 100 times
    for topic in ("/clock", "/r1/odom"):
        assert 1 <= received.get(topic, 0) <= 2 + 5 * wall, (topic, received, wall)  # 5 Hz, plus one early
