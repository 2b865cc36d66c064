"""The node's services as Foxglove services: a client's call runs the service's own callback in the node's thread.

Every service the node serves over DDS (the simulation_interfaces services under `~/`, the log services), rclpy's
own parameter and type-description services aside, is advertised under the same name, its request and response
as `ros2msg` schemas (the definition text of the generated classes' fields, with the message types they use, as
the channels' schemas are built: output/recording/schemas.py) with `cdr` encoding.

A call, in the SDK's thread (`ServiceCalls.call`): the request's CDR bytes are deserialized to the service's Request
type and the call is queued; `ServiceCalls.serve`, in the node's thread (the bridge's `service`, each loop tick),
hands each queued call to the node's executor as a task, where the service's callback runs as it does for a DDS
call (a coroutine callback, e.g. step_simulation's, is awaited). The SDK's thread waits for the answer at most
`timeout_s` of wall time and serializes the Response. Malformed bytes, a full queue, an exception in the callback,
a callback without a Response, or no answer in time raise ServiceCallError in the SDK's thread: the client gets a
service call failure with its one-line message. Node callbacks never run in the SDK's thread.
"""

from __future__ import annotations

import collections
import importlib
import inspect
import threading
from typing import Any, Callable, Iterable

import foxglove
from foxglove.websocket import MessageSchema, Service, ServiceRequest, ServiceSchema
from rclpy.serialization import deserialize_message, serialize_message

from mvsim_ros.output.recording.schemas import MessageDefinitions
from mvsim_ros.ros.node.recording import fields_of, msg_field_type

#: [s] of wall time a call waits for the node's answer (step_simulation may take up to 100000 steps).
CALL_TIMEOUT_S = 60.0
#: Packages of the services rclpy makes for every node (parameters, type descriptions): not offered.
BUILTIN_PACKAGES = ("rcl_interfaces", "type_description_interfaces")
#: Calls waiting for the node's thread at most (a call beyond is refused).
QUEUE_LENGTH = 100


class ServiceCallError(RuntimeError):
    """A Foxglove service call that gets no Response (the client receives this one-line message as the failure)."""


def srv_type_name(srv_type: type) -> str:
    """'pkg/srv/Name' of a generated ROS 2 service class."""
    return f"{srv_type.__module__.split('.')[0]}/srv/{srv_type.__name__}"


def service_fields_of(name: str) -> list[str]:
    """'type name' lines of 'pkg/srv/Name_Request' or 'pkg/srv/Name_Response' from the generated service class
    (an empty message keeps rosidl's placeholder field, which its CDR bytes carry); message types 'pkg/Type' as
    ros/node/recording.fields_of gives them."""
    parts = name.split("/")
    if len(parts) != 3 or parts[1] != "srv":
        return fields_of(name)
    package, _, part_name = parts
    service, _, part = part_name.rpartition("_")
    part_type = getattr(getattr(importlib.import_module(f"{package}.srv"), service), part)
    return [f"{msg_field_type(kind)} {field}" for field, kind in part_type.get_fields_and_field_types().items()]


def one_line(text: str) -> str:
    """`text` with its whitespace runs (newlines included) as single spaces."""
    return " ".join(text.split())


class PendingCall:
    """One client call: the service's callback, its deserialized request, and the answer once the node gave it."""

    def __init__(self, callback: Callable, request: Any, response_type: type):
        self.callback = callback
        self.request = request
        self.response_type = response_type
        self.response: Any = None
        self.error = ""
        #: Set once `response` or `error` is given.
        self.done = threading.Event()
        #: The caller stopped waiting (timed out): the node's thread skips the call if it has not started it.
        self.abandoned = False

    def finish(self, response: Any = None, error: str = "") -> None:
        """Give the answer: a Response, or the one-line reason there is none."""
        self.response, self.error = response, error
        self.done.set()

    async def run(self) -> None:
        """In the node's executor: the callback as rclpy runs a service's (a coroutine is awaited), its answer given
        to the waiting caller."""
        try:
            response = self.callback(self.request, self.response_type())
            if inspect.isawaitable(response):
                response = await response
        except Exception as exc:  # noqa: BLE001 (the caller must get an answer, the node must keep running)
            self.finish(error=one_line(f"the service failed: {type(exc).__name__}: {exc}"))
            return
        if isinstance(response, self.response_type):
            self.finish(response)
        else:
            self.finish(error=f"the service gave no response ({type(response).__name__})")


class ServiceCalls:
    """The Foxglove services of a node's services; `timeout_s` [s] of wall time: the longest a call waits."""

    def __init__(self, timeout_s: float = CALL_TIMEOUT_S):
        self.timeout_s = timeout_s
        self._definitions = MessageDefinitions(service_fields_of)
        self._lock = threading.Lock()
        self._queue: collections.deque[PendingCall] = collections.deque()
        #: The rclpy service behind each offered name.
        self._offered: dict[str, Any] = {}
        #: Names that could not be offered (told once).
        self._failed: set[str] = set()

    @property
    def names(self) -> list[str]:
        """Names of the offered services."""
        with self._lock:
            return sorted(self._offered)

    def update(self, server: Any, services: Iterable[Any]) -> list[str]:
        """In the node's thread: offer on `server` (a Foxglove WebSocketServer with the Services capability) the
        services of `services` (rclpy Service objects, by their full names) not offered yet, withdraw those no
        longer among them (or of another type now); returns a line for each service that cannot be offered."""
        wanted = {s.service_name: s for s in services
                  if s.srv_type.__module__.split(".")[0] not in BUILTIN_PACKAGES}
        with self._lock:
            gone = [n for n, s in self._offered.items() if n not in wanted or wanted[n].srv_type is not s.srv_type]
            for name in gone:
                del self._offered[name]
            for name, service in wanted.items():
                if name in self._offered:
                    self._offered[name] = service  # the same name and type, a new rclpy object: calls reach it
        if gone:
            server.remove_services(gone)
        problems, made = [], []
        for name, service in wanted.items():
            if name in self._offered or name in self._failed:
                continue
            try:
                made.append(self._foxglove_service(service))
            except Exception as exc:  # noqa: BLE001 (a type without a definition is offered to no one)
                self._failed.add(name)
                problems.append(one_line(f"no Foxglove service {name} ({exc})"))
                continue
            with self._lock:
                self._offered[name] = service
        if made:
            server.add_services(made)
        return problems

    def _foxglove_service(self, service: Any) -> Service:
        type_name = srv_type_name(service.srv_type)

        def part(kind: str) -> MessageSchema:
            name = f"{type_name}_{kind}"
            text = self._definitions.schema(name)
            return MessageSchema(encoding="cdr", schema=foxglove.Schema(name=name, encoding="ros2msg",
                                                                        data=text.encode()))

        schema = ServiceSchema(name=type_name, request=part("Request"), response=part("Response"))
        name = service.service_name

        def handle(request: ServiceRequest) -> bytes:
            return self.call(name, request.encoding, request.payload)

        return Service(name, schema=schema, handler=handle)

    def call(self, name: str, encoding: str, payload: bytes) -> bytes:
        """In the SDK's thread: the CDR bytes of the Response of the service `name` to the `encoding` `payload`,
        once the node's thread answered it; ServiceCallError (one line) when there is none."""
        with self._lock:
            service = self._offered.get(name)
        if service is None:
            raise ServiceCallError(f"{name} is not served")
        if encoding != "cdr":
            raise ServiceCallError(f"{name} takes cdr requests, not {encoding!r}")
        request_type = service.srv_type.Request
        try:
            request = deserialize_message(bytes(payload), request_type)
        except Exception as exc:  # noqa: BLE001 (any bytes may come in)
            raise ServiceCallError(one_line(f"the request is not a CDR-serialized {srv_type_name(service.srv_type)}"
                                            f" request ({type(exc).__name__}: {exc})")) from None
        pending = PendingCall(service.callback, request, service.srv_type.Response)
        with self._lock:
            if len(self._queue) >= QUEUE_LENGTH:
                raise ServiceCallError(f"{name}: {QUEUE_LENGTH} calls wait already; call again later")
            self._queue.append(pending)
        if not pending.done.wait(self.timeout_s):
            pending.abandoned = True
            raise ServiceCallError(f"{name} did not answer within {self.timeout_s:g} s of wall time")
        if pending.error:
            raise ServiceCallError(f"{name}: {pending.error}")
        return serialize_message(pending.response)

    def serve(self, executor: Any) -> None:
        """In the node's thread: hand each queued call to `executor` (the node's rclpy executor) as a task; without
        one, answer that the node does not run."""
        with self._lock:
            taken = list(self._queue)
            self._queue.clear()
        for pending in taken:
            if pending.abandoned:
                continue
            if executor is None:
                pending.finish(error="the node is not spinning")
            else:
                executor.create_task(pending.run)


__all__ = ["CALL_TIMEOUT_S", "PendingCall", "ServiceCallError", "ServiceCalls", "service_fields_of", "srv_type_name"]
