"""The codes only the image family's runs and routes carry (the platform's own are `models.errors.ErrorCode`)."""

from models.errors import FamilyErrorCode


class ImageErrorCode(FamilyErrorCode):
    """Why a image run or request failed."""

    INPUT_TRUNCATED = "INPUT_TRUNCATED"
    MASK_REQUIRED = "MASK_REQUIRED"
    NO_PREVIOUS_IMAGE = "NO_PREVIOUS_IMAGE"
    INTENT_UNKNOWN = "INTENT_UNKNOWN"
    CRITIC_FAILED = "CRITIC_FAILED"
    SESSION_BUSY = "SESSION_BUSY"
    SESSION_UNAVAILABLE = "SESSION_UNAVAILABLE"
    """The session id names a session of another principal's (one started before session ids were unambiguous)."""
    SESSION_ENDED = "SESSION_ENDED"
