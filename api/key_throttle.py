"""Wrong API keys, counted per client address: a guesser gets a few tries a minute, not thousands.

Each address may present `FAILED_KEYS_PER_MINUTE` wrong (or missing) keys a minute (a token bucket: that many in a
burst, then one back every 60/limit seconds). An address that has spent them is refused 429
`TOO_MANY_FAILED_KEYS` with `Retry-After` before its key is looked at, a right key included: were a right key let
through, a guesser would still learn from each answer whether its guess was right. The count lives in this gateway
process, like the request rate (`api.admission.RateLimiter`); behind a proxy, `FORWARDED_ALLOW_IPS` (read by
uvicorn) must name it, or every client counts as the proxy.
"""

import math
import time
from collections.abc import Callable

from api.errors import ApiError
from models.errors import ErrorCode

MAX_ADDRESSES = 10_000
"""Addresses counted at once; past that, the one whose last wrong key is oldest is forgotten."""


class FailedKeyThrottle:
    """The wrong keys of each client address, as a token bucket of `per_minute` (0: no limit)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        """address → (tokens, when last counted)."""

    def check(self, address: str) -> None:
        """429 `TOO_MANY_FAILED_KEYS` when `address` has no wrong key left this minute."""
        if self.per_minute <= 0:
            return
        tokens = self._tokens(address, self._clock())
        if tokens < 1.0:
            wait = math.ceil((1.0 - tokens) * 60.0 / self.per_minute)
            message = f"错误的 API key 太多：每分钟最多 {self.per_minute} 次，请 {wait} 秒后再试"
            raise ApiError(429, ErrorCode.TOO_MANY_FAILED_KEYS, message, {"Retry-After": str(wait)})

    def failed(self, address: str) -> None:
        """Count one wrong key of `address`."""
        if self.per_minute <= 0:
            return
        now = self._clock()
        tokens = self._tokens(address, now)
        self._buckets.pop(address, None)  # re-added last: the buckets stay in the order of their last wrong key
        if len(self._buckets) >= MAX_ADDRESSES:
            del self._buckets[next(iter(self._buckets))]
        self._buckets[address] = (max(0.0, tokens - 1.0), now)

    def _tokens(self, address: str, now: float) -> float:
        tokens, then = self._buckets.get(address, (float(self.per_minute), now))
        return min(float(self.per_minute), tokens + (now - then) * self.per_minute / 60.0)
