"""RetryEngine and retry_after_from_headers (llm/retry.py): exponential backoff with bounded jitter, the provider's
`retry_after` winning over backoff and capped at `max_delay`, non-retryable errors and foreign exceptions raised at
once, the last error raised when retries are spent, abort by cancelling a task asleep in backoff, and reading the
wait from `retry-after-ms` / `Retry-After` (seconds or HTTP date) response headers."""

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from llm.errors import (
    BadRequestError,
    LLMError,
    QuotaExhaustedError,
    RateLimitError,
    ServerError,
)
from llm.retry import RetryConfig, RetryEngine, retry_after_from_headers


class RecordingSleep:
    """Stands in for asyncio.sleep: records each wait and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class Flaky:
    """An attempt that raises the errors `make_error` builds for its first `failures` calls, then returns "ok"."""

    def __init__(self, failures: int, make_error: Callable[[], Exception]) -> None:
        self.failures = failures
        self.make_error = make_error
        self.calls = 0
        self.raised: list[Exception] = []

    async def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            error = self.make_error()
            self.raised.append(error)
            raise error
        return "ok"


def full_jitter(limit: float) -> float:
    return limit


def server_error() -> ServerError:
    return ServerError("x", provider="p")


async def test_backoff_doubles_from_base_delay_plus_jitter() -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(RetryConfig(base_delay=2, max_jitter=0.5), sleep=sleep, jitter=full_jitter)
    attempt = Flaky(3, server_error)

    assert await engine.execute(attempt) == "ok"

    assert attempt.calls == 4
    assert sleep.waits == [2.5, 4.5, 8.5]


async def test_jitter_limit_is_max_jitter() -> None:
    seen: list[float] = []

    def jitter(limit: float) -> float:
        seen.append(limit)
        return 0.0

    sleep = RecordingSleep()
    engine = RetryEngine(RetryConfig(base_delay=1, max_jitter=0.25), sleep=sleep, jitter=jitter)
    await engine.execute(Flaky(2, server_error))

    assert seen == [0.25, 0.25]
    assert sleep.waits == [1.0, 2.0]


def test_default_jitter_stays_within_max_jitter() -> None:
    engine = RetryEngine()
    error = server_error()

    delays = [engine.delay(0, error) for _ in range(500)]

    assert all(2.0 <= d <= 2.5 for d in delays)
    assert len(set(delays)) > 1


def test_backoff_is_capped_at_max_delay() -> None:
    engine = RetryEngine(RetryConfig(base_delay=2, max_jitter=0.5, max_delay=60), jitter=full_jitter)

    assert engine.delay(4, server_error()) == 32.5
    assert engine.delay(10, server_error()) == 60.0


async def test_retry_after_wins_over_backoff() -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(RetryConfig(base_delay=2, max_jitter=0.5), sleep=sleep, jitter=full_jitter)
    attempt = Flaky(1, lambda: RateLimitError("slow down", provider="p", status=429, retry_after=7))

    assert await engine.execute(attempt) == "ok"

    assert attempt.calls == 2
    assert sleep.waits == [7]


async def test_retry_after_is_capped_at_max_delay() -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(RetryConfig(max_delay=60), sleep=sleep, jitter=full_jitter)
    attempt = Flaky(1, lambda: RateLimitError("slow down", provider="p", status=429, retry_after=3600))

    await engine.execute(attempt)

    assert sleep.waits == [60.0]


def test_negative_retry_after_waits_zero() -> None:
    engine = RetryEngine()

    assert engine.delay(0, RateLimitError("x", provider="p", retry_after=-5)) == 0.0


@pytest.mark.parametrize(
    "make_error",
    [
        lambda: QuotaExhaustedError("spent", provider="p", status=429),
        lambda: BadRequestError("bad", provider="p", status=400),
        lambda: ValueError("not an LLM error"),
    ],
    ids=["quota", "bad-request", "value-error"],
)
async def test_non_retryable_failure_is_raised_at_once(make_error: Callable[[], Exception]) -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(sleep=sleep)
    attempt = Flaky(1, make_error)

    with pytest.raises(Exception) as caught:
        await engine.execute(attempt)

    assert caught.value is attempt.raised[0]
    assert attempt.calls == 1
    assert sleep.waits == []


async def test_explicit_retryable_false_is_respected() -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(sleep=sleep)
    attempt = Flaky(1, lambda: ServerError("x", provider="p", retryable=False))

    with pytest.raises(ServerError):
        await engine.execute(attempt)

    assert attempt.calls == 1
    assert sleep.waits == []


async def test_explicit_retryable_true_is_respected() -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(sleep=sleep)
    attempt = Flaky(1, lambda: BadRequestError("x", provider="p", retryable=True))

    assert await engine.execute(attempt) == "ok"
    assert attempt.calls == 2


async def test_last_error_is_raised_when_retries_are_spent() -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(RetryConfig(max_retries=2), sleep=sleep, jitter=full_jitter)
    attempt = Flaky(100, server_error)

    with pytest.raises(ServerError) as caught:
        await engine.execute(attempt)

    assert attempt.calls == 3
    assert len(sleep.waits) == 2
    assert caught.value is attempt.raised[-1]
    assert caught.value is not attempt.raised[0]


async def test_zero_max_retries_makes_one_attempt() -> None:
    sleep = RecordingSleep()
    engine = RetryEngine(RetryConfig(max_retries=0), sleep=sleep)
    attempt = Flaky(1, server_error)

    with pytest.raises(ServerError):
        await engine.execute(attempt)

    assert attempt.calls == 1
    assert sleep.waits == []


async def test_cancelling_during_backoff_aborts_promptly() -> None:
    engine = RetryEngine()  # the real asyncio.sleep
    first_attempt = asyncio.Event()
    calls = 0

    async def attempt() -> str:
        nonlocal calls
        calls += 1
        first_attempt.set()
        raise RateLimitError("slow down", provider="p", status=429, retry_after=30)

    loop = asyncio.get_running_loop()
    task = asyncio.create_task(engine.execute(attempt))
    await asyncio.wait_for(first_attempt.wait(), timeout=1)
    await asyncio.sleep(0)  # let the task reach its 30 s backoff sleep
    started = loop.time()
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=1)

    assert task.cancelled()
    assert loop.time() - started < 1
    await asyncio.sleep(0.05)
    assert calls == 1


class TestRetryAfterFromHeaders:
    """The provider's wait hint read from `retry-after-ms`, or `retry-after` in seconds or as an HTTP date."""

    NOW = datetime(2025, 3, 14, 12, 0, 0, tzinfo=UTC)

    def test_retry_after_ms(self) -> None:
        assert retry_after_from_headers({"retry-after-ms": "7000"}) == 7.0

    def test_retry_after_ms_wins_over_retry_after(self) -> None:
        assert retry_after_from_headers({"retry-after": "30", "retry-after-ms": "7000"}) == 7.0
        assert retry_after_from_headers({"Retry-After-Ms": "1500", "Retry-After": "30"}) == 1.5

    def test_unparsable_retry_after_ms_falls_back_to_retry_after(self) -> None:
        assert retry_after_from_headers({"retry-after-ms": "soon", "retry-after": "30"}) == 30.0

    @pytest.mark.parametrize("name", ["Retry-After", "retry-after", "RETRY-AFTER"])
    def test_retry_after_seconds_any_case(self, name: str) -> None:
        assert retry_after_from_headers({name: "7"}) == 7.0

    def test_fractional_seconds(self) -> None:
        assert retry_after_from_headers({"Retry-After": "2.5"}) == 2.5

    def test_http_date(self) -> None:
        header = format_datetime(self.NOW + timedelta(seconds=120), usegmt=True)

        wait = retry_after_from_headers({"Retry-After": header}, now=self.NOW)

        assert wait == pytest.approx(120.0, abs=1)

    def test_http_date_without_now_uses_the_clock(self) -> None:
        header = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)

        wait = retry_after_from_headers({"Retry-After": header})

        assert wait == pytest.approx(120.0, abs=2)

    def test_http_date_in_the_past_is_zero(self) -> None:
        header = format_datetime(self.NOW - timedelta(seconds=300), usegmt=True)

        assert retry_after_from_headers({"Retry-After": header}, now=self.NOW) == 0.0

    def test_negative_seconds_are_zero(self) -> None:
        assert retry_after_from_headers({"Retry-After": "-5"}) == 0.0
        assert retry_after_from_headers({"retry-after-ms": "-5000"}) == 0.0

    @pytest.mark.parametrize("value", ["soon", "", "Wed, 99 Foo 2025 99:99:99 GMT"])
    def test_garbage_is_none(self, value: str) -> None:
        assert retry_after_from_headers({"Retry-After": value}, now=self.NOW) is None

    def test_absent_is_none(self) -> None:
        assert retry_after_from_headers({}) is None
        assert retry_after_from_headers({"content-type": "application/json"}) is None


def test_llm_error_is_the_base_of_the_errors_used() -> None:
    """Guards the premise of these tests: the errors above are LLMErrors with the expected default retryability."""
    assert issubclass(ServerError, LLMError)
    assert ServerError("x", provider="p").retryable
    assert RateLimitError("x", provider="p").retryable
    assert not QuotaExhaustedError("x", provider="p").retryable
    assert not BadRequestError("x", provider="p").retryable
