"""The critical path of a run's model time, from the simulator's request log.

A model call is the interval from the moment the simulator admitted its request to the moment it wrote the
answer's last byte (first-token latency and generation both count). Call B *waited for* call A when A had ended
when B started (`A.end <= B.start`); calls whose intervals overlap did not wait for each other, since they ran
side by side. A *chain* is a sequence of calls each of which waited for the one before it; its model time is the
sum of its calls' durations. The **critical path** is the largest model time over all chains of a run: the
time the run could not have taken less than with its model at this latency, had everything else (workflow,
activities, signals, the gateway, the person) taken no time and the calls that overlapped overlapped as they did.

Serial calls that did not need each other's answer still form a chain here: the critical path is what the run's
calls as they were issued cost, and `wall / critical path` measures the time spent between and around them. Calls
that could have run side by side are found by reading the run's calls (`calls_by_start`), not by this number.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tests.simulator.server import LoggedCall


@dataclass(frozen=True)
class Span:
    """One model call's interval, in `time.monotonic()` seconds."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start


def spans(calls: Iterable[LoggedCall], since: float, until: float) -> list[Span]:
    """The calls admitted in [since, until] that sent an answer to its end, as spans."""
    return [
        Span(call.started, call.ended) for call in calls if call.ended is not None and since <= call.started <= until
    ]


def critical_path(intervals: Sequence[Span]) -> float:
    """The largest sum of durations over chains of spans, each starting no earlier than the previous one ended
    (0 for none). O(n²), over the few dozen calls of a run."""
    ordered = sorted(intervals, key=lambda s: (s.end, s.start))
    best: list[float] = []
    for i, span in enumerate(ordered):
        before = [best[j] for j in range(i) if ordered[j].end <= span.start]
        best.append(span.seconds + max(before, default=0.0))
    return max(best, default=0.0)
