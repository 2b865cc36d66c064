"""Several outlet taps (ros/publishing/outlet.PublisherTap) as one: the run's recording and the Foxglove server hear
the same bytes of each publisher."""

from __future__ import annotations

from typing import Any, Callable

from mvsim_ros.ros.publishing.outlet import RecordBytes

#: An outlet tap (ros/publishing/outlet.PublisherTap).
Tap = Callable[[Any, type], "RecordBytes | None"]


def combine_taps(*taps: Tap | None) -> Tap | None:
    """One outlet tap calling every given tap (None ones skipped); None when none is given."""
    present = [tap for tap in taps if tap is not None]
    if len(present) <= 1:
        return present[0] if present else None

    def tap(publisher: Any, msg_type: type) -> RecordBytes | None:
        functions = [f for f in (t(publisher, msg_type) for t in present) if f is not None]
        if len(functions) <= 1:
            return functions[0] if functions else None

        def each(data: bytes) -> None:
            for function in functions:
                function(data)

        return each

    return tap


__all__ = ["Tap", "combine_taps"]
