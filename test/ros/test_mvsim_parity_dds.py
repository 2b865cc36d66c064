"""The "Differences from MVSim's node" table (docs/mvsim-differences.md) against the live node: every MVSim topic
and TF edge the table marks `same` (or `extra`) exists with that name and type, every `differs` row exists under
our name, and nothing the node publishes is missing from the table. World: test/worlds/all_sensors.world.xml (two
robots, one with a 2D lidar, camera, RGB-D camera, 3D lidar, IMU and GNSS; an occupancy grid)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from tf2_msgs.msg import TFMessage

from dds_probe import node_and_probe
from mvsim_ros.ros.qos import TF_QOS, TF_STATIC_QOS
from mvsim_ros.world import load_world

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

ROOT = Path(__file__).resolve().parents[2]
WORLD = ROOT / "test" / "worlds" / "all_sensors.world.xml"
#: Conditions of the table's "when" column that hold for WORLD with the node's default parameters.
CONDITIONS = {"always", "grid", "fake_localization"}
#: Sensor placeholders of the table -> world-file sensor class.
SENSOR_PLACEHOLDERS = {"<laser>": "laser", "<imu>": "imu", "<gnss>": "gnss", "<camera>": "camera",
                       "<rgbd>": "rgbd_camera", "<lidar3d>": "lidar3d"}
#: Topics of every ROS node, not the simulator's interface.
INFRASTRUCTURE = {"/rosout", "/parameter_events"}


def parity_rows() -> list[dict[str, str]]:
    """The table's rows: mvsim, type, ours, status, when (cells without their backticks)."""
    text = (ROOT / "docs" / "mvsim-differences.md").read_text(encoding="utf-8")
    section = text.split("## Differences from MVSim's node", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == ["MVSim", "type", "ours", "status", "when"], f"unexpected table header {header}"
    rows = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 5, f"bad row: {line}"
        rows.append(dict(zip(header, cells)))
    return rows


def parse_name(cell: str) -> tuple[str, tuple[str, str] | None] | None:
    """A cell as (topic, None) or (tf topic, (parent, child)); None for `—`."""
    if cell == "—":
        return None
    names = re.findall(r"`([^`]*)`", cell)
    if len(names) == 2:
        parent, child = (s.strip() for s in names[1].split("→"))
        return names[0].rstrip(":"), (parent, child)
    return names[0], None


def instances(pattern: str, world) -> list[str]:
    """A table name with its placeholders filled in for every vehicle (and sensor of the class) of the world."""
    out = []
    for vehicle in world.vehicles:
        name = pattern.replace("<veh>/", f"{vehicle.name}/" if len(world.vehicles) > 1 else "")
        holes = [p for p in SENSOR_PLACEHOLDERS if p in name]
        if not holes:
            out.append(name)
            continue
        for sensor in vehicle.sensors:
            if sensor.kind == SENSOR_PLACEHOLDERS[holes[0]]:
                out.append(name.replace(holes[0], sensor.name))
    return sorted({"/" + n.lstrip("/") for n in out if "<" not in n})


@pytest.fixture(scope="module")
def live_graph():
    """(topic -> types, tf topic -> {(parent, child)}) seen from the node running WORLD."""
    world = load_world(str(WORLD))
    tf_topics = sorted({"/tf", "/tf_static"} | {f"/{v.name}/{t}" for v in world.vehicles for t in ("tf", "tf_static")})
    with node_and_probe("mvsim_parity_probe", f"world_file:={WORLD}") as probe:
        edges: dict[str, set] = {t: set() for t in tf_topics}
        for topic in tf_topics:
            qos = TF_STATIC_QOS if topic.endswith("tf_static") else TF_QOS
            probe.node.create_subscription(
                TFMessage, topic,
                lambda msg, t=topic: edges[t].update((x.header.frame_id, x.child_frame_id) for x in msg.transforms),
                qos)
        end = time.monotonic() + 30.0
        probe.wait_for(lambda: any(t.endswith("_points") for t, _ in probe.node.get_topic_names_and_types()), 30.0)
        probe.spin_for(max(3.0, min(5.0, end - time.monotonic())))
        # the probe's own tf subscriptions are not the node's: count those topics only when published
        topics = {name: set(types) for name, types in probe.node.get_topic_names_and_types()
                  if probe.node.count_publishers(name) > 0
                  or (name not in edges and probe.node.count_subscribers(name) > 0)}
    # hidden topics (a name part starting with '_', as an action's feedback and status) are not listed, as
    # `ros2 topic list` does not list them; the simulate_steps action is in the simulation services table
    own = {t: ty for t, ty in topics.items()
           if t not in INFRASTRUCTURE and not any(part.startswith("_") for part in t.split("/"))}
    return world, own, edges


def _expected(world) -> tuple[dict[str, str], dict[tuple[str, tuple[str, str]], str]]:
    """Our topics (name -> type) and edges ((tf topic, edge) -> row) the table promises for WORLD."""
    topics, edges = {}, {}
    for row in parity_rows():
        if row["when"] not in CONDITIONS:
            continue
        ours = parse_name(row["ours"])
        if ours is None:
            continue
        name, edge = ours
        for topic in instances(name, world):
            if edge is None:
                topics[topic] = row["type"]
            else:
                for parent in instances(edge[0], world)[:1] or [edge[0]]:
                    for child in _edge_children(edge[1], world, topic):
                        edges[(topic, (parent.lstrip("/"), child))] = row["MVSim"]
    return topics, edges


def _edge_children(child: str, world, topic: str) -> list[str]:
    """A child frame pattern's instances for the vehicle whose tf topic is `topic`."""
    holes = [p for p in SENSOR_PLACEHOLDERS if p in child]
    if not holes:
        return [child]
    vehicle = next(v for v in world.vehicles if len(world.vehicles) == 1 or topic.startswith(f"/{v.name}/"))
    return [child.replace(holes[0], s.name) for s in vehicle.sensors if s.kind == SENSOR_PLACEHOLDERS[holes[0]]]


def test_the_table_is_well_formed():
    rows = parity_rows()
    assert len(rows) > 30
    for row in rows:
        assert re.fullmatch(r"same|differs: .+|extra: .+", row["status"]), row
        assert (row["MVSim"] == "—") == row["status"].startswith("extra"), row
        assert row["type"] == "tf edge" or re.fullmatch(r"\w+/msg/\w+", row["type"]), row


def test_every_promised_topic_exists_with_its_type(live_graph):
    world, topics, _ = live_graph
    expected, _ = _expected(world)
    missing = {t: ty for t, ty in expected.items() if ty not in topics.get(t, set())}
    assert not missing, f"table rows missing from the live graph (topic: type): {missing}; graph: {sorted(topics)}"


def test_every_topic_of_the_node_is_in_the_table(live_graph):
    world, topics, _ = live_graph
    expected, _ = _expected(world)
    unlisted = sorted(t for t in topics if t not in expected)
    assert not unlisted, f"topics of the node that the table of docs/mvsim-differences.md does not list: {unlisted}"


def test_every_promised_tf_edge_is_published_where_the_table_says(live_graph):
    world, _, edges = live_graph
    _, expected = _expected(world)
    missing = sorted(f"{topic}: {a} → {b}" for (topic, (a, b)) in expected if (a, b) not in edges.get(topic, ()))
    assert not missing, f"tf edges missing: {missing}; seen: { {t: sorted(e) for t, e in edges.items()} }"


def test_every_tf_edge_of_the_node_is_in_the_table(live_graph):
    world, _, edges = live_graph
    _, expected = _expected(world)
    unlisted = sorted(f"{t}: {a} → {b}" for t, seen in edges.items() for (a, b) in seen if (t, (a, b)) not in expected)
    assert not unlisted, f"tf edges of the node that the table of docs/mvsim-differences.md does not list: {unlisted}"
