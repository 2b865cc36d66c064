"""The topic table: per topic its type, message count, mean rate over simulated time, shortest and longest period
between messages, and bytes; computed from log times alone (nothing decoded)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mvsim_ros.report.reading import topic_kind
from mvsim_ros.report.recording import Recording

#: A topic's rate is flagged irregular when a period exceeds IRREGULAR_RATIO times the median period (messages
#: missing) or falls below the median divided by it (bursts); step-quantized stamps (e.g. 15 Hz on a 10 ms step:
#: 60 and 70 ms) stay well inside.
IRREGULAR_RATIO = 1.5
#: Fewest messages for a rate to be judged regular or not.
MIN_JUDGED = 5
#: Kinds of topics (reading.topic_kind: the last segment, a command's for its second type's `<topic>/<Type>`)
#: published on events, not periodically (commands, collision flags): never flagged.
EVENT_TOPICS = frozenset({"cmd_vel", "ackermann_cmd", "collision"})


@dataclass(frozen=True)
class TopicRate:
    """One row of the topic table.

    rate_hz: (count - 1) / (last - first log time) [Hz of simulated time], None with fewer than two messages or
    all at one time; min_period_s, max_period_s, median_period_s [s]: between consecutive log times (None as
    rate_hz); irregular: the reason a rate looks irregular, '' when it does not.
    """

    topic: str
    type_name: str
    count: int
    total_bytes: int
    rate_hz: float | None
    min_period_s: float | None
    max_period_s: float | None
    median_period_s: float | None
    irregular: str


def topic_rate(topic: str, type_name: str, times_ns: np.ndarray, total_bytes: int,
               periodic: bool = True) -> TopicRate:
    """The table row of one topic from its log times [ns] (any order) and its total size [bytes]; the rate of a
    topic not `periodic` (published on events) is never flagged irregular."""
    times = np.sort(np.asarray(times_ns, dtype=np.int64))
    count = len(times)
    if count < 2 or times[-1] == times[0]:
        return TopicRate(topic, type_name, count, total_bytes, None, None, None, None, "")
    periods = np.diff(times) * 1e-9
    rate = (count - 1) / ((times[-1] - times[0]) * 1e-9)
    median, shortest, longest = float(np.median(periods)), float(periods.min()), float(periods.max())
    judged = periodic and count >= MIN_JUDGED
    return TopicRate(topic, type_name, count, total_bytes, float(rate), shortest, longest, median,
                     _irregularity(periods, median) if judged else "")


def _irregularity(periods: np.ndarray, median: float) -> str:
    """Why periods [s] look irregular around their median [s] (gaps, bursts), '' when they do not."""
    if median <= 0.0:
        return "most messages share their log time with another"
    reasons = []
    gaps = int(np.count_nonzero(periods > IRREGULAR_RATIO * median))
    if gaps:
        reasons.append(f"{gaps} gap{'s' if gaps != 1 else ''} over {IRREGULAR_RATIO:g}x the median period")
    bursts = int(np.count_nonzero(periods < median / IRREGULAR_RATIO))
    if bursts:
        reasons.append(f"{bursts} period{'s' if bursts != 1 else ''} under the median / {IRREGULAR_RATIO:g}")
    return "; ".join(reasons)


def topic_rates(recording: Recording) -> list[TopicRate]:
    """Every topic of the recording, sorted by name."""
    return [topic_rate(topic, log.type_name, log.log_times(), log.total_bytes,
                       periodic=topic_kind(topic.rstrip("/"))[1] not in EVENT_TOPICS)
            for topic, log in sorted(recording.topics.items())]


def format_hz(rate_hz: float | None) -> str:
    """A rate for the table: '50.0', '2.50', '0.333'; '–' when undefined."""
    if rate_hz is None:
        return "–"
    if rate_hz >= 10.0:
        return f"{rate_hz:.1f}"
    if rate_hz >= 1.0:
        return f"{rate_hz:.2f}"
    return f"{rate_hz:.3g}"


def format_period_ms(period_s: float | None) -> str:
    """A period in milliseconds for the table ('20.0'), '–' when undefined."""
    return "–" if period_s is None else f"{period_s * 1e3:.1f}"


def format_bytes(count: int) -> str:
    """A size for people: '812 B', '14.2 KiB', '3.10 MiB'."""
    if count < 1024:
        return f"{count} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        count /= 1024.0
        if count < 1024.0 or unit == "TiB":
            return f"{count:.3g} {unit}" if count < 100 else f"{count:.0f} {unit}"
    return f"{count} B"
