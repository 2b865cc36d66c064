"""README.md as a front page: its Python example runs and prints what it says, it links every page of docs/, every
relative link of the README and of docs/ points at a file that exists, it stays short, and it has the sections a
newcomer needs, in an order that starts with what works in the venv."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_LINES = 250
#: Sections (## headings) the README must have, in this order.
SECTIONS = ["Prerequisites", "Two commands (fresh Debian 12 machine)", "What you see", "Drive it", "The viewer",
            "ROS interface at a glance", "Python API", "Nav2", "On a ROS 2 install: colcon and launch files",
            "Documentation"]


def _text() -> str:
    return README.read_text(encoding="utf-8")


def python_example() -> str:
    """The README's one ```python block."""
    blocks = re.findall(r"^```python\n(.*?)^```", _text(), flags=re.S | re.M)
    assert len(blocks) == 1, f"expected one python block, found {len(blocks)}"
    return blocks[0]


def test_the_python_example_runs_and_prints_poses_and_a_scan():
    result = subprocess.run([sys.executable, "-c", python_example()], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    poses = dict(re.findall(r"^(\w+): (x=.*)$", result.stdout, flags=re.M))
    assert set(poses) == {"r1", "r2"}, result.stdout
    values = {name: [float(v) for v in re.findall(r"=(-?[0-9.]+)", text)] for name, text in poses.items()}
    # r1 was commanded (0.5 m/s, 0.2 rad/s) for 10 s from (0, 0, 0): an arc of about 5 m, turning ~115°;
    # r2 got no command and stays at its initial pose (-8, -4, 90°).
    x1, y1, yaw1 = values["r1"]
    assert 3.0 < math.hypot(x1, y1) < 5.0 and 90 < yaw1 < 130, poses["r1"]
    assert values["r2"] == [-8.0, -4.0, 90.0], poses["r2"]
    scan = re.search(r"^t=([0-9.]+) s, scan: (\d+) beams, nearest ([0-9.]+) m$", result.stdout, flags=re.M)
    assert scan is not None, result.stdout
    assert float(scan.group(1)) == 10.0 and int(scan.group(2)) > 100 and 0.05 < float(scan.group(3)) < 20.0


def _relative_links(path: Path) -> list[str]:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8"))
    return [link for link in links if "://" not in link]


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / link).resolve() for link in _relative_links(README)}
    pages = sorted(DOCS.rglob("*.md"))
    assert pages
    unlinked = [str(p.relative_to(ROOT)) for p in pages if p.resolve() not in linked]
    assert not unlinked, f"docs pages the README does not link: {unlinked}"


def test_every_relative_link_points_at_a_file():
    broken = []
    for page in [README, *sorted(DOCS.rglob("*.md"))]:
        for link in _relative_links(page):
            if not (page.parent / link).exists():
                broken.append(f"{page.relative_to(ROOT)}: {link}")
    assert not broken, broken


def test_the_readme_is_a_short_front_page_with_its_sections_in_order():
    text = _text()
    assert len(text.splitlines()) <= MAX_LINES
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert [h for h in headings if h in SECTIONS] == SECTIONS, headings


def test_the_commands_it_gives_exist():
    text = _text()
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in re.findall(r"^make (\w+)", text, flags=re.M) + re.findall(r"`make (\w+)`", text):
        assert re.search(rf"^{target}:", makefile, flags=re.M), f"make {target}: no such target"
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    scripts = (ROOT / "setup.py").read_text(encoding="utf-8")
    for script in set(re.findall(r"\.venv/bin/(mvsim_\w+)", text)):
        assert f'"{script} = ' in scripts, script
    for launch in set(re.findall(r"ros2 launch mvsim_ros (\S+)", text)):
        assert (ROOT / "launch" / launch).is_file(), launch
    # the venv's teleop comes before the one that needs a ROS install
    assert text.index("mvsim_teleop") < text.index("teleop_twist_keyboard teleop_twist_keyboard")


def test_user_pages_tell_no_history():
    """The pages describe the software as it is: no issue numbers, no study seeds, no before/after."""
    pattern = re.compile(r"\bissue \d+|\bseed[ -]00\d|\bas before\b|\(before\)|\bBefore,", re.I)
    found = []
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        if page.name in ("parameters.md", "viewer.md"):
            continue  # generated / written with the viewer
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{page.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
