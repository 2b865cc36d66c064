"""A recording cut short (the recorder killed with SIGKILL: chunks but no summary nor footer) still gives a report
that says so; a complete one does not."""

from __future__ import annotations

import pytest
from mcap.writer import CompressionType
from report_fixtures import CircleRun, chunk_spans, circle_recording, killed_recording

from mvsim_ros.report import write_report
from mvsim_ros.report.recording import read_recording


def _count_up_to(spec: CircleRun, rate_hz: float, last_s: float) -> int:
    return sum(1 for k in range(round(spec.seconds * rate_hz) + 1) if k / rate_hz <= last_s + 1e-9)


@pytest.mark.parametrize("partial_tail", [False, True], ids=["after-last-chunk", "inside-a-chunk"])
def test_killed_recording_reads_its_complete_chunks_and_says_cut_short(tmp_path, partial_tail):
    path = tmp_path / "killed.mcap"
    spec, last_s = killed_recording(path, CircleRun(seconds=20.0), partial_tail=partial_tail)
    assert last_s < spec.seconds
    report = write_report(path, tmp_path / "out")
    recording = report.run.recording
    assert not recording.complete and not recording.has_summary
    assert (recording.unread_bytes > 0) == partial_tail
    truth = report.run.vehicles["veh1"].truth
    assert truth.t[-1] == pytest.approx(last_s)
    assert len(truth) == _count_up_to(spec, spec.truth_hz, last_s)
    assert report.run.duration_s == pytest.approx(last_s)
    html = report.index.read_text()
    assert "The file was cut short" in html
    assert all(image.stat().st_size > 0 for image in report.images)


@pytest.mark.parametrize("compression", [CompressionType.ZSTD, CompressionType.LZ4, CompressionType.NONE],
                         ids=["zstd", "lz4", "none"])
def test_complete_recording_is_not_called_cut_short(tmp_path, compression):
    path = tmp_path / "whole.mcap"
    spec = circle_recording(path, compression=compression)
    recording = read_recording(path, lambda topic, type_name: None)
    assert recording.complete and recording.has_summary and recording.stop_reason == ""
    assert recording.decoded == {}  # nothing selected, nothing decoded; still counted
    rates = (spec.truth_hz, spec.odom_hz, spec.cmd_hz, spec.scan_hz)
    per_vehicle = sum(_count_up_to(spec, hz, spec.seconds) for hz in rates) + 2  # + collision true, false
    assert recording.message_count == 1 + per_vehicle  # + the map
    assert "cut short" not in write_report(path).index.read_text()


def test_a_damaged_chunk_is_skipped_and_the_rest_read(tmp_path):
    path = tmp_path / "damaged.mcap"
    spec = circle_recording(path, compression=CompressionType.ZSTD)
    data = bytearray(path.read_bytes())
    spans = chunk_spans(bytes(data))
    assert len(spans) >= 3
    start = spans[1][0]
    header = 1 + 8 + 8 + 8 + 8 + 4 + (4 + len("zstd")) + 8  # opcode, length, times, size, crc, compression, length
    data[start + header:start + header + 4] = b"\0\0\0\0"  # the zstd frame's magic number
    path.write_bytes(bytes(data))
    report = write_report(path)
    recording = report.run.recording
    assert recording.damaged_chunks == 1 and recording.complete
    truth = report.run.vehicles["veh1"].truth
    assert 0 < len(truth) < round(spec.seconds * spec.truth_hz) + 1
    assert truth.t[-1] == pytest.approx(spec.seconds)  # the chunks after the damaged one are read
    assert "1 damaged chunk skipped" in report.index.read_text()
