"""Error codes a user or client can see, and the `ErrorInfo` every family's state and `error` events carry."""

from enum import StrEnum

from models.base import CamelModel


class ErrorCode(StrEnum):
    """Stable codes carried by `error` events, API error bodies and a run's `error` field."""

    # input and the image agent's nodes (seed 000 §8, 004 §9)
    INVALID_INPUT_EMPTY = "INVALID_INPUT_EMPTY"
    INPUT_TRUNCATED = "INPUT_TRUNCATED"
    INPUT_TOO_LARGE = "INPUT_TOO_LARGE"
    MASK_TOO_LARGE = "MASK_TOO_LARGE"
    MASK_INVALID_FORMAT = "MASK_INVALID_FORMAT"
    MASK_TOO_MANY_PATHS = "MASK_TOO_MANY_PATHS"
    MASK_PATH_TOO_LONG = "MASK_PATH_TOO_LONG"
    IMAGE_URL_INVALID = "IMAGE_URL_INVALID"
    IMAGE_NOT_FOUND = "IMAGE_NOT_FOUND"
    IMAGE_INVALID_FORMAT = "IMAGE_INVALID_FORMAT"
    MASK_REQUIRED = "MASK_REQUIRED"
    NO_PREVIOUS_IMAGE = "NO_PREVIOUS_IMAGE"
    INTENT_UNKNOWN = "INTENT_UNKNOWN"
    PLANNER_FAILED = "PLANNER_FAILED"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    # every run
    WORKFLOW_TIMEOUT = "WORKFLOW_TIMEOUT"
    CANCELLED = "CANCELLED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    UNDECLARED_TRANSITION = "UNDECLARED_TRANSITION"
    SESSION_BUSY = "SESSION_BUSY"
    # human input (ask-and-wait)
    RUN_NOT_WAITING = "RUN_NOT_WAITING"
    INPUT_NOT_AN_OPTION = "INPUT_NOT_AN_OPTION"
    INPUT_QUESTION_CHANGED = "INPUT_QUESTION_CHANGED"
    INPUT_EXPIRED = "INPUT_EXPIRED"
    # the gateway
    INVALID_REQUEST = "INVALID_REQUEST"
    RUN_NOT_FOUND = "RUN_NOT_FOUND"
    RUN_ALREADY_CLOSED = "RUN_ALREADY_CLOSED"
    WORKFLOW_NOT_FOUND = "WORKFLOW_NOT_FOUND"
    WORKFLOW_NOT_STARTABLE = "WORKFLOW_NOT_STARTABLE"
    NO_EVENT_STREAM = "NO_EVENT_STREAM"
    BLOB_NOT_FOUND = "BLOB_NOT_FOUND"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"


class ErrorInfo(CamelModel):
    """What went wrong in a run: a code from `ErrorCode`, a message for a person, and the node it happened in."""

    code: str
    message: str
    node: str
