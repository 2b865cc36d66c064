"""`mvsim_report RUN.mcap [-o OUT_DIR]`: the page and figures written, names escaped, one line for a bad file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_fixtures import CircleRun, RunWriter, circle_recording, write_circle_run

from mvsim_ros.cli.report import main

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "ROS_DOMAIN_ID": "77"}


class _Links(HTMLParser):
    """Every tag's name and attributes of a page."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_writes_the_page_beside_the_recording_and_prints_its_path(tmp_path, capsys):
    path = tmp_path / "run.mcap"
    circle_recording(path)
    assert main([str(path)]) == 0
    index = Path(capsys.readouterr().out.strip())
    assert index == tmp_path / "run_report" / "index.html" and index.is_file()
    parser = _Links()
    parser.feed(index.read_text())
    images = [attrs["src"] for tag, attrs in parser.tags if tag == "img"]
    assert images == ["paths.png", "vehicle_veh1.png"]
    for src in images:
        assert (index.parent / src).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # scripts only inline (plotly.js and the figures written into the page), nothing loaded from elsewhere
    assert not any(tag == "link" or (tag == "script" and "src" in attrs) for tag, attrs in parser.tags)


def test_output_folder_option(tmp_path, capsys):
    path = tmp_path / "run.mcap"
    circle_recording(path, CircleRun(with_map=False))
    assert main([str(path), "-o", str(tmp_path / "elsewhere" / "rep")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "elsewhere" / "rep" / "index.html")


def test_header_names_the_world_and_escapes_every_name(tmp_path):
    path = tmp_path / "odd.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        write_circle_run(writer, CircleRun(vehicles={"<b>v&1</b>/": (1.0, 0.5, 0.0)}, seconds=2.0,
                                           world_file="<i>worlds</i>/a&b.world.xml"))
        writer.writer.add_attachment(0, 0, "<world>.xml", "application/xml", b"<mvsim_world/>")
        writer.writer.add_metadata("mvsim", {"simulator": "<mvsim_ros>"})
        writer.finish()
    assert main([str(path)]) == 0
    html = (tmp_path / "odd_report" / "index.html").read_text()
    assert "&lt;i&gt;worlds&lt;/i&gt;/a&amp;b.world.xml" in html
    assert "&lt;world&gt;.xml" in html
    assert "simulator = <code>&lt;mvsim_ros&gt;</code>" in html
    assert "/&lt;b&gt;v&amp;1&lt;/b&gt;/base_pose_ground_truth" in html
    assert "<b>" not in html and "<i>" not in html and "<world>" not in html
    # the page's markup loads nothing from elsewhere (plotly.js, inline, holds addresses in strings it never uses)
    markup = re.sub(r"<script[^>]*>.*?</script>", "", html, flags=re.DOTALL)
    assert not re.search(r"(src|href)=\"(https?:)?//", markup)
    images = re.findall(r'<img[^>]* src="([^"]+)"', html)
    assert len(images) == 2 and all((tmp_path / "odd_report" / src).is_file() for src in images)


@pytest.mark.parametrize("content", [b"", b"not an mcap file at all\n" * 10, b"\x89MCAP0\r\n"[:5]],
                         ids=["empty", "text", "short"])
def test_a_file_that_is_not_mcap_is_one_line_and_status_2(tmp_path, content):
    path = tmp_path / "bad.mcap"
    path.write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "mvsim_ros.cli.report", str(path)], cwd=REPO, env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert "not an MCAP file" in done.stderr and str(path) in done.stderr
    assert not (tmp_path / "bad_report").exists()


def test_missing_file_and_folder_are_one_line_and_status_2(tmp_path, capsys):
    assert main([str(tmp_path / "absent.mcap")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot open" in err
    assert main([str(tmp_path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_importing_the_package_loads_neither_matplotlib_nor_ros():
    code = ("import sys, mvsim_ros.report, mvsim_ros.cli.report; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'rclpy', 'nav_msgs')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_recording_without_vehicles_still_gives_a_page(tmp_path, capsys):
    from std_msgs.msg import UInt8MultiArray

    path = tmp_path / "sensors.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        for k in range(20):
            writer.write("/cam/image", UInt8MultiArray(data=bytes(100)), 0.1 * k)
        writer.finish()
    assert main([str(path)]) == 0
    html = Path(capsys.readouterr().out.strip()).read_text()
    assert re.findall(r'<img[^>]* src="([^"]+)"', html) == ["paths.png"]
    assert "<td>/cam/image</td>" in html and '<td class="num">10.0</td>' in html
    assert "<h2>Vehicles</h2>" not in html


def test_topics_that_cannot_be_decoded_are_counted_and_named(tmp_path, capsys):
    from mcap.writer import Writer

    path = tmp_path / "odd_schemas.mcap"
    with open(path, "wb") as handle:
        writer = Writer(handle)
        writer.start(profile="ros2", library="test")
        broken = writer.register_schema("nav_msgs/msg/Odometry", "ros2msg", b"no_such_pkg/Thing field\n")
        json_schema = writer.register_schema("geometry_msgs/msg/Twist", "jsonschema", b"{}")
        odom = writer.register_channel("/r/odom", "cdr", broken)
        cmd = writer.register_channel("/r/cmd_vel", "json", json_schema)
        for k in range(3):
            writer.add_message(odom, log_time=k * 10**8, data=b"\x00\x01\x00\x00", publish_time=k * 10**8)
            writer.add_message(cmd, log_time=k * 10**8, data=b"{}", publish_time=k * 10**8)
        writer.finish()
    assert main([str(path)]) == 0
    html = Path(capsys.readouterr().out.strip()).read_text()
    assert "<h2>Not decoded</h2>" in html
    assert "<code>/r/odom</code>: 3 of 3 messages failed, the first at log time 0 ns: " in html
    assert "<code>/r/cmd_vel</code>: no decoder for schema encoding &#x27;jsonschema&#x27;" in html
    assert html.count('<td class="num">10.0</td>') == 2  # both still counted: 3 messages in 0.2 s
