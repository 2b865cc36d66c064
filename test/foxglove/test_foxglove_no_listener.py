"""With `foxglove:=true` and no client subscribed, the node does the work it does without Foxglove: no outlet
serializes a message for it and the compiled fast path delivers straight to rcl. Once a client subscribes to every
channel (a WebSocket client from aiohttp speaking the Foxglove protocol), the bytes flow: Python publishers'
messages are serialized once for the channel and the fast path is routed through it.

The node runs in this process (the real MvsimNode, its outlets and their taps); serializations are counted where
the outlets serialize (ros/publishing/outlet.serialize_message). Besides the node's own topics, a probe outlet made
by the node's `outlets` publishes a String at every turn, as any Python publisher of the node does."""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest
import rclpy
from std_msgs.msg import String
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter

from conftest import DEMO_WORLD

pytest.importorskip("foxglove")
aiohttp = pytest.importorskip("aiohttp")

from mvsim_ros.ros.publishing import outlet as outlet_module  # noqa: E402

SUBPROTOCOL = "foxglove.sdk.v1"
#: Opcode of a binary server frame carrying a message (Foxglove WebSocket protocol).
MESSAGE_DATA = 1
#: What foxglove-sdk 0.30 may answer a subscription sent as soon as a channel's advertisement arrives (the
#: subscription can reach the server before it has recorded the channel for this client): the client subscribes again.
UNKNOWN_CHANNEL = re.compile(r"Unknown channel ID: (\d+)")
#: Topics the client must receive: the fast path's (/clock, odometry) and the probe's.
EXPECTED = ("/clock", "/r1/odom", "/foxglove_probe")


@pytest.fixture
def node_and_serializations(monkeypatch):
    serialized: list[type] = []
    real = outlet_module.serialize_message

    def counting(msg):
        serialized.append(type(msg))
        return real(msg)

    monkeypatch.setattr(outlet_module, "serialize_message", counting)
    from mvsim_ros.ros.node.simulator_node import MvsimNode

    context = rclpy.Context()
    rclpy.init(context=context)
    node = MvsimNode(context=context, parameter_overrides=[
        Parameter("world_file", value=str(DEMO_WORLD)), Parameter("headless", value=True),
        Parameter("foxglove", value=True), Parameter("foxglove_port", value=0),
        Parameter("status_period", value=0.0)])
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        yield node, executor, serialized
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=context)


def spin(executor, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.01)


def test_no_client_means_no_serialization_and_a_client_gets_every_channel(node_and_serializations):
    node, executor, serialized = node_and_serializations
    probe = node.outlets.create(String, "/foxglove_probe", 10)
    start = node.sim.time
    for _ in range(20):
        probe.publish(String(data="probe"))
        spin(executor, 0.1)
    assert node.sim.time > start + 0.2  # the simulation ran and published
    bridge = node.foxglove
    assert serialized == []
    assert not bridge.subscribed() and not bridge.fast_path.routed
    assert "/clock" in bridge.topics and "/r1/odom" in bridge.topics and "/foxglove_probe" in bridge.topics
    assert not probe.tap_wanted() and not probe.listened()

    async def subscribe_to_everything() -> tuple[dict[str, int], bool]:
        received: dict[str, int] = {}
        url = f"ws://127.0.0.1:{bridge.port}"
        async with aiohttp.ClientSession() as session, session.ws_connect(url, protocols=(SUBPROTOCOL,)) as ws:
            topics: dict[int, str] = {}
            attempts: dict[int, int] = {}
            by_subscription: dict[int, int] = {}
            end = time.monotonic() + 20.0
            while time.monotonic() < end and not all(t in received for t in EXPECTED):
                executor.spin_once(timeout_sec=0.0)
                probe.publish(String(data="probe"))
                try:
                    message = await asyncio.wait_for(ws.receive(), 0.01)
                except asyncio.TimeoutError:
                    continue
                if message.type == aiohttp.WSMsgType.TEXT:
                    data = json.loads(message.data)
                    subscriptions = []
                    if data["op"] == "advertise":
                        for channel in data["channels"]:
                            topics[channel["id"]] = channel["topic"]
                            subscriptions.append(channel["id"])
                    elif data["op"] == "status" and UNKNOWN_CHANNEL.match(data.get("message", "")):
                        subscriptions.append(int(UNKNOWN_CHANNEL.match(data["message"]).group(1)))
                    for channel_id in subscriptions:  # subscription id = channel id + 1000 x attempt
                        attempts[channel_id] = attempts.get(channel_id, -1) + 1
                        by_subscription[channel_id + 1000 * attempts[channel_id]] = channel_id
                    if subscriptions:
                        await ws.send_str(json.dumps({"op": "subscribe", "subscriptions": [
                            {"id": channel_id + 1000 * attempts[channel_id], "channelId": channel_id}
                            for channel_id in subscriptions]}))
                elif message.type == aiohttp.WSMsgType.BINARY and message.data[0] == MESSAGE_DATA:
                    topic = topics[by_subscription[int.from_bytes(message.data[1:5], "little")]]
                    received[topic] = received.get(topic, 0) + 1
            return received, probe.tap_wanted() and bridge.fast_path.routed

    received, served = asyncio.run(subscribe_to_everything())
    assert all(received.get(t, 0) > 0 for t in EXPECTED), received
    assert String in serialized  # a subscribed Python publisher's messages are serialized once for its channel
    assert served
    # The client gone, the node goes back to the work it does without Foxglove.
    end = time.monotonic() + 20.0
    while time.monotonic() < end and (bridge.fast_path.routed or probe.tap_wanted()):
        executor.spin_once(timeout_sec=0.01)
    assert not probe.tap_wanted() and not bridge.fast_path.routed
    count = len(serialized)
    probe.publish(String(data="probe"))
    assert len(serialized) == count


def test_an_outlet_serializes_only_while_a_tap_wants_the_bytes(monkeypatch):
    """Outlet and combined taps alone: a tap that does not want the bytes costs no serialization; combined, the taps
    are wanted while any one is, and each gets the bytes only while it wants them."""
    from types import SimpleNamespace

    from mvsim_ros.ros.foxglove.taps import combine_taps
    from mvsim_ros.ros.publishing.outlet import Outlet, TopicTap

    serialized, heard, published = [], [], []
    monkeypatch.setattr(outlet_module, "serialize_message", lambda msg: serialized.append(msg) or b"bytes")
    foxglove_wants = [False]
    foxglove_tap = TopicTap(lambda data: heard.append(("foxglove", data)), lambda: foxglove_wants[0])
    publisher = SimpleNamespace(topic_name="/t", publish=published.append,
                                handle=SimpleNamespace(publish_raw=published.append, pointer=None))
    alone = Outlet(publisher, combine_taps(lambda p, t: foxglove_tap)(publisher, String))
    alone.publish(String(data="a"))
    assert serialized == [] and heard == [] and len(published) == 1 and not alone.tap_wanted()
    foxglove_wants[0] = True
    alone.publish(String(data="b"))
    assert len(serialized) == 1 and heard == [("foxglove", b"bytes")] and published[-1] == b"bytes"

    foxglove_wants[0] = False
    recorded = Outlet(publisher, combine_taps(lambda p, t: (lambda data: heard.append(("recording", data))),
                                              lambda p, t: foxglove_tap)(publisher, String))
    recorded.publish(String(data="c"))
    assert recorded.tap_wanted() and heard[-1] == ("recording", b"bytes") and len(heard) == 2
