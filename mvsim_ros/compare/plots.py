"""The comparison's figures (matplotlib, Agg backend: no display needed), one PNG each, kept small (~80 dpi)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

#: Resolution [dots per inch] of the PNG files, and the most colours they keep.
DPI = 96
PALETTE_COLOURS = 64
#: Tracking errors are drawn on a log scale, floored at this [m].
ERROR_FLOOR_M = 1e-4
#: Line style per plant.
STYLE = {
    "simulator": {"color": "#1f5fbf", "lw": 1.6, "label": "simulated car"},
    "kinematic": {"color": "#2a9d2a", "lw": 1.2, "ls": "--", "label": "kinematic bicycle"},
    "dynamic": {"color": "#e07b00", "lw": 1.2, "ls": "-.", "label": "linear-tyre bicycle"},
}
REFERENCE = {"color": "black", "lw": 0.8, "ls": ":", "label": "reference"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    """Write the figure as a palette PNG (at most PALETTE_COLOURS colours: a third of the size of a full-colour
    one, the same look for line plots)."""
    import io

    from PIL import Image

    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=DPI, format="png")
    _pyplot().close(fig)
    buffer.seek(0)
    with Image.open(buffer) as image:
        image.convert("RGB").quantize(colors=PALETTE_COLOURS).save(path, format="PNG", optimize=True)
    return path


def tracking_figure(path: Path, surface: str, runs: dict[str, dict]) -> Path:
    """Top row: the paths (reference and each plant) per shape; bottom row: the tracking error over time.
    runs[shape][plant] = Run."""
    plt = _pyplot()
    shapes = list(runs)
    fig, axes = plt.subplots(2, len(shapes), figsize=(3.0 * len(shapes), 5.6), squeeze=False)
    for k, shape in enumerate(shapes):
        top, bottom = axes[0, k], axes[1, k]
        first = next(iter(runs[shape].values()))
        top.plot(first["ref_x"], first["ref_y"], **REFERENCE)
        for plant, run in runs[shape].items():
            style = STYLE[plant]
            top.plot(run["point_x"], run["point_y"], **style)
            bottom.plot(run["t"], np.maximum(run["error"], ERROR_FLOOR_M), **{**style, "label": None})
        top.set_title(shape.replace("_", " "), fontsize=10)
        top.set_aspect("equal", adjustable="datalim")
        top.set_xlabel("x [m]", fontsize=8)
        bottom.set_xlabel("t [s]", fontsize=8)
        bottom.set_yscale("log")
        top.tick_params(labelsize=7)
        bottom.tick_params(labelsize=7)
    axes[0, 0].set_ylabel("y [m]", fontsize=8)
    axes[1, 0].set_ylabel(f"tracking error [m] (from {ERROR_FLOOR_M:g})", fontsize=8)
    axes[0, 0].legend(fontsize=7, loc="best")
    fig.suptitle(f"Tracking the five shapes on {surface} (Kp = 5, feed-forward, kinematic controller)",
                 fontsize=10)
    return _save(fig, path)


def step_figure(path: Path, runs: dict[str, dict], t_step: float, delta: float, wheelbase: float) -> Path:
    """Yaw rate and side slip after a steering step, per surface (rows); runs[surface][plant] = Run."""
    plt = _pyplot()
    surfaces = list(runs)
    fig, axes = plt.subplots(len(surfaces), 2, figsize=(8.0, 2.2 * len(surfaces)), squeeze=False, sharex=True)
    for row, surface in enumerate(surfaces):
        for plant, run in runs[surface].items():
            keep = run["t"] >= t_step - 0.5
            style = STYLE[plant]
            axes[row, 0].plot(run["t"][keep], run["r"][keep], **style)
            axes[row, 1].plot(run["t"][keep], np.degrees(run["beta"][keep]), **{**style, "label": None})
        speed = next(iter(runs[surface].values()))["speed_cmd"][-1]
        axes[row, 0].axhline(speed * math.tan(delta) / wheelbase, color="grey", lw=0.6)
        axes[row, 0].set_ylabel(f"{surface}\nyaw rate [rad/s]", fontsize=8)
        axes[row, 1].set_ylabel("side slip [deg]", fontsize=8)
        for ax in axes[row]:
            ax.tick_params(labelsize=7)
    axes[0, 0].legend(fontsize=7)
    axes[-1, 0].set_xlabel("t [s]", fontsize=8)
    axes[-1, 1].set_xlabel("t [s]", fontsize=8)
    fig.suptitle(f"Steering step of {delta:g} rad at {speed:g} m/s (grey: v tan(delta) / L)", fontsize=10)
    return _save(fig, path)


def ramp_figure(path: Path, runs: dict[str, dict], delta: float, wheelbase: float) -> Path:
    """Yaw rate and side slip against speed under a speed ramp at fixed steering, per surface (columns)."""
    plt = _pyplot()
    surfaces = list(runs)
    fig, axes = plt.subplots(2, len(surfaces), figsize=(2.8 * len(surfaces), 5.0), squeeze=False)
    for col, surface in enumerate(surfaces):
        for plant, run in runs[surface].items():
            style = STYLE[plant]
            axes[0, col].plot(run["vx"], run["r"], **style)
            axes[1, col].plot(run["vx"], np.degrees(run["beta"]), **{**style, "label": None})
        axes[0, col].set_title(surface, fontsize=10)
        axes[1, col].set_xlabel("speed [m/s]", fontsize=8)
        for ax in axes[:, col]:
            ax.tick_params(labelsize=7)
    axes[0, 0].set_ylabel("yaw rate [rad/s]", fontsize=8)
    axes[1, 0].set_ylabel("side slip [deg]", fontsize=8)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"Speed ramp at a steering angle of {delta:g} rad", fontsize=10)
    return _save(fig, path)


def understeer_figure(path: Path, cases: list[dict], radius: float, title: str) -> Path:
    """Steering angle against lateral acceleration at constant radius, one panel per case: the simulated points
    (open marks: the car left the circle), the fitted line, the kinematic L/R and the linear-tyre predictions.
    case = {title, points, wheelbase, K_fit, intercept, K_model, K_effective}."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(cases), figsize=(3.0 * len(cases), 3.4), squeeze=False)
    for ax, case in zip(axes[0], cases):
        points = case["points"]
        a_y = np.array([p.lateral_acceleration for p in points])
        delta = np.degrees([p.steering for p in points])
        held = np.array([p.held for p in points], dtype=bool)
        ax.plot(a_y[held], delta[held], "o", color=STYLE["simulator"]["color"], ms=4, label="simulated car")
        if (~held).any():
            ax.plot(a_y[~held], delta[~held], "o", mfc="none", color=STYLE["simulator"]["color"], ms=4,
                    label="left the circle")
        span = np.linspace(0.0, max(float(a_y.max(initial=0.0)), 0.1), 20)
        kinematic = math.atan(case["wheelbase"] / radius)
        ax.plot(span, np.degrees(np.full_like(span, kinematic)), color=STYLE["kinematic"]["color"], ls="--",
                lw=1, label="kinematic L/R")
        ax.plot(span, np.degrees(kinematic + case["K_model"] * span), color=STYLE["dynamic"]["color"], ls="-.",
                lw=1, label="linear tyres (nominal C)")
        if math.isfinite(case.get("K_effective", math.nan)):
            ax.plot(span, np.degrees(kinematic + case["K_effective"] * span), color=STYLE["dynamic"]["color"],
                    ls=":", lw=1, label="linear tyres (simulator's C)")
        if math.isfinite(case["K_fit"]):
            ax.plot(span, np.degrees(case["intercept"] + case["K_fit"] * span), color=STYLE["simulator"]["color"],
                    lw=0.8, label="fit")
        ax.set_title(case["title"], fontsize=9)
        ax.set_xlabel("lateral acceleration [m/s^2]", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0, 0].set_ylabel("steering angle [deg]", fontsize=8)
    axes[0, 0].legend(fontsize=6)
    fig.suptitle(title, fontsize=10)
    return _save(fig, path)


__all__ = ["ramp_figure", "step_figure", "tracking_figure", "understeer_figure"]
