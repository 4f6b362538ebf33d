"""A token bucket per key, the gateway's one way of counting a rate: `per_minute` tokens in a burst, one back every
60/`per_minute` seconds. The request rate of each principal (`api.admission.RateLimiter`) and the wrong keys of
each client address (`api.key_throttle`) count with it."""

import math
import time
from collections.abc import Callable


class TokenBuckets:
    """A bucket of `per_minute` tokens per key (0: no limit); at most `max_keys` kept, the key whose last token was
    spent longest ago forgotten first."""

    def __init__(
        self, per_minute: int, max_keys: int | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_minute = per_minute
        self._max_keys = max_keys
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        """key → (tokens, when last counted), in the order of their last spent token."""

    def wait(self, key: str) -> int | None:
        """Whole seconds until `key` has a token again; None when it has one now."""
        if self.per_minute <= 0:
            return None
        tokens = self._tokens(key, self._clock())
        return None if tokens >= 1.0 else math.ceil((1.0 - tokens) * 60.0 / self.per_minute)

    def spend(self, key: str) -> None:
        """Take one of `key`'s tokens (none left: it owes, and waits longer)."""
        if self.per_minute <= 0:
            return
        now = self._clock()
        tokens = self._tokens(key, now)
        self._buckets.pop(key, None)
        if self._max_keys is not None and len(self._buckets) >= self._max_keys:
            del self._buckets[next(iter(self._buckets))]
        self._buckets[key] = (max(0.0, tokens - 1.0), now)

    def _tokens(self, key: str, now: float) -> float:
        tokens, then = self._buckets.get(key, (float(self.per_minute), now))
        return min(float(self.per_minute), tokens + (now - then) * self.per_minute / 60.0)
