"""Quirk modes: the ways a real model's answer goes wrong, and the schedule that says which request gets which.

A schedule is a list of `QuirkRule`s; request number n (from 1, counted by the simulator) gets the quirk of the
first rule that matches it: `every=3` (requests 3, 6, 9, ...), `first=2` (requests 1 and 2), `probability=0.3`
(drawn from the simulator's seed and n, so the same seed picks the same requests). A quirk a request cannot
show (a fence on a tool call, a missing field when nothing is required) is logged as not applied.
"""

import random
from dataclasses import dataclass
from enum import StrEnum


class Quirk(StrEnum):
    """One way an answer goes wrong."""

    FENCE = "fence"
    """The JSON inside a ```json fence."""
    PROSE = "prose"
    """A sentence before the JSON and one after it."""
    PROSE_BRACES = "prose_braces"
    """Prose, the JSON in a fence, then a note that has braces in it."""
    THINK = "think"
    """`<think>…</think>` with braces inside it before the answer, in the content (Qwen3, DeepSeek-R1 on vLLM)."""
    REASONING = "reasoning"
    """Reasoning sent apart from the content: `reasoning_content` (OpenAI-compatible), a `thinking` block
    (Anthropic)."""
    TRAILING_COMMA = "trailing_comma"
    MISSING_FIELD = "missing_field"
    """A required field of the top-level object left out."""
    WRONG_SCALE = "wrong_scale"
    """A 0–1 score written as 0–100 (or another bounded number out of its range)."""
    TRUNCATE = "truncate"
    """Cut at max_tokens (half the answer without one): finish_reason length / stop_reason max_tokens."""
    RATE_LIMIT = "rate_limit"
    """429 with Retry-After."""
    SERVER_ERROR = "server_error"
    """500."""
    HANG = "hang"
    """No answer until the client gives up (or the simulator is reset)."""
    CUT_STREAM = "cut_stream"
    """The connection closed halfway through the body (mid-SSE when streaming)."""


JSON_QUIRKS = frozenset(
    {Quirk.FENCE, Quirk.PROSE, Quirk.PROSE_BRACES, Quirk.TRAILING_COMMA, Quirk.MISSING_FIELD, Quirk.WRONG_SCALE}
)
"""Quirks only an answer in JSON can show."""
TEXT_QUIRKS = frozenset({Quirk.THINK, Quirk.REASONING})
"""Quirks of an answer in text (JSON or prose), not of a tool call."""
TRANSPORT_QUIRKS = frozenset({Quirk.RATE_LIMIT, Quirk.SERVER_ERROR, Quirk.HANG, Quirk.CUT_STREAM})
"""Quirks of the HTTP exchange rather than of the answer."""


@dataclass(frozen=True)
class QuirkRule:
    """One line of a schedule; exactly one of `every`, `first`, `probability`, or none for every request."""

    quirk: Quirk
    every: int | None = None
    first: int | None = None
    probability: float | None = None

    def matches(self, number: int, seed: int) -> bool:
        if self.every is not None:
            return number % self.every == 0
        if self.first is not None:
            return number <= self.first
        if self.probability is not None:
            return random.Random(f"{seed}:quirk:{number}").random() < self.probability
        return True


def scheduled(rules: list[QuirkRule], number: int, seed: int) -> Quirk | None:
    return next((rule.quirk for rule in rules if rule.matches(number, seed)), None)
