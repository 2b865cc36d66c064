"""The Foxglove layout for the demo (config/foxglove/demo_2robots.json) is a mosaic of Foxglove's panels, and
every topic and message path in it names a channel the node serves on that world (run as docs/foxglove.md says:
`foxglove:=true tf_single_tree:=true`), with the field in that channel's schema: the channels are listed by
Foxglove's own client library (channel_events.mjs), the fields looked up in the message classes of the schemas'
names. The topics the panels publish on (Teleop, the 3D panel's pose tool) are the node's client topics."""

from __future__ import annotations

import importlib
import json
import subprocess
import time
from pathlib import Path

import pytest
import rclpy

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_command, stop_process
from mvsim_ros.ros.foxglove.bridge import CLIENT_TOPICS
from test_foxglove_spawn_dds import ChannelEvents, served_port, skip_reason

LAYOUT = Path(__file__).resolve().parents[2] / "config" / "foxglove" / "demo_2robots.json"
#: Panel types of Foxglove's app that the layout uses.
PANELS = {"3D", "Plot", "RawMessages", "Teleop"}


def leaves(node) -> list[str]:
    """The panel ids of a layout's mosaic tree."""
    if isinstance(node, str):
        return [node]
    assert set(node) >= {"first", "second", "direction"} and node["direction"] in ("row", "column")
    return leaves(node["first"]) + leaves(node["second"])


def referenced(layout: dict) -> tuple[set[str], list[tuple[str, str]]]:
    """(topics the layout subscribes to, (topic, field path) of each plotted or shown message path)."""
    topics, paths = set(), []
    for panel_id, config in layout["configById"].items():
        kind = panel_id.split("!")[0]
        if kind == "3D":
            topics |= set(config["topics"])
        elif kind == "Plot":
            for path in config["paths"]:
                topic, _, field = path["value"].partition(".")
                topics.add(topic)
                paths.append((topic, field))
        elif kind == "RawMessages":
            topics.add(config["topicPath"])
    return topics, paths


def message_class(schema_name: str):
    package, _, name = schema_name.split("/")
    return getattr(importlib.import_module(f"{package}.msg"), name)


def test_the_layout_is_a_mosaic_of_foxglove_panels():
    layout = json.loads(LAYOUT.read_text(encoding="utf-8"))
    assert set(layout) >= {"configById", "layout", "globalVariables", "userNodes", "playbackConfig"}
    panels = leaves(layout["layout"])
    assert sorted(panels) == sorted(layout["configById"]) and len(set(panels)) == len(panels)
    assert {panel.split("!")[0] for panel in panels} == PANELS


def test_every_topic_and_field_of_the_layout_is_served_by_the_node_on_the_demo_world(tmp_path):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    layout = json.loads(LAYOUT.read_text(encoding="utf-8"))
    topics, paths = referenced(layout)
    published = {config["topic"] for panel, config in layout["configById"].items() if panel.startswith("Teleop!")}
    published |= {config["publish"]["poseTopic"] for panel, config in layout["configById"].items()
                  if panel.startswith("3D!")}  # topics the panels publish on (client channels), not served
    assert all(topic.rpartition("/")[2] in CLIENT_TOPICS for topic in published), published
    log = tmp_path / "node.log"
    command = node_command(f"world_file:={DEMO_WORLD}", "headless:=true", "foxglove:=true", "foxglove_port:=0",
                           "tf_single_tree:=true")
    proc = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "foxglove_layout_probe")
    events = None
    try:
        events = ChannelEvents(f"ws://127.0.0.1:{served_port(log, proc)}", "/none/")
        events.wait_for(probe, {("advertise", "/r1/odom"), ("advertise", "/clock")})
        end = time.monotonic() + 3.0
        while time.monotonic() < end:  # the rest of the channels, advertised as their publishers come
            probe.spin_for(0.1)
            while not events.lines.empty():
                events.seen.append(events.lines.get())
        schemas = {e["topic"]: e["schemaName"] for e in events.seen if e["event"] == "advertise"}
        missing = sorted((topics | set(topic for topic, _ in paths)) - set(schemas) - published)
        assert not missing, f"the layout names topics the node does not serve: {missing}; served: {sorted(schemas)}"
        for topic, field in paths:
            schema = schemas.get(topic) or "geometry_msgs/msg/Twist"  # a command topic: what Teleop publishes
            value = message_class(schema)()
            for name in field.split("."):
                assert hasattr(value, name), f"{topic}: {schema} has no field {field}"
                value = getattr(value, name)
            assert isinstance(value, float), f"{topic}.{field} is not a number"
        assert proc.poll() is None, log.read_text(errors="replace")
    finally:
        if events is not None:
            events.close()
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
