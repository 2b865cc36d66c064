"""The sweep's plots name every metric with its unit on the y axis, and their groups on the x axis."""

from __future__ import annotations

import re

from mvsim_ros.sweep.results import METRIC_LABELS, plot_metrics
from mvsim_ros.sweep.run import METRICS


def test_every_metric_has_a_label_with_its_unit():
    assert set(METRIC_LABELS) == set(METRICS)
    assert all(re.search(r"\[[^\]]+\]$", label) for label in METRIC_LABELS.values()), METRIC_LABELS


def test_each_plot_has_its_axis_labels(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.figure

    labels: list[tuple[str, str]] = []
    real_savefig = matplotlib.figure.Figure.savefig

    def savefig(figure, *args, **kwargs):
        axes = figure.axes[0]
        labels.append((axes.get_ylabel(), axes.get_xlabel()))
        return real_savefig(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    rows = [{"run_id": f"r{k}", "world": "worlds/a.world.xml", "seed": k, "param:speed": 0.5 * (k % 2),
             "status": "ok", "reason": "", **{m: float(k) for m in METRICS}} for k in range(4)]
    written = plot_metrics(rows, tmp_path / "plots")
    assert sorted(p.stem for p in written) == sorted(METRICS)
    assert sorted(y for y, _ in labels) == sorted(METRIC_LABELS.values())
    assert all(x == "world and parameters (one box per group of runs)" for _, x in labels)
