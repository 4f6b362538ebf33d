"""How activities report failures to Temporal: deterministic ones are non-retryable and carry an error code.

Temporal owns retries (ARCHITECTURE rule 2): anything raised otherwise is retried with the node's policy.
"""

from enum import StrEnum

from temporalio.exceptions import ApplicationError


def permanent(code: StrEnum, message: str) -> ApplicationError:
    """A failure no retry can fix (bad input, unusable provider output); `type` is the user-visible code."""
    return ApplicationError(message, type=code.value, non_retryable=True)
