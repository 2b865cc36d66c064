"""The benchmark's worlds drive as commanded (so its figures measure real driving), its ROS measurement times as
many publishing chunks as bare ones and derives its real-time factors from what it timed, and every case of its
command line is reachable."""

import pytest

import dds_probe  # noqa: F401  (a per-run ROS_DOMAIN_ID)
from mvsim_ros.bench.cli import parser
from mvsim_ros.bench.physics import CHUNK_S, measure
from mvsim_ros.bench.vehicles import KINDS, make_simulation


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_benchmark_vehicle_drives_its_circle(kind):
    sim = make_simulation(4, kind=kind)
    sim.run(6.0)
    v, omega = KINDS[kind][1]
    twist = sim.body_twist()
    assert twist[:, 0] == pytest.approx([v] * 4, rel=0.05)
    assert twist[:, 2] == pytest.approx([omega] * 4, rel=0.1)


def test_ros_measurement_times_both_chunks():
    wall_s, dt = 0.3, 0.004
    run = measure(2, wall_s, True, timestep=dt)
    assert run.dt == dt and run.chunk_steps == round(CHUNK_S / dt) == 25
    # Bare and publishing chunks alternate: as many of each, and the simulation stepped exactly that many steps.
    assert run.ros_chunks == run.bare_chunks >= 1
    assert run.steps == (run.bare_chunks + run.ros_chunks) * run.chunk_steps
    assert run.bare_wall_s + run.ros_wall_s >= 2 * wall_s
    # Each real-time factor is its chunks' simulated time over their wall time.
    assert run.bare_rtf == run.bare_chunks * run.chunk_steps * dt / run.bare_wall_s
    assert run.ros_rtf == run.ros_chunks * run.chunk_steps * dt / run.ros_wall_s


def test_bare_measurement_has_no_publishing_figure():
    run = measure(1, 0.1, False)
    assert run.ros_chunks == 0 and run.ros_rtf is None
    assert run.steps == run.bare_chunks * run.chunk_steps >= run.chunk_steps


@pytest.mark.parametrize("argv", [[], ["--kind", "ackermann", "--robots", "1", "5", "--no-ros"], ["--viewer"],
                                  ["--terrain"], ["--sensors"], ["--node", "--world", "w.xml", "--vehicles", "2"],
                                  ["--scan-cost"], ["--edits", "--blocks", "10", "--rounds", "2"],
                                  ["--record", "--compression", "zstd"], ["--record", "--world", "w.xml"],
                                  ["--gym", "--seconds", "1"], ["--sweep", "--repeat", "1"],
                                  ["--browser-nice", "0", "--repeat", "1", "--seconds", "0.5", "--dt", "0.01"],
                                  ["--node", "--mvsim", "mvsim", "--against", "old", "--seconds", "1", "--repeat", "1"],
                                  ["--rendered", "--mvsim", "mvsim"]])
def test_command_line_options_parse(argv):
    args = parser().parse_args(argv)
    assert args.repeat >= 1 and args.seconds > 0
    if "--against" in argv:
        assert args.node and str(args.mvsim) == "mvsim" and str(args.against) == "old"


def test_help_runs(capsys):
    with pytest.raises(SystemExit) as stop:
        parser().parse_args(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    for option in ("--kind", "--robots", "--seconds", "--dt", "--no-ros", "--sensors", "--viewer", "--browser-nice",
                   "--terrain", "--node", "--world", "--vehicles", "--scan-cost", "--edits", "--blocks", "--rounds",
                   "--repeat", "--record", "--compression", "--gym", "--sweep", "--mvsim", "--against", "--rendered"):
        assert option in text
