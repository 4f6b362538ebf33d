"""Latency profiles: how long the simulated model takes to its first token and how fast it writes after that,
and how long its image model takes to draw an image.

A streamed answer sends its first token after `first_token` seconds and the rest at `tokens_per_second`; a whole
answer arrives after the full generation time; an image after `image_seconds`. `time_scale` multiplies every delay
(0.05 runs a profile 20× faster with the same shape).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """Time to the first token and writing speed; `time_scale` stretches or shrinks both."""

    name: str
    first_token: float
    """Seconds before the first token."""
    tokens_per_second: float
    image_seconds: float = 0.0
    """Seconds the image API takes to answer one image (`tests/simulator/images.py`)."""

    def token_time(self, index: int, time_scale: float) -> float:
        """Seconds from the start of the answer to when its token number `index` (from 0) is written."""
        if self.tokens_per_second == float("inf"):
            return self.first_token * time_scale
        return (self.first_token + index / self.tokens_per_second) * time_scale

    def generation_time(self, tokens: int, time_scale: float) -> float:
        """Seconds to write a whole answer of `tokens` tokens."""
        return self.token_time(tokens, time_scale)


INSTANT = Profile("instant", 0.0, float("inf"))
FAST = Profile("fast", 0.3, 200.0, image_seconds=1.0)
REALISTIC = Profile("realistic", 1.5, 40.0, image_seconds=20.0)
"""A hosted model under load: a 2 000-token document takes about 50 s, an image 20 s."""
BENCH = Profile("bench", 0.6, 40.0, image_seconds=6.0)
"""`make bench-llm`'s clock: a hosted model at ordinary load, 600 ms to the first token, then 40 tokens/s, and an
image API that draws an image in 6 s (a fast one: gpt-image-1 and qwen-image take 10-40 s)."""
PROFILES = {p.name: p for p in (INSTANT, FAST, REALISTIC, BENCH)}
