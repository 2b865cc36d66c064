"""Several outlet taps (ros/publishing/outlet.PublisherTap) as one: the run's recording and the Foxglove server hear
the same bytes of each publisher, each only while it wants them and takes the message (Foxglove's rate limit)."""

from __future__ import annotations

from typing import Any, Callable

from mvsim_ros.ros.publishing.outlet import RecordBytes, TopicTap, topic_tap

#: An outlet tap (ros/publishing/outlet.PublisherTap).
Tap = Callable[[Any, type], "RecordBytes | TopicTap | None"]


def combine_topic_taps(taps: list[TopicTap]) -> TopicTap:
    """One TopicTap for several: wanted while any of them is, due while any that wants the bytes takes this message,
    sending to those that take it (wanted and due)."""
    def send(data: bytes) -> None:
        for each in [t for t in taps if t.wanted() and t.due()]:  # decided before any send moves a rate gate on
            each.send(data)

    return TopicTap(send, lambda: any(each.wanted() for each in taps),
                    lambda: any(each.wanted() and each.due() for each in taps))


def combine_taps(*taps: Tap | None) -> Tap | None:
    """One outlet tap calling every given tap (None ones skipped); None when none is given."""
    present = [tap for tap in taps if tap is not None]
    if len(present) <= 1:
        return present[0] if present else None

    def tap(publisher: Any, msg_type: type) -> RecordBytes | TopicTap | None:
        held = [t for t in (topic_tap(t(publisher, msg_type)) for t in present) if t is not None]
        if len(held) <= 1:
            return held[0] if held else None
        return combine_topic_taps(held)

    return tap


__all__ = ["Tap", "combine_taps", "combine_topic_taps"]
