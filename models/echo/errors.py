"""The codes only the echo family's runs carry (the platform's own are `models.errors.ErrorCode`)."""

from enum import StrEnum


class EchoErrorCode(StrEnum):
    """Why an echo run failed."""

    REPLY_FAILED = "REPLY_FAILED"
    """Neither the model nor the offline reply answered."""
    COUNT_FAILED = "COUNT_FAILED"
    """The word-count tool failed for good."""
