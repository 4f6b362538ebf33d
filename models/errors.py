"""Error codes a user or client can see, and the `ErrorInfo` every family's state and `error` events carry.

`ErrorCode` holds the platform's codes and those several families share; a code only one family uses lives in
that family's own enum (`models/<family>/errors.py`, a `FamilyErrorCode`), named by its `Family`.
`is_error_code` knows them all.
"""

from enum import StrEnum

from models.base import CamelModel


class ErrorCode(StrEnum):
    """Stable codes carried by `error` events, API error bodies and a run's `error` field."""

    # input and the image agent's nodes (seed 000 §8, 004 §9)
    INVALID_INPUT_EMPTY = "INVALID_INPUT_EMPTY"
    INPUT_TOO_LARGE = "INPUT_TOO_LARGE"
    MASK_TOO_LARGE = "MASK_TOO_LARGE"
    MASK_INVALID_FORMAT = "MASK_INVALID_FORMAT"
    MASK_TOO_MANY_PATHS = "MASK_TOO_MANY_PATHS"
    MASK_PATH_TOO_LONG = "MASK_PATH_TOO_LONG"
    IMAGE_URL_INVALID = "IMAGE_URL_INVALID"
    IMAGE_URL_FORBIDDEN = "IMAGE_URL_FORBIDDEN"
    IMAGE_FETCH_FAILED = "IMAGE_FETCH_FAILED"
    IMAGE_NOT_FOUND = "IMAGE_NOT_FOUND"
    IMAGE_INVALID_FORMAT = "IMAGE_INVALID_FORMAT"
    PLANNER_FAILED = "PLANNER_FAILED"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    # hosted image APIs behind preferredModel (issue 13)
    IMAGE_CONTENT_REFUSED = "IMAGE_CONTENT_REFUSED"
    IMAGE_QUOTA_EXHAUSTED = "IMAGE_QUOTA_EXHAUSTED"
    IMAGE_REQUEST_REFUSED = "IMAGE_REQUEST_REFUSED"
    IMAGE_PROVIDER_AUTH = "IMAGE_PROVIDER_AUTH"
    IMAGE_PROVIDER_UNAVAILABLE = "IMAGE_PROVIDER_UNAVAILABLE"
    IMAGE_TASK_FAILED = "IMAGE_TASK_FAILED"
    IMAGE_TASK_TIMEOUT = "IMAGE_TASK_TIMEOUT"
    # every run
    WORKFLOW_TIMEOUT = "WORKFLOW_TIMEOUT"
    CANCELLED = "CANCELLED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    UNDECLARED_TRANSITION = "UNDECLARED_TRANSITION"
    # human input (ask-and-wait)
    RUN_NOT_WAITING = "RUN_NOT_WAITING"
    INPUT_NOT_AN_OPTION = "INPUT_NOT_AN_OPTION"
    INPUT_QUESTION_CHANGED = "INPUT_QUESTION_CHANGED"
    INPUT_EXPIRED = "INPUT_EXPIRED"
    # the gateway
    INVALID_REQUEST = "INVALID_REQUEST"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    RUN_NOT_FOUND = "RUN_NOT_FOUND"
    RUN_ALREADY_CLOSED = "RUN_ALREADY_CLOSED"
    WORKFLOW_NOT_FOUND = "WORKFLOW_NOT_FOUND"
    WORKFLOW_NOT_STARTABLE = "WORKFLOW_NOT_STARTABLE"
    NO_EVENT_STREAM = "NO_EVENT_STREAM"
    BLOB_NOT_FOUND = "BLOB_NOT_FOUND"
    NOT_FOUND = "NOT_FOUND"
    UNAUTHORIZED = "UNAUTHORIZED"
    RUNS_BUSY = "RUNS_BUSY"
    TOO_MANY_RUNS = "TOO_MANY_RUNS"
    TOO_MANY_WAITING_RUNS = "TOO_MANY_WAITING_RUNS"
    RATE_LIMITED = "RATE_LIMITED"
    TOO_MANY_FAILED_KEYS = "TOO_MANY_FAILED_KEYS"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    TEMPORAL_UNAVAILABLE = "TEMPORAL_UNAVAILABLE"
    WORKER_UNAVAILABLE = "WORKER_UNAVAILABLE"
    NOT_READY = "NOT_READY"
    STREAM_INTERRUPTED = "STREAM_INTERRUPTED"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"

    # the writing family
    ROUTER_FAILED = "ROUTER_FAILED"
    AGENT_FAILED = "AGENT_FAILED"
    AGENT_DEGRADED = "AGENT_DEGRADED"

    # the supervisor family

    # the app builder family


class FamilyErrorCode(StrEnum):
    """The base of each family's own codes; a family's enum derives from it, so `is_error_code` knows its codes."""


def is_error_code(value: str | None) -> bool:
    """Whether `value` is one of our codes (a failure's type written for a person), the platform's or a family's."""
    if value is None:
        return False
    return value in ErrorCode.__members__ or any(
        value in codes.__members__ for codes in FamilyErrorCode.__subclasses__()
    )


class ErrorInfo(CamelModel):
    """What went wrong in a run: a code from `ErrorCode`, a message for a person, and the node it happened in."""

    code: str
    message: str
    node: str
