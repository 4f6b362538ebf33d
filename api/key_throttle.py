"""Wrong API keys, counted per client address: a guesser gets a few tries a minute, not thousands.

Each address may present `FAILED_KEYS_PER_MINUTE` wrong (or missing) keys a minute (a token bucket: that many in a
burst, then one back every 60/limit seconds). An address that has spent them is refused 429
`TOO_MANY_FAILED_KEYS` with `Retry-After` before its key is looked at, a right key included: were a right key let
through, a guesser would still learn from each answer whether its guess was right. The count lives in this gateway
process, like the request rate (`api.admission.RateLimiter`); behind a proxy, `FORWARDED_ALLOW_IPS` (read by
uvicorn) must name it, or every client counts as the proxy.
"""

import time
from collections.abc import Callable

from api.errors import ApiError
from api.token_buckets import TokenBuckets
from models.errors import ErrorCode

MAX_ADDRESSES = 10_000
"""Addresses counted at once; past that, the one whose last wrong key is oldest is forgotten."""


class FailedKeyThrottle:
    """The wrong keys of each client address, as a token bucket of `per_minute` (0: no limit)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._buckets = TokenBuckets(per_minute, MAX_ADDRESSES, clock)

    def check(self, address: str) -> None:
        """429 `TOO_MANY_FAILED_KEYS` when `address` has no wrong key left this minute."""
        wait = self._buckets.wait(address)
        if wait is not None:
            message = f"错误的 API key 太多：每分钟最多 {self.per_minute} 次，请 {wait} 秒后再试"
            raise ApiError(429, ErrorCode.TOO_MANY_FAILED_KEYS, message, {"Retry-After": str(wait)})

    def failed(self, address: str) -> None:
        """Count one wrong key of `address`."""
        self._buckets.spend(address)
