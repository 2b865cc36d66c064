"""ServiceCalls (ros/foxglove/service_calls.py) without a node: which services are offered and withdrawn, and that
every call gets an answer: the callback's Response, or a one-line ServiceCallError when the callback raises, gives
no Response, or the node's thread does not answer in time; callbacks run only where `serve` hands them."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("foxglove")

from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402
from simulation_interfaces import srv  # noqa: E402
from simulation_interfaces.msg import Result  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from mvsim_ros.ros.foxglove.service_calls import ServiceCallError, ServiceCalls  # noqa: E402


class FakeService:
    """What ServiceCalls reads of an rclpy Service."""

    def __init__(self, name, srv_type, callback):
        self.service_name, self.srv_type, self.callback = name, srv_type, callback


class FakeServer:
    """Records the services added and removed."""

    def __init__(self):
        self.added, self.removed = [], []

    def add_services(self, services):
        self.added += [s.name for s in services]

    def remove_services(self, names):
        self.removed += names


class RunNow:
    """An executor stand-in: runs each task's coroutine to its end at once, in the calling thread."""

    def __init__(self):
        self.threads = []

    def create_task(self, coroutine_function):
        self.threads.append(threading.current_thread())
        coroutine = coroutine_function()
        with pytest.raises(StopIteration):
            coroutine.send(None)


def entities(_request, response):
    response.entities = ["r1", "r2"]
    response.result.result = Result.RESULT_OK
    return response


def failing(_request, _response):
    raise ValueError("broken\nin two lines")


def call_in_thread(calls, name, payload):
    """`calls.call` in another thread (as the SDK calls it): (thread, {"answer" or "error"})."""
    outcome = {}

    def run():
        try:
            outcome["answer"] = calls.call(name, "cdr", payload)
        except ServiceCallError as exc:
            outcome["error"] = str(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def serve_until_done(calls, thread, executor):
    while thread.is_alive():
        calls.serve(executor)
        thread.join(0.01)


def test_offers_the_nodes_services_and_withdraws_those_gone():
    calls, server = ServiceCalls(), FakeServer()
    from rcl_interfaces.srv import GetParameters
    services = [FakeService("/mvsim/get_entities", srv.GetEntities, entities),
                FakeService("/mvsim/clear_logs", Trigger, entities),
                FakeService("/mvsim/get_parameters", GetParameters, entities)]
    assert calls.update(server, services) == []
    assert sorted(server.added) == ["/mvsim/clear_logs", "/mvsim/get_entities"]
    assert calls.update(server, services[:1]) == []
    assert server.removed == ["/mvsim/clear_logs"]
    assert calls.names == ["/mvsim/get_entities"]


def test_a_call_runs_the_callback_where_serve_hands_it():
    calls, executor = ServiceCalls(timeout_s=10.0), RunNow()
    calls.update(FakeServer(), [FakeService("/mvsim/get_entities", srv.GetEntities, entities)])
    thread, outcome = call_in_thread(calls, "/mvsim/get_entities", serialize_message(srv.GetEntities.Request()))
    serve_until_done(calls, thread, executor)
    response = deserialize_message(outcome["answer"], srv.GetEntities.Response)
    assert list(response.entities) == ["r1", "r2"]
    assert executor.threads == [threading.current_thread()]


def test_every_call_gets_an_answer():
    calls = ServiceCalls(timeout_s=0.2)
    calls.update(FakeServer(), [FakeService("/a", srv.GetEntities, failing),
                                FakeService("/b", srv.GetEntities, lambda _q, _r: None)])
    request = serialize_message(srv.GetEntities.Request())
    for name, expected in (("/a", "the service failed: ValueError: broken in two lines"),
                           ("/b", "the service gave no response")):
        thread, outcome = call_in_thread(calls, name, request)
        serve_until_done(calls, thread, RunNow())
        assert expected in outcome["error"]
    thread, outcome = call_in_thread(calls, "/a", request)  # nobody serves: the caller stops waiting
    thread.join()
    assert "did not answer within 0.2 s" in outcome["error"]
    executor = RunNow()
    calls.serve(executor)
    assert executor.threads == []  # the abandoned call is not run
    with pytest.raises(ServiceCallError, match="not a CDR-serialized"):
        calls.call("/a", "cdr", b"\x00\x01\x00\x00\xff\xff\xff\x7f")
    with pytest.raises(ServiceCallError, match="not served"):
        calls.call("/nothing", "cdr", request)
