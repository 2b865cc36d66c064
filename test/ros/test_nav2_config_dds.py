"""config/nav2/*.yaml against a live node: every topic and frame the Nav2 parameter files name exists in the
simulator's graph, with the message type Nav2 expects and a QoS Nav2's own endpoints match.

Nav2 cannot be installed here, so its side is written down from its sources: the keys that name frames, the keys
that name topics the simulator must serve, and the QoS of Nav2's endpoints on them (costmap observation sources:
sensor-data best effort; odometry: system default, reliable; the static layer's map with
map_subscribe_transient_local: reliable + transient local; tf2's listener: reliable, and reliable + transient
local on tf_static; the collision monitor's command output: reliable). Names resolve as Nav2's bringup resolves
them: relative names under the namespace, /tf and /tf_static remapped into it when there is one."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from tf2_msgs.msg import TFMessage

from dds_probe import node_and_probe

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

ROOT = Path(__file__).resolve().parents[2]
NAV2 = ROOT / "config" / "nav2"
START_TIMEOUT_S = 60.0

#: Parameter keys whose value is a frame id.
FRAME_KEYS = {"global_frame", "robot_base_frame", "base_frame_id", "odom_frame_id", "local_frame", "base_frame",
              "fixed_frame", "global_frame_id"}


def _profile(reliability, durability, depth: int) -> QoSProfile:
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=reliability, durability=durability)


#: Nav2's subscriptions (and tf2's listener) as rclcpp creates them.
SENSOR_DATA = qos_profile_sensor_data
SYSTEM_DEFAULT = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE, 10)
MAP_LATCHED = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.TRANSIENT_LOCAL, 1)
TF_LISTENER = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE, 100)
TF_STATIC_LISTENER = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.TRANSIENT_LOCAL, 1)
#: Nav2's command publisher (collision monitor / controller server).
COMMAND_PUBLISHER = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE, 1)


@dataclass(frozen=True)
class Need:
    """One topic the simulator must serve: its name as the file writes it, the types that fit, who publishes it
    (the simulator: "sim", or Nav2: "nav2") and the QoS of Nav2's endpoint."""

    name: str
    types: frozenset[str]
    publisher: str
    nav2_qos: QoSProfile
    where: str


def _sections(tree: dict):
    """(node path, ros__parameters) of every node in a Nav2 parameter file (costmaps are nested one level)."""
    for key, value in tree.items():
        if not isinstance(value, dict):
            continue
        if "ros__parameters" in value:
            yield key, value["ros__parameters"]
        else:
            for inner, params in _sections(value):
                yield f"{key}/{inner}", params


def _walk(params: dict, path: str = ""):
    """(dotted key, value, the dict holding it) of every parameter, nested ones included."""
    for key, value in params.items():
        dotted = f"{path}.{key}" if path else key
        yield dotted, key, value, params
        if isinstance(value, dict):
            yield from _walk(value, dotted)


def requirements(path: Path) -> tuple[set[str], list[Need], list[str]]:
    """(frames, topics the simulator must serve, nodes without use_sim_time: True) named in a Nav2 file."""
    tree = yaml.safe_load(path.read_text(encoding="utf-8"))
    frames: set[str] = set()
    needs: list[Need] = []
    no_sim_time = []
    for node, params in _sections(tree):
        if params.get("use_sim_time") is not True:
            no_sim_time.append(node)
        for dotted, key, value, holder in _walk(params):
            where = f"{path.name}: {node}.{dotted}"
            if key in FRAME_KEYS:
                frames.add(value)
            elif key == "odom_topic":
                needs.append(Need(value, frozenset({"nav_msgs/msg/Odometry"}), "sim", SYSTEM_DEFAULT, where))
            elif key == "map_topic":
                assert holder.get("map_subscribe_transient_local") is True, where
                needs.append(Need(value, frozenset({"nav_msgs/msg/OccupancyGrid"}), "sim", MAP_LATCHED, where))
            elif key == "cmd_vel_out_topic":
                needs.append(Need(value, frozenset({"geometry_msgs/msg/Twist", "geometry_msgs/msg/TwistStamped"}),
                                  "nav2", COMMAND_PUBLISHER, where))
            elif key == "observation_sources":
                names = value.split() if isinstance(value, str) else list(value)
                for source in names:
                    spec = holder[source]
                    kind = spec.get("data_type", spec.get("type"))
                    assert kind in ("LaserScan", "scan"), f"{where}: {source} of kind {kind}"
                    needs.append(Need(spec["topic"], frozenset({"sensor_msgs/msg/LaserScan"}), "sim", SENSOR_DATA,
                                      f"{where}.{source}"))
    return frames, needs, no_sim_time


def qos_mismatch(publisher: QoSProfile, subscription: QoSProfile) -> str | None:
    """Why a subscription with `subscription`'s QoS gets nothing from a publisher with `publisher`'s, or None.
    The two policies that decide it here: a reliable subscription needs a reliable publisher, a transient-local
    one a transient-local publisher (deadline and liveliness are left at their defaults on both sides)."""
    if subscription.reliability == ReliabilityPolicy.RELIABLE and publisher.reliability != ReliabilityPolicy.RELIABLE:
        return "the subscription is reliable, the publisher best effort"
    if (subscription.durability == DurabilityPolicy.TRANSIENT_LOCAL
            and publisher.durability != DurabilityPolicy.TRANSIENT_LOCAL):
        return "the subscription is transient local (latched), the publisher volatile"
    return None


def resolve(name: str, namespace: str) -> str:
    """A topic name as a node in `namespace` resolves it."""
    if name.startswith("/"):
        return name
    return f"/{namespace}/{name}" if namespace else f"/{name}"


def tree_root(frame: str, edges: set[tuple[str, str]]) -> str:
    """The root of the TF tree `frame` hangs from, following (parent, child) edges upwards."""
    parents = {child: parent for parent, child in edges}
    seen = set()
    while frame in parents and frame not in seen:
        seen.add(frame)
        frame = parents[frame]
    return frame


CASES = [
    pytest.param("nav2_single_robot.yaml", ROOT / "worlds" / "office_yaml_map.world.xml", "", id="single"),
    pytest.param("nav2_namespaced_robot.yaml", ROOT / "worlds" / "demo_2robots.world.xml", "r1", id="namespaced"),
]


@pytest.mark.parametrize("file_name, world, namespace", CASES)
def test_the_file_names_what_nav2_needs(file_name, world, namespace):
    frames, needs, no_sim_time = requirements(NAV2 / file_name)
    assert not no_sim_time, f"nodes without use_sim_time: True: {no_sim_time}"
    assert {"map", "odom", "base_link"} <= frames
    kinds = {next(iter(n.types)).split("/")[-1] for n in needs}
    assert {"Odometry", "OccupancyGrid", "LaserScan"} <= kinds and any(n.publisher == "nav2" for n in needs)


@pytest.mark.parametrize("file_name, world, namespace", CASES)
def test_every_topic_and_frame_exists_in_the_live_graph(file_name, world, namespace):
    problems = live_problems(NAV2 / file_name, world, namespace)
    assert not problems, "\n".join(problems)


def test_nav2_default_names_are_caught_in_the_live_graph(tmp_path):
    """The check can fail: the namespaced file with a relative map topic (it would resolve to /r1/simul_map) and
    Nav2's default absolute /scan, against the two-robot demo world."""
    text = (NAV2 / "nav2_namespaced_robot.yaml").read_text(encoding="utf-8")
    text = text.replace("map_topic: /simul_map", "map_topic: simul_map").replace("topic: scan", "topic: /scan")
    broken = tmp_path / "nav2_defaults.yaml"
    broken.write_text(text, encoding="utf-8")
    problems = "\n".join(live_problems(broken, ROOT / "worlds" / "demo_2robots.world.xml", "r1"))
    assert "/r1/simul_map: no simulator endpoint" in problems, problems
    assert "/scan: no simulator endpoint" in problems, problems


def live_problems(path: Path, world: Path, namespace: str) -> list[str]:
    """What a live node on `world` lacks of what the Nav2 file at `path` names, Nav2 running in `namespace`."""
    file_name = path.name
    frames, needs, _ = requirements(path)
    tf_topics = {resolve("tf", namespace): TF_LISTENER, resolve("tf_static", namespace): TF_STATIC_LISTENER}
    if not namespace:
        tf_topics = {"/tf": TF_LISTENER, "/tf_static": TF_STATIC_LISTENER}
    with node_and_probe("nav2_config_probe", f"world_file:={world}") as probe:
        node = probe.node
        edges: set[tuple[str, str]] = set()
        for topic, qos in tf_topics.items():
            node.create_subscription(TFMessage, topic,
                                     lambda msg: edges.update((t.header.frame_id, t.child_frame_id)
                                                              for t in msg.transforms), qos)
        names = sorted({resolve(n.name, namespace) for n in needs})
        # wait for the node (its /clock, then the topics the file names; missing ones are reported below)
        assert probe.wait_for(lambda: node.count_publishers("/clock") > 0, START_TIMEOUT_S), "the node did not start"
        probe.wait_for(lambda: all(node.count_publishers(t) + node.count_subscribers(t) > 0 for t in names), 10.0)
        # TF arrives once both sides have matched: wait until every frame hangs from map (or time is up)
        probe.wait_for(lambda: all(tree_root(f, edges) == "map" for f in frames), 20.0)
        problems = []
        for need in needs:
            topic = resolve(need.name, namespace)
            endpoints = (node.get_publishers_info_by_topic(topic) if need.publisher == "sim"
                         else node.get_subscriptions_info_by_topic(topic))
            endpoints = [e for e in endpoints if e.node_name != node.get_name()]
            fitting = [e for e in endpoints if e.topic_type in need.types]
            if not fitting:
                problems.append(f"{need.where}: {topic}: no simulator endpoint of type {sorted(need.types)} "
                                f"(found {[e.topic_type for e in endpoints]})")
                continue
            for endpoint in fitting:
                pub, sub = (endpoint.qos_profile, need.nav2_qos) if need.publisher == "sim" \
                    else (need.nav2_qos, endpoint.qos_profile)
                reason = qos_mismatch(pub, sub)
                if reason is not None:
                    problems.append(f"{need.where}: {topic} ({endpoint.topic_type}): QoS Nav2 cannot match: {reason}")
        for topic, qos in tf_topics.items():
            for endpoint in node.get_publishers_info_by_topic(topic):
                reason = qos_mismatch(endpoint.qos_profile, qos)
                if reason is not None:
                    problems.append(f"{topic}: tf2's listener cannot match: {reason}")
        clock_types = {e.topic_type for e in node.get_publishers_info_by_topic("/clock")}
        if clock_types != {"rosgraph_msgs/msg/Clock"}:
            problems.append(f"/clock: {clock_types} (use_sim_time needs rosgraph_msgs/msg/Clock)")
    present = {frame for edge in edges for frame in edge}
    missing = sorted(frames - present)
    if missing:
        problems.append(f"frames named in {file_name} and not in the tree on {sorted(tf_topics)}: {missing} "
                        f"(edges: {sorted(edges)})")
    disconnected = sorted(f for f in frames & present if tree_root(f, edges) != "map")
    if disconnected:
        problems.append(f"frames not connected to map: {disconnected} (edges: {sorted(edges)})")
    return problems


def test_a_wrong_name_is_caught(tmp_path):
    """The check can fail: a file naming Nav2's default /scan and base frames the simulator does not have."""
    text = (NAV2 / "nav2_single_robot.yaml").read_text().replace("topic: scan", "topic: /no_such_scan")
    broken = tmp_path / "broken.yaml"
    broken.write_text(text)
    _, needs, _ = requirements(broken)
    assert "/no_such_scan" in {n.name for n in needs}
    best_effort = _profile(ReliabilityPolicy.BEST_EFFORT, DurabilityPolicy.VOLATILE, 5)
    assert qos_mismatch(best_effort, SYSTEM_DEFAULT) is not None
    assert qos_mismatch(SYSTEM_DEFAULT, MAP_LATCHED) is not None
    assert qos_mismatch(MAP_LATCHED, SENSOR_DATA) is None
