"""config/nav2/*.yaml, as launch/nav2_demo.launch.py hands them to Nav2, against a live node: every topic and frame
each Nav2 server would use, resolved with each distro's rule for relative names, exists in the simulator's graph
with a message type and a QoS that server accepts; for one robot, one namespaced robot and two namespaced robots.

Nav2 cannot be installed here, so its side is written down from its sources (ros-navigation/navigation2, branches
jazzy, kilted and main):

Names. A server node (controller_server, bt_navigator, velocity_smoother, collision_monitor, amcl, map_server ...)
creates its subscriptions and publishers on itself: a relative name resolves in the node's namespace, /<ns>/name,
on every distro (rcl's rule). The costmap layers are different: each costmap is its own node, created in
nav2_costmap_2d/src/costmap_2d_ros.cpp with `__ns:=<parent namespace>/<costmap name>` (/r1/local_costmap), and
- Jazzy (nav2_costmap_2d/plugins/obstacle_layer.cpp, static_layer.cpp): the layer subscribes to its `topic` /
  `map_topic` on that costmap node as written, so a relative name lands under the costmap node's namespace:
  `scan` -> /r1/local_costmap/scan;
- Kilted and main (nav2_costmap_2d/src/layer.cpp, Layer::joinWithParentNamespace, called by obstacle_layer.cpp and
  static_layer.cpp): a relative name is joined to the namespace above the costmap node: `scan` -> /r1/scan.
Absolute names are kept as they are by both. The launch file remaps cmd_vel -> cmd_vel_nav on the controller,
behavior server and velocity smoother, and /tf -> tf, /tf_static -> tf_static on every node when namespaced
(nav2_bringup/launch/navigation_launch.py's remappings).

Types and QoS. Costmap observation sources and the collision monitor's scan source: sensor_msgs/LaserScan with
SensorDataQoS (best effort: any publisher matches); odometry (nav2_util's OdomSmoother / nav_2d_utils's
OdomSubscriber): nav_msgs/Odometry, reliable; the static layer with map_subscribe_transient_local and AMCL's map:
nav_msgs/OccupancyGrid, reliable + transient local; AMCL's scan: LaserScan, sensor data; tf2's listener: reliable,
and reliable + transient local on tf_static; the collision monitor's command output (nav2_util::TwistPublisher):
geometry_msgs/TwistStamped when enable_stamped_cmd_vel is true, else Twist, reliable."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from tf2_msgs.msg import TFMessage

from dds_probe import node_and_probe
from launch_support import load_launch_file

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

ROOT = Path(__file__).resolve().parents[2]
NAV2 = ROOT / "config" / "nav2"
OFFICE = ROOT / "worlds" / "office_yaml_map.world.xml"
TWO_ROBOTS = ROOT / "worlds" / "demo_2robots.world.xml"
START_TIMEOUT_S = 60.0
#: The distros' rules for a costmap layer's relative topic (see the module's docstring).
RULES = ("jazzy", "kilted")

#: Parameter keys whose value is a frame id.
FRAME_KEYS = {"global_frame", "robot_base_frame", "base_frame_id", "odom_frame_id", "local_frame", "base_frame",
              "fixed_frame", "global_frame_id"}
#: Servers launch/nav2_demo.launch.py starts (docking_server is in the files for nav2_bringup's users only).
STARTED = {"controller_server", "smoother_server", "planner_server", "behavior_server", "velocity_smoother",
           "collision_monitor", "bt_navigator", "waypoint_follower", "local_costmap", "global_costmap"}
LOCALIZATION = {"map_server", "amcl"}
#: Node-level odometry subscriptions: (node, parameter, its default).
ODOM_USERS = (("bt_navigator", "odom_topic"), ("controller_server", "odom_topic"), ("velocity_smoother", "odom_topic"))
#: Nodes whose cmd_vel is remapped to cmd_vel_nav by the launch file (nav2_bringup's remaps).
CMD_VEL_NAV = ("controller_server", "behavior_server", "velocity_smoother")


#: The last commit with the Nav2 files that relied on relative costmap topics and pushed no namespace (the
#: negative cases read them from git history).
OLD_NAV2_COMMIT = "4543dd4"


def _profile(reliability, durability, depth: int) -> QoSProfile:
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=reliability, durability=durability)


SENSOR_DATA = qos_profile_sensor_data
SYSTEM_DEFAULT = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE, 10)
MAP_LATCHED = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.TRANSIENT_LOCAL, 1)
TF_LISTENER = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE, 100)
TF_STATIC_LISTENER = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.TRANSIENT_LOCAL, 1)
COMMAND_PUBLISHER = _profile(ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE, 1)
TWIST = "geometry_msgs/msg/Twist"
TWIST_STAMPED = "geometry_msgs/msg/TwistStamped"


@dataclass(frozen=True)
class Need:
    """One topic a Nav2 server uses that the simulator must serve: its resolved name, the types that fit, who
    publishes it (the simulator: "sim", or Nav2: "nav2"), the QoS of Nav2's endpoint and where it is written."""

    topic: str
    types: frozenset[str]
    publisher: str
    nav2_qos: QoSProfile
    where: str


def resolve(name: str, namespace: str) -> str:
    """rcl's rule: a relative name resolved in `namespace` ("/" or "/r1"); absolute names stay."""
    if name.startswith("/"):
        return name
    return f"{namespace.rstrip('/')}/{name}"


def costmap_topic(name: str, robot_ns: str, costmap: str, rule: str) -> str:
    """A costmap layer's topic: Jazzy resolves it in the costmap node's namespace (<ns>/<costmap>), Kilted and
    later join a relative name to the namespace above it (Layer::joinWithParentNamespace)."""
    if rule == "jazzy":
        return resolve(name, f"{robot_ns.rstrip('/')}/{costmap}")
    return resolve(name, robot_ns)


def nav2_tree(file_text: str, namespace: str, localization: str = "simulator", stamped: bool = True) -> dict:
    """The parameter tree launch/nav2_demo.launch.py writes for Nav2 (through its own function), without the
    namespace's root keys."""
    with pytest.MonkeyPatch.context() as patch:
        module = load_launch_file(patch, ROOT / "launch" / "nav2_demo.launch.py", "nav2_launch_for_dds")
        tree = module.nav2_parameters(file_text, namespace, localization, stamped, "/tmp/map.yaml")
    for part in [p for p in namespace.split("/") if p]:
        tree = tree[part]
    return tree


def _params(tree: dict, node: str) -> dict:
    if node in ("local_costmap", "global_costmap"):
        return tree[node][node]["ros__parameters"]
    return tree[node]["ros__parameters"]


def requirements(tree: dict, namespace: str, rule: str, started: set[str]) -> tuple[set[str], list[Need]]:
    """(frames, topics the simulator must serve) for the nodes in `started`, Nav2 in `namespace` ("" or "r1")."""
    ns = f"/{namespace}" if namespace else "/"
    frames: set[str] = set()
    needs: list[Need] = []
    for node in sorted(started):
        params = _params(tree, node)
        assert params.get("use_sim_time") is True, f"{node}: use_sim_time"
        for key, value in _flat(params):
            if key.rsplit(".", 1)[-1] in FRAME_KEYS:
                frames.add(value)
    scan = frozenset({"sensor_msgs/msg/LaserScan"})
    for costmap in ("local_costmap", "global_costmap"):
        params = _params(tree, costmap)
        for layer_name in params["plugins"]:
            layer = params[layer_name]
            where = f"{costmap}.{layer_name}"
            if layer["plugin"] == "nav2_costmap_2d::ObstacleLayer":
                sources = layer["observation_sources"]
                for source in sources.split() if isinstance(sources, str) else sources:
                    assert layer[source]["data_type"] == "LaserScan", where
                    needs.append(Need(costmap_topic(layer[source]["topic"], ns, costmap, rule), scan, "sim",
                                      SENSOR_DATA, f"{where}.{source}.topic"))
            elif layer["plugin"] == "nav2_costmap_2d::StaticLayer" and "map_server" not in started:
                assert layer["map_subscribe_transient_local"] is True, where
                needs.append(Need(costmap_topic(layer["map_topic"], ns, costmap, rule),
                                  frozenset({"nav_msgs/msg/OccupancyGrid"}), "sim", MAP_LATCHED, f"{where}.map_topic"))
    for node, key in ODOM_USERS:
        needs.append(Need(resolve(_params(tree, node).get(key, "odom"), ns), frozenset({"nav_msgs/msg/Odometry"}),
                          "sim", SYSTEM_DEFAULT, f"{node}.{key}"))
    monitor = _params(tree, "collision_monitor")
    for source in monitor["observation_sources"]:
        assert monitor[source]["type"] == "scan"
        needs.append(Need(resolve(monitor[source].get("topic", "scan"), ns), scan, "sim", SENSOR_DATA,
                          f"collision_monitor.{source}.topic"))
    stamped = monitor.get("enable_stamped_cmd_vel")
    assert isinstance(stamped, bool), "collision_monitor: enable_stamped_cmd_vel written out"
    needs.append(Need(resolve(monitor["cmd_vel_out_topic"], ns), frozenset({TWIST_STAMPED if stamped else TWIST}),
                      "nav2", COMMAND_PUBLISHER, "collision_monitor.cmd_vel_out_topic"))
    if "amcl" in started:
        amcl = _params(tree, "amcl")
        needs.append(Need(resolve(amcl["scan_topic"], ns), scan, "sim", SENSOR_DATA, "amcl.scan_topic"))
    return frames, needs


def _flat(params: dict, path: str = ""):
    for key, value in params.items():
        dotted = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            yield from _flat(value, dotted)
        else:
            yield dotted, value


def internal_problems(tree: dict, namespace: str, rule: str, localization: str = "simulator") -> list[str]:
    """Topics Nav2's servers exchange among themselves: each subscriber's resolved name equals the publisher's."""
    ns = f"/{namespace}" if namespace else "/"
    published = {resolve("cmd_vel_smoothed", ns): "velocity_smoother",
                 resolve("cmd_vel_nav", ns): "controller_server"}
    for costmap in ("local_costmap", "global_costmap"):
        costmap_ns = f"{ns.rstrip('/')}/{costmap}"
        for topic in ("costmap_raw", "published_footprint", "costmap"):
            published[resolve(topic, costmap_ns)] = costmap
    if localization == "amcl":
        published[resolve(_params(tree, "map_server").get("topic_name", "map"), ns)] = "map_server"
    wanted = [("collision_monitor.cmd_vel_in_topic", resolve(_params(tree, "collision_monitor")["cmd_vel_in_topic"],
                                                             ns))]
    wanted.append(("velocity_smoother cmd_vel (remapped)", resolve("cmd_vel_nav", ns)))
    for key in ("local_costmap_topic", "global_costmap_topic", "local_footprint_topic", "global_footprint_topic"):
        wanted.append((f"behavior_server.{key}", resolve(_params(tree, "behavior_server")[key], ns)))
    for polygon in _params(tree, "collision_monitor")["polygons"]:
        topic = _params(tree, "collision_monitor")[polygon].get("footprint_topic")
        if topic:
            wanted.append((f"collision_monitor.{polygon}.footprint_topic", resolve(topic, ns)))
    if localization == "amcl":
        wanted.append(("amcl.map_topic", resolve(_params(tree, "amcl")["map_topic"], ns)))
        for costmap in ("global_costmap",):
            layer = _params(tree, costmap)["static_layer"]
            wanted.append((f"{costmap}.static_layer.map_topic", costmap_topic(layer["map_topic"], ns, costmap, rule)))
    return [f"{where}: {topic} has no Nav2 publisher" for where, topic in wanted if topic not in published]


def qos_mismatch(publisher: QoSProfile, subscription: QoSProfile) -> str | None:
    """Why a subscription with `subscription`'s QoS gets nothing from a publisher with `publisher`'s, or None."""
    if subscription.reliability == ReliabilityPolicy.RELIABLE and publisher.reliability != ReliabilityPolicy.RELIABLE:
        return "the subscription is reliable, the publisher best effort"
    if (subscription.durability == DurabilityPolicy.TRANSIENT_LOCAL
            and publisher.durability != DurabilityPolicy.TRANSIENT_LOCAL):
        return "the subscription is transient local (latched), the publisher volatile"
    return None


def tree_root(frame: str, edges: set[tuple[str, str]]) -> str:
    """The root of the TF tree `frame` hangs from, following (parent, child) edges upwards."""
    parents = {child: parent for parent, child in edges}
    seen = set()
    while frame in parents and frame not in seen:
        seen.add(frame)
        frame = parents[frame]
    return frame


@dataclass
class Graph:
    """What a live node serves: endpoints per topic (type, QoS, "pub"/"sub") and TF edges per tf topic."""

    endpoints: dict[str, list[tuple[str, QoSProfile, str]]]
    edges: dict[str, set[tuple[str, str]]]


def live_graph(world: Path, namespaces: list[str], extra: tuple[str, ...] = ()) -> Graph:
    """Run the node on `world` and record its graph; TF is read on /tf and on each namespace's <ns>/tf."""
    tf_topics = {"/tf": TF_LISTENER, "/tf_static": TF_STATIC_LISTENER}
    for ns in namespaces:
        tf_topics.update({f"/{ns}/tf": TF_LISTENER, f"/{ns}/tf_static": TF_STATIC_LISTENER})
    edges: dict[str, set[tuple[str, str]]] = {t: set() for t in tf_topics}
    with node_and_probe("nav2_config_probe", f"world_file:={world}", *extra) as probe:
        node = probe.node
        for topic, qos in tf_topics.items():
            node.create_subscription(TFMessage, topic, lambda msg, t=topic: edges[t].update(
                (x.header.frame_id, x.child_frame_id) for x in msg.transforms), qos)
        assert probe.wait_for(lambda: node.count_publishers("/clock") > 0, START_TIMEOUT_S), "the node did not start"
        wanted = ["/clock"] + [f"/{ns}/odom" if ns else "/odom" for ns in namespaces or [""]]
        probe.wait_for(lambda: all(node.count_publishers(t) > 0 for t in wanted), 20.0)
        # cmd_vel's Twist and TwistStamped subscriptions live on two participants: wait for both to be discovered
        commands = [f"/{ns}/cmd_vel" if ns else "/cmd_vel" for ns in namespaces or [""]]
        probe.wait_for(lambda: all(len({e.topic_type for e in node.get_subscriptions_info_by_topic(t)}) >= 2
                                   for t in commands), 20.0)

        def tf_complete():
            for ns in namespaces or [""]:
                tf = edges[f"/{ns}/tf" if ns else "/tf"] | edges[f"/{ns}/tf_static" if ns else "/tf_static"]
                if any(tree_root(f, tf) != "map" for f in ("base_link", "base_footprint", "scan")):
                    return False
            return True
        probe.wait_for(tf_complete, 20.0)
        endpoints: dict[str, list] = {}
        for topic, _ in node.get_topic_names_and_types():
            found = [(e.topic_type, e.qos_profile, "pub") for e in node.get_publishers_info_by_topic(topic)
                     if e.node_name != node.get_name()]
            found += [(e.topic_type, e.qos_profile, "sub") for e in node.get_subscriptions_info_by_topic(topic)
                      if e.node_name != node.get_name()]
            endpoints[topic] = found
    return Graph(endpoints, edges)


def live_problems(graph: Graph, frames: set[str], needs: list[Need], namespace: str) -> list[str]:
    """What the live graph lacks of what Nav2 in `namespace` needs."""
    problems = []
    for need in needs:
        side = "pub" if need.publisher == "sim" else "sub"
        endpoints = [(t, q) for t, q, s in graph.endpoints.get(need.topic, []) if s == side]
        fitting = [(t, q) for t, q in endpoints if t in need.types]
        if not fitting:
            problems.append(f"{need.where}: {need.topic}: no simulator endpoint of type {sorted(need.types)} "
                            f"(found {[t for t, _ in endpoints]})")
            continue
        for topic_type, qos in fitting:
            pub, sub = (qos, need.nav2_qos) if need.publisher == "sim" else (need.nav2_qos, qos)
            reason = qos_mismatch(pub, sub)
            if reason is not None:
                problems.append(f"{need.where}: {need.topic} ({topic_type}): QoS Nav2 cannot match: {reason}")
    tf, tf_static = (f"/{namespace}/tf", f"/{namespace}/tf_static") if namespace else ("/tf", "/tf_static")
    for topic, qos in ((tf, TF_LISTENER), (tf_static, TF_STATIC_LISTENER)):
        for topic_type, pub_qos, side in graph.endpoints.get(topic, []):
            if side == "pub" and qos_mismatch(pub_qos, qos):
                problems.append(f"{topic}: tf2's listener cannot match: {qos_mismatch(pub_qos, qos)}")
    if {t for t, _, s in graph.endpoints.get("/clock", []) if s == "pub"} != {"rosgraph_msgs/msg/Clock"}:
        problems.append("/clock: no rosgraph_msgs/msg/Clock publisher (use_sim_time needs it)")
    edges = graph.edges.get(tf, set()) | graph.edges.get(tf_static, set())
    present = {frame for edge in edges for frame in edge}
    missing = sorted(frames - present)
    if missing:
        problems.append(f"frames not in the tree on {tf}, {tf_static}: {missing} (edges: {sorted(edges)})")
    disconnected = sorted(f for f in frames & present if tree_root(f, edges) != "map")
    if disconnected:
        problems.append(f"frames not connected to map: {disconnected} (edges: {sorted(edges)})")
    return problems


@pytest.fixture(scope="module")
def office_graph():
    return live_graph(OFFICE, [])


@pytest.fixture(scope="module")
def two_robot_graph():
    return live_graph(TWO_ROBOTS, ["r1", "r2"])


def _file(name: str) -> str:
    return (NAV2 / name).read_text(encoding="utf-8")


#: (id, parameter file, namespaces: one Nav2 per entry) of the shipped examples.
EXAMPLES = {
    "single": ("nav2_single_robot.yaml", [""]),
    "namespaced": ("nav2_namespaced_robot.yaml", ["r1"]),
    "two_robots": ("nav2_namespaced_robot.yaml", ["r1", "r2"]),
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_every_topic_and_frame_exists_in_the_live_graph(example, rule, request):
    file_name, namespaces = EXAMPLES[example]
    graph = request.getfixturevalue("office_graph" if example == "single" else "two_robot_graph")
    problems = []
    for namespace in namespaces:
        for stamped in (True, False):
            tree = nav2_tree(_file(file_name), namespace, stamped=stamped)
            frames, needs = requirements(tree, namespace, rule, STARTED)
            assert {"map", "odom", "base_link", "base_footprint"} <= frames
            assert {n.types for n in needs} >= {frozenset({"nav_msgs/msg/Odometry"}),
                                                frozenset({"sensor_msgs/msg/LaserScan"})}
            problems += live_problems(graph, frames, needs, namespace)
            problems += internal_problems(tree, namespace, rule)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("rule", RULES)
def test_amcl_variant_names_resolve_and_exist(rule, two_robot_graph):
    """localization:=amcl: AMCL's scan and the simulator's odometry exist for each robot, the costmap's and AMCL's
    map come from that robot's map_server, and frames are the same."""
    problems = []
    for namespace in ("r1", "r2"):
        tree = nav2_tree(_file("nav2_namespaced_robot.yaml"), namespace, "amcl")
        frames, needs = requirements(tree, namespace, rule, STARTED | LOCALIZATION)
        assert any(n.where == "amcl.scan_topic" and n.topic == f"/{namespace}/scan" for n in needs)
        assert not any(n.topic.endswith("map") for n in needs), "the map comes from map_server, not the simulator"
        problems += live_problems(graph=two_robot_graph, frames=frames, needs=needs, namespace=namespace)
        problems += internal_problems(tree, namespace, rule, "amcl")
    assert not problems, "\n".join(problems)


def test_each_robot_of_the_two_robot_example_has_its_own_names():
    topics = {}
    for namespace in ("r1", "r2"):
        tree = nav2_tree(_file("nav2_namespaced_robot.yaml"), namespace)
        _, needs = requirements(tree, namespace, "jazzy", STARTED)
        topics[namespace] = {n.topic for n in needs}
    assert topics["r1"].isdisjoint(topics["r2"] - {"/simul_map"})
    assert all(t.startswith("/r1/") or t == "/simul_map" for t in topics["r1"]), topics["r1"]


def test_relative_costmap_topics_fail_under_jazzys_rule(office_graph, two_robot_graph):
    """The check can fail: costmap layers with relative `scan` and `simul_map` (as the files had them) resolve to
    /local_costmap/scan and /global_costmap/simul_map under Jazzy's rule, which nobody publishes; under Kilted's
    they are /scan and /simul_map, which exist."""
    tree = yaml.safe_load(_file("nav2_single_robot.yaml"))
    for costmap in ("local_costmap", "global_costmap"):
        params = tree[costmap][costmap]["ros__parameters"]
        params["obstacle_layer"]["scan"]["topic"] = "scan"
        if "static_layer" in params:
            params["static_layer"]["map_topic"] = "simul_map"
    text = yaml.safe_dump(tree)
    jazzy = "\n".join(live_problems(office_graph, *requirements(nav2_tree(text, ""), "", "jazzy", STARTED), ""))
    assert "/local_costmap/scan: no simulator endpoint" in jazzy, jazzy
    assert "/global_costmap/scan: no simulator endpoint" in jazzy, jazzy
    assert "/global_costmap/simul_map: no simulator endpoint" in jazzy, jazzy
    assert not live_problems(office_graph, *requirements(nav2_tree(text, ""), "", "kilted", STARTED), "")
    # the namespaced case: /r1/local_costmap/scan under Jazzy's rule, /r1/scan under Kilted's
    text = _file("nav2_namespaced_robot.yaml").replace("<robot_namespace>/scan", "scan")
    jazzy = "\n".join(live_problems(two_robot_graph, *requirements(nav2_tree(text, "r1"), "r1", "jazzy", STARTED),
                                    "r1"))
    assert "/r1/local_costmap/scan: no simulator endpoint" in jazzy, jazzy


def _costmap_layer_topics(tree: dict) -> list[str]:
    """Every obstacle source's `topic` and static layer's `map_topic` in a parameter tree."""
    topics = []
    for costmap in ("local_costmap", "global_costmap"):
        params = tree[costmap][costmap]["ros__parameters"]
        for layer in (params[name] for name in params["plugins"]):
            if "observation_sources" in layer:
                topics += [layer[source]["topic"] for source in layer["observation_sources"].split()]
            if "map_topic" in layer:
                topics.append(layer["map_topic"])
    return topics


def test_the_old_file_fails_under_jazzys_rule(office_graph):
    """The negative case on the repository's file as it was (git show OLD_NAV2_COMMIT:config/nav2/
    nav2_single_robot.yaml): its costmap layers name relative topics, which Jazzy's rule turns into names the
    simulator does not serve."""
    shown = subprocess.run(["git", "show", f"{OLD_NAV2_COMMIT}:config/nav2/nav2_single_robot.yaml"], cwd=ROOT,
                           capture_output=True, text=True)
    if shown.returncode != 0:
        pytest.skip("no git history here")
    assert not all(t.startswith("/") for t in _costmap_layer_topics(yaml.safe_load(shown.stdout)))
    problems = live_problems(office_graph, *requirements(nav2_tree(shown.stdout, ""), "", "jazzy", STARTED), "")
    assert any("/local_costmap/scan: no simulator endpoint" in p for p in problems), problems


def test_the_shipped_files_name_no_relative_costmap_topic():
    for name in ("nav2_single_robot.yaml", "nav2_namespaced_robot.yaml"):
        topics = _costmap_layer_topics(nav2_tree(_file(name), "r1" if "namespaced" in name else ""))
        assert topics and all(t.startswith("/") for t in topics), (name, topics)


def test_nav2_at_the_root_finds_nothing_of_a_namespaced_robot(two_robot_graph):
    """The check can fail: Nav2's nodes at the root (what nav2_bringup's navigation_launch.py does with
    namespace:=r1 on Jazzy and Kilted, which do not push it) look for /odom, /scan and /tf in a two-robot world."""
    tree = nav2_tree(_file("nav2_single_robot.yaml"), "")
    problems = "\n".join(live_problems(two_robot_graph, *requirements(tree, "", "kilted", STARTED), ""))
    assert "/scan: no simulator endpoint" in problems and "/odom: no simulator endpoint" in problems, problems
    assert "frames not in the tree on /tf" in problems, problems


def test_the_qos_rule_can_fail():
    best_effort = _profile(ReliabilityPolicy.BEST_EFFORT, DurabilityPolicy.VOLATILE, 5)
    assert qos_mismatch(best_effort, SYSTEM_DEFAULT) is not None
    assert qos_mismatch(SYSTEM_DEFAULT, MAP_LATCHED) is not None
    assert qos_mismatch(MAP_LATCHED, SENSOR_DATA) is None
