"""record_run checks every argument (the world and its vehicle names included) before it creates anything: a bad
one raises, no node starts, and the target file stays as it was, with no partial file beside it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mvsim_ros.output.recording.recorder import RecordingError
from mvsim_ros.ros import record_run as record_run_module
from mvsim_ros.ros.node.parameters import ParameterError
from mvsim_ros.ros.record_run import check_arguments, record_run
from mvsim_ros.world import WorldFileError

DEMO_WORLD = Path(__file__).resolve().parents[2] / "worlds" / "demo_2robots.world.xml"

GOOD = {"seconds": 1.0, "twists": {"r1": (0.5, 0.1)}}
BAD = [
    ({"twists": {"nobody": (1.0, 0.0)}}, ValueError, "no vehicle named 'nobody'"),
    ({"twists": {"r1": (math.nan, 0.0)}}, ValueError, "not a pair of finite numbers"),
    ({"twists": {"r1": 1.0}}, ValueError, "not a pair of finite numbers"),
    ({"twists": {"r1": (True, 0.0)}}, ValueError, "not a pair of finite numbers"),
    ({"twists": [("r1", (1.0, 0.0))]}, ValueError, "twists must map"),
    ({"seconds": 0.0}, ValueError, "seconds must be a positive number"),
    ({"seconds": math.inf}, ValueError, "seconds must be a positive number"),
    ({"seconds": "2"}, ValueError, "seconds must be a positive number"),
    ({"compression": "gzip"}, ValueError, "compression must be one of"),
    ({"topics": "/clock"}, ValueError, "topics must be a sequence"),
    ({"parameters": {"record": "other.mcap"}}, ValueError, "set by record_run's own arguments"),
    ({"parameters": {"no_such_parameter": 1}}, ValueError, "no node parameter named"),
    ({"parameters": {"odometry_publish_rate": "fast"}}, ParameterError, "odometry_publish_rate"),
    ({"world_file": "no_such.world.xml"}, WorldFileError, "no_such.world.xml"),
]


@pytest.mark.parametrize("change, error, words", BAD, ids=[str(change) for change, _, _ in BAD])
def test_a_bad_argument_leaves_the_target_as_it_was(tmp_path, monkeypatch, change, error, words):
    def no_node(*_args, **_kwargs):
        raise AssertionError("the node was started before the arguments were checked")

    monkeypatch.setattr(record_run_module, "private_node", no_node)
    target = tmp_path / "run.mcap"
    target.write_bytes(b"an earlier run")
    arguments = {"world_file": DEMO_WORLD, **GOOD, **change}
    world = arguments.pop("world_file")
    seconds = arguments.pop("seconds")
    with pytest.raises(error, match=words.replace("(", r"\(")):
        record_run(world, target, seconds, **arguments)
    assert target.read_bytes() == b"an earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.mcap"]


def test_a_target_that_cannot_be_recorded_to_is_refused_first(tmp_path):
    folder = tmp_path / "a_folder.mcap"
    folder.mkdir()
    with pytest.raises(RecordingError, match="it is a folder"):
        check_arguments(DEMO_WORLD, folder, 1.0, None, (), "lz4", None)
    assert list(folder.iterdir()) == []


def test_good_arguments_are_the_nodes_parameters():
    values = check_arguments(DEMO_WORLD, "run.mcap", 2.0, {"r1": (0.5, 0.1)}, ("/*/odom",), "zstd",
                             {"odometry_publish_rate": 20})
    assert values["record"] == "run.mcap" and values["record_compression"] == "zstd"
    assert values["record_topics"] == ["/*/odom"] and values["odometry_publish_rate"] == 20.0
    assert values["realtime_factor"] == 0.0 and values["base_watchdog_timeout"] == 0.0
