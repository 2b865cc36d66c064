"""The node's topics live in Foxglove: a Foxglove WebSocket server (foxglove-sdk) behind an `OriginGate`.

- Published topics: `tap_publisher` is an outlet tap (ros/publishing/outlet.PublisherTap), like the recording's.
  Each publisher's topic becomes a `ros2msg`/`cdr` channel (schema from output/recording/schemas.py) and the
  outlet hands it the bytes it publishes while a client subscribes to it (`Channel.has_sinks` is the tap's
  `wanted`): with no client subscribed nothing is serialized for Foxglove. The compiled fast path's deliveries
  reach the channels through `FastPathTap` (fast_path_tap.py), forwarded only while some client subscribes.
- Rate limit (`max_rate_hz`, the node's `foxglove_max_rate`): each publisher's messages are forwarded at most
  max_rate_hz times per wall second (rate_gate.py): a Python publisher's through its tap's `due` (before
  serialization), a fast-path publisher's through its gate in the tee (decided in C). Transient-local publishers'
  messages are all forwarded; 0 Hz forwards every message.
  A topic's channel closes once its last publisher is gone from the node (a deleted entity); `service` checks
  every CHANNEL_CHECK_PERIOD_S of wall time.
- Time: `service` broadcasts the simulated time [ns] as the server's time (what /clock carries).
- Client publish: clients may advertise channels on the node's `cmd_vel` and `goal_pose` topics (cdr); what they
  send is deserialized and handed, in the node's thread (`service`), to the node's subscriptions on that topic,
  as a DDS message would be.
- Services: the node's services (the simulation services under `~/`) are Foxglove services of the same names
  (service_calls.py); a call's callback runs in the node's executor, handed over by `service`, which offers the
  node's services as they come and go at each channel check.
"""

from __future__ import annotations

import collections
import errno
import threading
import time
from typing import Any, Callable

import foxglove
from foxglove.websocket import Capability, ServerListener
from rclpy.serialization import deserialize_message

from mvsim_ros.output.recording.schemas import MessageDefinitions
from mvsim_ros.ros.foxglove.fast_path_tap import FastPathTap
from mvsim_ros.ros.foxglove.origin_gate import OriginGate
from mvsim_ros.ros.foxglove.rate_gate import DEFAULT_MAX_RATE_HZ, RateGate, interval_ns, is_transient_local
from mvsim_ros.ros.foxglove.service_calls import ServiceCalls
from mvsim_ros.ros.node.parameters import ParameterError
from mvsim_ros.ros.node.recording import fields_of, type_name
from mvsim_ros.ros.publishing.outlet import TopicTap
from mvsim_ros.viewer.access import AccessPolicy

#: [s] of wall time between checks for channels whose publishers are gone.
CHANNEL_CHECK_PERIOD_S = 0.5
#: Last topic names a client may publish on (a vehicle's velocity command and a navigation goal).
CLIENT_TOPICS = ("cmd_vel", "goal_pose")
#: Client messages kept until the node's thread takes them (older ones are dropped).
INBOX_LENGTH = 1000


class _ClientPublishing(ServerListener):
    """Collects client messages on allowed topics (server thread) for `FoxgloveBridge.service` (node thread)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.channels: dict[tuple[int, int], str] = {}
        self.inbox: collections.deque[tuple[str, bytes]] = collections.deque(maxlen=INBOX_LENGTH)

    def on_client_advertise(self, client, channel) -> None:
        if channel.topic.rstrip("/").rpartition("/")[2] in CLIENT_TOPICS and channel.encoding == "cdr":
            with self.lock:
                self.channels[(client.id, channel.id)] = channel.topic

    def on_client_unadvertise(self, client, client_channel_id: int) -> None:
        with self.lock:
            self.channels.pop((client.id, client_channel_id), None)

    def on_message_data(self, client, client_channel_id: int, data: bytes) -> None:
        with self.lock:
            topic = self.channels.get((client.id, client_channel_id))
            if topic is not None:
                self.inbox.append((topic if topic.startswith("/") else "/" + topic, bytes(data)))

    def take(self) -> list[tuple[str, bytes]]:
        with self.lock:
            taken = list(self.inbox)
            self.inbox.clear()
        return taken


class FoxgloveBridge:
    """Serves `node`'s topics to Foxglove at `host`:`port` (0 = any free port); `allowed_origins`: pages besides
    the server's own address that may connect (viewer/access.py rules); `sim_time()` [s] is the server's time;
    `max_rate_hz`: the most messages of each publisher forwarded per wall second (0 = every message).
    Raises ParameterError (one line naming the parameter to change: `foxglove_port` when the port is taken, else
    `foxglove_host`) when `host`:`port` cannot be bound."""

    def __init__(self, node: Any, host: str, port: int, allowed_origins: list[str], sim_time: Callable[[], float],
                 max_rate_hz: float = DEFAULT_MAX_RATE_HZ):
        self.node = node
        self.sim_time = sim_time
        #: [ns] of wall time between forwarded messages of one publisher (0: every message).
        self.interval_ns = interval_ns(max_rate_hz)
        self._definitions = MessageDefinitions(fields_of)
        self._channels: dict[str, foxglove.Channel] = {}
        self._publishers: dict[str, list[Any]] = {}
        #: Channel of each publisher's rcl handle address (for the compiled fast path's deliveries).
        self._by_handle: dict[int, foxglove.Channel] = {}
        self.fast_path = FastPathTap(self._by_handle.get, self.subscribed, self._now_ns)
        self._listener = _ClientPublishing()
        #: The node's services offered to clients (calls served in `service`).
        self.service_calls = ServiceCalls()
        self._next_check = 0.0
        self._context = foxglove.Context()
        self.server = foxglove.start_server(
            name="mvsim_ros", host="127.0.0.1", port=0, context=self._context, server_listener=self._listener,
            capabilities=[Capability.ClientPublish, Capability.Time, Capability.Services],
            supported_encodings=["cdr"])
        try:
            self.gate = OriginGate(host, port, self.server.port, AccessPolicy(host, allowed_origins))
        except OSError as exc:
            self.server.stop()
            change = ("set the parameter foxglove_port to a free port (0 = any free port)"
                      if exc.errno == errno.EADDRINUSE else "set the parameter foxglove_host to an address of this "
                                                            "machine (127.0.0.1: this machine only)")
            raise ParameterError(f"foxglove: cannot listen on {host}:{port} ({exc.strerror or exc}); {change}") \
                from None

    @property
    def port(self) -> int:
        """The TCP port clients connect to."""
        return self.gate.port

    @property
    def topics(self) -> list[str]:
        """Topics with an open channel."""
        return sorted(self._channels)

    def subscribed(self) -> bool:
        """Whether some client subscribes to some channel."""
        return any(channel.has_sinks() for channel in self._channels.values())

    def tap_publisher(self, publisher: Any, msg_type: type) -> TopicTap | None:
        """An outlet tap: sends the bytes published on `publisher` (of `msg_type`) to its topic's channel, wanted
        while a client subscribes to that channel, due within the rate limit (every message of a transient-local
        publisher); None when the type's definition cannot be found."""
        topic = publisher.topic_name
        channel = self._channels.get(topic)
        if channel is None:
            name = type_name(msg_type)
            try:
                text = self._definitions.schema(name)
            except Exception as exc:  # a type without a definition is served to no one
                self.node.get_logger().warning(f"foxglove: no channel for {topic} ({exc})")
                return None
            channel = foxglove.Channel(topic, message_encoding="cdr", context=self._context,
                                       schema=foxglove.Schema(name=name, encoding="ros2msg", data=text.encode()))
            self._channels[topic] = channel
        publishers = self._publishers.setdefault(topic, [])
        if not any(p is publisher for p in publishers):  # a parked publisher taken over by a new session
            publishers.append(publisher)
        interval = 0 if is_transient_local(publisher) else self.interval_ns
        handle = getattr(getattr(publisher, "handle", None), "pointer", None)
        if handle is not None:
            self._by_handle[handle] = channel
            problem = self.fast_path.gate(handle, interval)
            if problem is not None:
                self.node.get_logger().warning(f"foxglove: {problem}")
        now_ns = self._now_ns
        if interval == 0:
            def send_every(data: bytes) -> None:
                channel.log(data, log_time=now_ns())

            return TopicTap(send_every, channel.has_sinks)
        gate = RateGate(interval * 1e-9)

        def send(data: bytes) -> None:
            channel.log(data, log_time=now_ns())
            gate.passed()

        return TopicTap(send, channel.has_sinks, gate.due)

    def _now_ns(self) -> int:
        return max(0, int(round(self.sim_time() * 1e9)))

    def serve_fast_path(self) -> None:
        """Route the compiled fast path's deliveries through Foxglove's channels while a client subscribes, straight
        to rcl otherwise (`service` does it at every call; batch publishers made later are served alike)."""
        problem = self.fast_path.service()
        if problem is not None:
            self.node.get_logger().warning(f"foxglove: {problem}")

    def service(self) -> None:
        """In the node's thread: broadcast the simulated time, hand client messages to the node's subscriptions and
        client service calls to the node's executor, close the channels of topics whose publishers are gone, and
        offer the node's services."""
        self.server.broadcast_time(self._now_ns())
        self.serve_fast_path()
        self.service_calls.serve(self.node.executor)
        inbox = self._listener.take()
        if inbox:
            subscriptions = {}
            for sub in self.node.subscriptions:
                subscriptions.setdefault(sub.topic_name, []).append(sub)
            for topic, data in inbox:
                for sub in subscriptions.get(topic, ()):
                    try:
                        msg = deserialize_message(data, sub.msg_type)
                    except Exception:  # bytes of another type: what a DDS reader would not match either
                        continue
                    sub.callback(msg)
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + CHANNEL_CHECK_PERIOD_S
            self._close_orphans()
            for problem in self.service_calls.update(self.server, list(self.node.services)):
                self.node.get_logger().warning(f"foxglove: {problem}")

    def _close_orphans(self) -> None:
        live = {id(publisher) for publisher in self.node.publishers}
        for topic in list(self._publishers):
            publishers = [p for p in self._publishers[topic] if id(p) in live]
            if publishers:
                self._publishers[topic] = publishers
            else:
                del self._publishers[topic]
                channel = self._channels.pop(topic)
                for handle in [h for h, c in self._by_handle.items() if c is channel]:
                    del self._by_handle[handle]
                    self.fast_path.gate(handle, -1)
                channel.close()

    def close(self) -> None:
        """Stop serving: the fast path's tap, the gate, then the server."""
        self.fast_path.uninstall()
        self.gate.close()
        self.server.stop()


__all__ = ["CLIENT_TOPICS", "FoxgloveBridge"]
