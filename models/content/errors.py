"""The codes only the content family's runs and routes carry (the platform's own are `models.errors.ErrorCode`)."""

from models.errors import FamilyErrorCode


class ContentErrorCode(FamilyErrorCode):
    """Why a content run or request failed."""

    AGENT_FIELD_NOT_OWNED = "AGENT_FIELD_NOT_OWNED"
    REFERENCE_IMAGE_INVALID = "REFERENCE_IMAGE_INVALID"
    POST_NOT_READY = "POST_NOT_READY"
    POST_EMPTY = "POST_EMPTY"
    POST_INCOMPLETE = "POST_INCOMPLETE"
    LAYOUT_PREFERENCE_UNKNOWN = "LAYOUT_PREFERENCE_UNKNOWN"
    LENGTH_UNKNOWN = "LENGTH_UNKNOWN"
    EXPORT_TOO_LARGE = "EXPORT_TOO_LARGE"
    EDIT_INVALID = "EDIT_INVALID"
    SECTION_NOT_FOUND = "SECTION_NOT_FOUND"
    VERSION_LIMIT_REACHED = "VERSION_LIMIT_REACHED"
