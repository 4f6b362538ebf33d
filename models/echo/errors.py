"""The codes only the echo family's runs carry (the platform's own are `models.errors.ErrorCode`)."""

from models.errors import FamilyErrorCode


class EchoErrorCode(FamilyErrorCode):
    """Why an echo run failed."""

    REPLY_FAILED = "REPLY_FAILED"
    """Neither the model nor the offline reply answered."""
    COUNT_FAILED = "COUNT_FAILED"
    """The word-count tool failed for good."""
