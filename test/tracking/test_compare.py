"""The comparison tool: a small plan end to end (figures, CSV, Markdown), the command line, and the report
committed under docs/compare."""

from __future__ import annotations

import csv
import math
import re

import pytest
from PIL import Image

from conftest import REPO
from mvsim_ros.compare.cli import main
from mvsim_ros.compare.report import build_report
from mvsim_ros.compare.scenarios import ConstantRadius, Plan, SpeedRamp, SteerStep, TrackedShape

TINY = Plan(surfaces=("dry",), shapes=(TrackedShape("circle", {"R": 2.0, "W": 0.8}, 10.0, 5.0),),
            steer_step=SteerStep(t_step=1.5, duration=4.0), speed_ramp=SpeedRamp(hold=0.5, ramp=2.0),
            constant_radius=ConstantRadius(fractions=(0.1, 0.25), settle_laps=0.5, min_settle=3.0,
                                           measure_laps=0.2, fit_fraction=0.3),
            weight_fractions=(), dynamic_controller=False)


def linked_files(markdown: str) -> set[str]:
    return set(re.findall(r"\]\(([^)]+)\)", markdown))


def check_report(folder, max_png_bytes: int = 100_000) -> str:
    text = (folder / "report.md").read_text()
    links = linked_files(text)
    assert {"metrics.csv", "constant_radius.csv"} <= links
    for name in links:
        assert (folder / name).is_file(), name
        if name.endswith(".png"):
            assert (folder / name).stat().st_size <= max_png_bytes, name
            with Image.open(folder / name) as image:
                assert image.format == "PNG" and image.width >= 250
    return text


def test_a_small_plan_writes_figures_numbers_and_a_page(tmp_path):
    lines = []
    build_report(tmp_path, TINY, log=lines.append)
    text = check_report(tmp_path)
    assert {"tracking_dry.png", "steer_step.png", "speed_ramp.png", "understeer.png"} <= linked_files(text)
    with (tmp_path / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    values = {(r["section"], r["case"], r["plant"], r["metric"]): float(r["value"]) for r in rows}
    assert values[("tracking", "circle", "simulator", "rms_error_after_settle")] < 0.05
    assert values[("tracking", "circle", "kinematic", "rms_error_after_settle")] < 1e-3
    assert values[("steer_step", "delta=0.1", "simulator", "yaw_rate_over_kinematic")] == pytest.approx(1.0, abs=0.02)
    assert values[("steer_step", "delta=0.1", "kinematic", "yaw_rate_over_kinematic")] == pytest.approx(1.0, abs=1e-9)
    with (tmp_path / "constant_radius.csv").open() as handle:
        points = list(csv.DictReader(handle))
    assert len(points) == 2 and all(p["held"] == "True" for p in points)
    assert all(abs(float(p["radius_m"]) - 2.0) < 0.02 for p in points)
    assert any("report written" in line for line in lines)


def test_command_line_refuses_an_unknown_surface(capsys):
    assert main(["--surfaces", "mud,dry", "--out", "/nonexistent/never"]) == 2
    assert "unknown surface(s) mud" in capsys.readouterr().err


def test_the_committed_report_of_the_seed_car():
    folder = REPO / "docs" / "compare"
    text = check_report(folder)
    for surface in ("dry", "wet", "snow", "ice"):
        assert f"tracking_{surface}.png" in linked_files(text)
    with (folder / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))

    def value(section, surface, case, plant, metric):
        (row,) = [r for r in rows if (r["section"], r["surface"], r["case"], r["plant"], r["metric"]) ==
                  (section, surface, case, plant, metric)]
        return float(row["value"])

    rms = "rms_error_after_settle"
    assert value("tracking", "dry", "circle", "simulator", rms) < 0.05
    assert value("tracking", "dry", "figure_eight", "simulator", rms) < 0.10
    assert value("tracking", "ice", "circle", "simulator", rms) > value("tracking", "dry", "circle", "simulator", rms)
    understeer = [r for r in rows if r["section"].startswith("understeer") and r["metric"] in (
        "understeer_gradient_fit", "predicted_sign")]
    fits = {(r["section"], r["surface"], r["case"]): float(r["value"]) for r in understeer
            if r["metric"] == "understeer_gradient_fit"}
    signs = {(r["section"], r["surface"], r["case"]): float(r["value"]) for r in understeer
             if r["metric"] == "predicted_sign"}
    assert fits and set(fits) == set(signs)
    for key, k_fit in fits.items():
        assert math.copysign(1.0, k_fit) == signs[key], key
