"""FoxgloveBridge without ROS middleware: channels follow the node's publishers, client messages reach the node's
subscriptions in its own thread, and the origin gate refuses foreign pages (a WebSocket client from aiohttp)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from geometry_msgs.msg import Twist
from rclpy.serialization import serialize_message

from mvsim_ros.ros.foxglove.taps import combine_taps

foxglove = pytest.importorskip("foxglove")
aiohttp = pytest.importorskip("aiohttp")

from mvsim_ros.ros.foxglove.bridge import FoxgloveBridge  # noqa: E402

SUBPROTOCOL = "foxglove.sdk.v1"


class StubNode:
    """What the bridge uses of a node: its publishers, subscriptions, services, executor and logger."""

    def __init__(self):
        self.publishers: list = []
        self.subscriptions: list = []
        self.services: list = []
        self.executor = None
        self.warnings: list[str] = []

    def get_logger(self):
        return SimpleNamespace(warning=self.warnings.append)


async def next_op(ws, op: str, timeout: float = 5.0) -> dict:
    """The next JSON message with this op."""
    while True:
        message = await asyncio.wait_for(ws.receive(), timeout)
        if message.type == aiohttp.WSMsgType.TEXT and json.loads(message.data)["op"] == op:
            return json.loads(message.data)


@pytest.fixture
def bridge():
    node = StubNode()
    served = FoxgloveBridge(node, "127.0.0.1", 0, [], lambda: 1.5)
    yield node, served
    served.close()


def test_channels_follow_publishers_and_clients_publish_commands(bridge):
    node, served = bridge
    publisher = SimpleNamespace(topic_name="/r1/cmd_vel_echo")
    node.publishers.append(publisher)
    assert served.tap_publisher(publisher, Twist) is not None
    received = []
    node.subscriptions.append(SimpleNamespace(topic_name="/r1/cmd_vel", msg_type=Twist, callback=received.append))

    async def talk():
        url = f"ws://127.0.0.1:{served.port}"
        async with aiohttp.ClientSession() as session, session.ws_connect(url, protocols=(SUBPROTOCOL,)) as ws:
            advertised = await next_op(ws, "advertise")
            assert [(c["topic"], c["encoding"], c["schemaEncoding"], c["schemaName"])
                    for c in advertised["channels"]] == [("/r1/cmd_vel_echo", "cdr", "ros2msg",
                                                          "geometry_msgs/msg/Twist")]
            await ws.send_str(json.dumps({"op": "advertise", "channels": [
                {"id": 7, "topic": "/r1/cmd_vel", "encoding": "cdr", "schemaName": "geometry_msgs/msg/Twist"}]}))
            twist = Twist()
            twist.linear.x = 0.25
            await asyncio.sleep(0.2)
            await ws.send_bytes(bytes([1]) + (7).to_bytes(4, "little") + serialize_message(twist))
            for _ in range(50):
                await asyncio.sleep(0.05)
                served.service()
                if received:
                    break
            node.publishers.remove(publisher)
            served.service()  # the first check comes due at once
            await asyncio.sleep(0.6)
            served.service()
            gone = await next_op(ws, "unadvertise")
            assert gone["channelIds"] == [advertised["channels"][0]["id"]]

    asyncio.run(talk())
    assert [msg.linear.x for msg in received] == [0.25]
    assert served.topics == []


def test_a_foreign_origin_is_refused(bridge):
    _, served = bridge

    async def connect(origin):
        url = f"ws://127.0.0.1:{served.port}"
        headers = {"Origin": origin} if origin else {}
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(url, protocols=(SUBPROTOCOL,), headers=headers):
                    return 101
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status

    assert asyncio.run(connect("http://evil.example")) == 403
    assert asyncio.run(connect(None)) == 101
    assert asyncio.run(connect(f"http://127.0.0.1:{served.port}")) == 101


def test_combined_taps_hand_the_same_bytes_to_each():
    heard: list[tuple[str, bytes]] = []

    def tap(name):
        return lambda publisher, msg_type: (lambda data: heard.append((name, data)))

    assert combine_taps(None, None) is None
    single = tap("a")
    assert combine_taps(None, single) is single
    combine_taps(tap("a"), tap("b"))(object(), Twist)(b"xy")
    assert heard == [("a", b"xy"), ("b", b"xy")]
