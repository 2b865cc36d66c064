"""Red team, world files as the node meets them: each hostile world is refused by the real `mvsim_node` process
with exit status 2 and one line naming the file and line, within 2 s of its own start-up time and 500 MB of memory,
never a traceback (issue 11's acceptance for "each hostile world above")."""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import time

import pytest
from PIL import Image

from dds_probe import node_command

#: Peak resident memory [bytes] a refused world may cost the node process.
MAX_RSS_BYTES = 500 * 1024 * 1024
#: Wall time [s] a refusal may take beyond the node's own start-up (imports, ROS init: measured per run).
MAX_EXTRA_S = 2.0

_ROBOT = """<vehicle name="{name}"><init_pose>{pose}</init_pose>
  <dynamics class="differential"><chassis mass="{mass}"/>
    <l_wheel pos="0 0.25" diameter="{diameter}"/><r_wheel pos="0 -0.25" diameter="{diameter}"/></dynamics>
  <sensor class="laser" name="scan"><nrays>{nrays}</nrays><range_max>{range_max}</range_max></sensor>
</vehicle>"""


def _world(*, timestep="0.005", gravity="9.81", vel_iters="6", pose="0 0 0", mass="15", diameter="0.2",
           nrays="181", range_max="20", block_mass="10", extra="", name="r1") -> str:
    """A world whose robot `name` starts at line 5 (5 lines long), a block at line 10 and `extra` from line 11."""
    robot = _ROBOT.format(name=name, pose=pose, mass=mass, diameter=diameter, nrays=nrays, range_max=range_max)
    return (f'<mvsim_world version="1.0">\n<simul_timestep>{timestep}</simul_timestep>\n<gravity>{gravity}</gravity>\n'
            f"<b2d_vel_iters>{vel_iters}</b2d_vel_iters>\n{robot}\n"
            f'<block name="b"><mass>{block_mass}</mass><init_pose>3 0 0</init_pose>'
            f"<shape><pt>0 0</pt><pt>1 0</pt><pt>1 1</pt></shape></block>\n{extra}\n</mvsim_world>\n")


def _loops(body: str, count: str = "10000") -> str:
    return (f'<for var="i" from="0" to="{count}"><for var="j" from="0" to="{count}">{body}</for></for>')


def _expansion_chain() -> str:
    """Variables that each double the previous one: 2^30 characters from a few hundred bytes."""
    lines = ['<variable name="v0" value="xxxxxxxx"/>']
    lines += [f'<variable name="v{k}" value="${{v{k - 1}}}${{v{k - 1}}}"/>' for k in range(1, 28)]
    return "\n".join(lines) + '\n<variable name="sink" value="${v27}"/>'


def _gzip_bomb(path) -> None:
    """A .gridmap.gz of 256 gzip members, each inflating to 16 MiB of zeros: 4 GiB from about 4 MiB."""
    member = gzip.compress(bytes(16 * 1024 * 1024), compresslevel=9)
    with open(path, "wb") as out:
        for _ in range(256):
            out.write(member)


HOSTILE = {
    "timestep 1e308": lambda d: _world(timestep="1e308"),
    "timestep 1e-9": lambda d: _world(timestep="1e-9"),
    "timestep 1e-300": lambda d: _world(timestep="1e-300"),
    "init_pose 1e308": lambda d: _world(pose="1e308 0 0"),
    "init_pose 1e30 1e30": lambda d: _world(pose="1e30 1e30 0"),
    "chassis mass 1e308": lambda d: _world(mass="1e308"),
    "block mass 1e308": lambda d: _world(block_mass="1e308"),
    "wheel diameter 1e300": lambda d: _world(diameter="1e300"),
    "wheel diameter 1e-300": lambda d: _world(diameter="1e-300"),
    "lidar range_max 1e308": lambda d: _world(range_max="1e308"),
    "nrays 0": lambda d: _world(nrays="0"),
    "nrays 1e9": lambda d: _world(nrays="1000000000"),
    "gravity 1e308": lambda d: _world(gravity="1e308"),
    "b2d_vel_iters 1e9": lambda d: _world(vel_iters="1000000000"),
    "nesting 600 levels": lambda d: _world(extra="<a>" * 600 + "</a>" * 600),
    "1e8 loop iterations of variables": lambda d: _world(extra=_loops('<variable name="x" value="1"/>')),
    "1e8 loop iterations of a false if": lambda d: _world(extra=_loops('<if condition="0"><a/></if>')),
    "1e16 empty loop iterations": lambda d: _world(extra=_loops("", count="100000000")),
    "variable expansion chain": lambda d: _world(extra=_expansion_chain()),
}


def _write_hostile_files(case: str, folder) -> str:
    """The world file of a case that needs more than one file; its path."""
    world = folder / "hostile.world.xml"
    if case == "gzip bomb grid map":
        _gzip_bomb(folder / "bomb.gridmap.gz")
        world.write_text(_world(extra='<element class="occupancy_grid"><file>bomb.gridmap.gz</file></element>'))
    elif case == "15000 x 15000 PNG":
        Image.new("1", (15000, 15000), 1).save(folder / "huge.png")
        world.write_text(_world(extra='<element class="occupancy_grid"><file>huge.png</file>'
                                      '<resolution>0.05</resolution></element>'))
    elif case == "4 GB sparse include":
        with open(folder / "sparse.xml", "wb") as out:
            out.truncate(4 * 1024 ** 3)
        world.write_text(_world(extra='<include file="sparse.xml"/>'))
    elif case == "1 MB include name":
        world.write_text(_world(extra=f'<include file="{"a" * (1024 * 1024)}.xml"/>'))
    else:
        world.write_text(HOSTILE[case](folder))
    return str(world)


#: Runs the command in argv[1:] (stdout discarded, stderr passed on) and prints its peak RSS [KiB] on stdout. The
#: node is started from this small process rather than from pytest: a child forked from a large process starts
#: with that process's resident pages in its high-water mark.
_MEASURE = """
import resource, subprocess, sys
status = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(status)
"""


def _run(world: str, cwd) -> tuple[int, str, float, int]:
    """Run the node on `world`: (exit status, stderr, wall time [s], peak RSS [bytes])."""
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", _MEASURE, *node_command(f"world_file:={world}")],
                            capture_output=True, text=True, cwd=cwd, timeout=120)
    return result.returncode, result.stderr, time.monotonic() - start, int(result.stdout.split()[-1]) * 1024


@pytest.fixture(scope="module")
def startup_s(tmp_path_factory) -> float:
    """The node's own time to start and refuse a missing world file [s] (imports, ROS init): the slower of two."""
    folder = tmp_path_factory.mktemp("baseline")
    times = [_run(str(folder / "missing.world.xml"), folder)[2] for _ in range(2)]
    return max(times)


MULTI_FILE = ["gzip bomb grid map", "15000 x 15000 PNG", "4 GB sparse include", "1 MB include name"]


@pytest.mark.parametrize("case", list(HOSTILE) + MULTI_FILE)
def test_hostile_world_is_refused_in_one_line_quickly_and_within_memory(case, tmp_path, startup_s):
    world = _write_hostile_files(case, tmp_path)
    status, stderr, elapsed, rss = _run(world, tmp_path)
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert status == 2, stderr[-2000:]
    assert "Traceback" not in stderr and "Error:" not in stderr.replace("WorldFileError", ""), stderr[-2000:]
    assert len(lines) == 1, stderr[-2000:]
    assert lines[0].startswith("mvsim_node: cannot load the world: "), lines[0][:500]
    assert re.search(r"hostile\.world\.xml:\d+", lines[0]), lines[0][:500]
    assert len(lines[0]) < 1000, f"{len(lines[0])} characters: a long value must be shortened in the message"
    assert elapsed < startup_s + MAX_EXTRA_S, f"{elapsed:.2f} s (start-up alone {startup_s:.2f} s)"
    assert rss < MAX_RSS_BYTES, f"peak RSS {rss / 2**20:.0f} MiB"


def _second_robot(name: str) -> str:
    return _ROBOT.format(name=name, pose="0 3 0", mass="15", diameter="0.2", nrays="181", range_max="20")


#: Worlds whose vehicle names cannot be used: (world, the refusal's file:line and message, as a regular expression).
BAD_NAMES = {
    "10,000-character vehicle name": (_world(name="a" * 10_000), r":5: <vehicle>: vehicle name 'a{40}\.\.\.' \(10000 "
                                      r"characters\) cannot be used: it is 10000 characters long"),
    "10,000-character name of a second vehicle": (_world(extra=_second_robot("r" * 10_000)),
                                                  r":11: <vehicle>: vehicle name 'r{40}\.\.\.' \(10000 characters\)"),
    "vehicle name with an empty part": (_world(name="fleet//r1"), r":5: <vehicle>: vehicle name 'fleet//r1' cannot be "
                                                                  r"used: it has an empty part between '/'"),
    "duplicate vehicle names": (_world(extra=_second_robot("r1")), r":11: <vehicle>: duplicate vehicle names: r1 names "
                                                                   r"this <vehicle> and the <vehicle> at line 5"),
}


@pytest.mark.parametrize("case", list(BAD_NAMES))
def test_bad_vehicle_names_are_refused_at_load_naming_file_and_lines(case, tmp_path):
    text, expected = BAD_NAMES[case]
    world = tmp_path / "hostile.world.xml"
    world.write_text(text)
    status, stderr, _, _ = _run(str(world), tmp_path)
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert status == 2 and len(lines) == 1, stderr[-2000:]
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr[-2000:]
    assert re.match(rf"mvsim_node: cannot load the world: {re.escape(str(world))}{expected}", lines[0]), lines[0][:500]
    assert len(lines[0]) < 1000
