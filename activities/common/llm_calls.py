"""How activities call the LLM client: Temporal owns retries (ARCHITECTURE rule 2, STYLE "Temporal owns
retries"), so the client runs with its RetryEngine off and its typed errors become Temporal failures here.

A retryable error (429, 5xx, 529, a dropped connection) becomes a retryable `ApplicationError` whose
`next_retry_delay` is the provider's Retry-After (capped), so Temporal waits as long as the provider asked
instead of the node's backoff; anything else (quota spent, bad request, bad key) is non-retryable.
"""

from datetime import timedelta

from temporalio import activity
from temporalio.exceptions import ApplicationError

from llm.errors import LLMError
from llm.retry import RetryConfig

MAX_RETRY_AFTER = RetryConfig().max_delay
"""Seconds; a longer Retry-After is cut to this, as the client's own RetryEngine does."""
TIME_MARGIN = 1.0
"""Seconds an activity keeps back from its start-to-close timeout to report an LLM timeout itself."""


def llm_failure(error: LLMError) -> ApplicationError:
    delay = None
    if error.retryable and error.retry_after is not None:
        delay = timedelta(seconds=min(error.retry_after, MAX_RETRY_AFTER))
    details = {"provider": error.provider, "status": error.status, "retryAfter": error.retry_after}
    return ApplicationError(
        str(error), details, type=type(error).__name__, non_retryable=not error.retryable, next_retry_delay=delay
    )


def llm_timeout(configured: float) -> float:
    """The LLM call's timeout inside the running activity: the configured one, or less if the activity's own
    start-to-close timeout would end it first."""
    limit = activity.info().start_to_close_timeout
    if limit is None:
        return configured
    return max(0.5, min(configured, limit.total_seconds() - TIME_MARGIN))
