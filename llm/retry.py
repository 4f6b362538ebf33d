"""RetryEngine (seed 003 §7): exponential backoff with jitter, honouring the provider's own retry hint.

Usable on its own around any coroutine that raises `LLMError`s. The client uses it outside Temporal; inside an
activity the client is built with `retry=None` and Temporal owns retries (see `activities/common/llm_calls.py`).
Abort by cancelling the task: a cancelled backoff sleep stops at once and no further attempt is made.
"""

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from llm.errors import LLMError

T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryConfig:
    """How often and how long to retry: exponential backoff plus jitter, or the provider's own hint, capped."""

    max_retries: int = 3
    base_delay: float = 2.0
    """Seconds before the first retry; doubled for each further one."""
    max_jitter: float = 0.5
    """Up to this many random seconds are added to every computed delay."""
    max_delay: float = 60.0
    """No wait is longer than this, whatever the provider asks for."""


class RetryEngine:
    """Runs a call and retries the errors that say `retryable`, waiting as `RetryConfig` and `retry_after` say."""

    def __init__(
        self,
        config: RetryConfig | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        jitter: Callable[[float], float] = lambda limit: random.uniform(0.0, limit),
    ) -> None:
        self.config = config or RetryConfig()
        self._sleep = sleep
        self._jitter = jitter

    def delay(self, attempt: int, error: LLMError) -> float:
        """Seconds to wait before retry number `attempt` (0-based): the provider's hint, else backoff + jitter."""
        if error.retry_after is not None:
            wanted = error.retry_after
        else:
            wanted = self.config.base_delay * 2**attempt + self._jitter(self.config.max_jitter)
        return max(0.0, min(wanted, self.config.max_delay))

    async def execute(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Runs `attempt` until it succeeds, raises a non-retryable error, or the retries are spent."""
        for retry in range(self.config.max_retries + 1):
            try:
                return await attempt()
            except LLMError as error:
                if not error.retryable or retry == self.config.max_retries:
                    raise
                wait = self.delay(retry, error)
                log.warning(
                    "retrying in %.1f s after %s (retry %d of %d)", wait, error, retry + 1, self.config.max_retries
                )
                await self._sleep(wait)
        raise AssertionError("unreachable: the last attempt either returned or raised")


def retry_after_from_headers(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds to wait as the response says: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date."""
    lowered = {k.lower(): v for k, v in headers.items()}
    if (millis := lowered.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
