"""Asking a person and waiting for the answer (ARCHITECTURE rule 9): the question a run shows, the answer the
gateway delivers, and the events that announce both ends of the wait."""

from datetime import datetime

from pydantic import BaseModel, Field

from models.base import CamelModel, RequestModel

MAX_ANSWER_CHARS = 4000
MAX_QUESTION_ID_CHARS = 64
"""A question's id is 12 hex digits; anything much longer names no question."""


class InputOption(CamelModel):
    """One choice offered to the person: `id` is what they answer with, `label` what they read."""

    id: str = Field(min_length=1, max_length=64)
    label: str


class AwaitingInput(CamelModel):
    """What a waiting run asks: shown in its state as `awaitingInput` and carried by `user_input_required`."""

    question_id: str
    """Changes with every question, so an answer meant for an earlier one can be told apart."""
    prompt: str
    options: list[InputOption] = Field(default_factory=list)
    allow_free_text: bool = False
    """True when an answer outside `options` is welcome (or when there are no options)."""
    deadline: datetime
    node: str


class InputAnswer(RequestModel):
    """`POST /v1/runs/{id}/input`: an offered option's id, or free text where the question allows it."""

    answer: str = Field(min_length=1, max_length=MAX_ANSWER_CHARS)
    question_id: str | None = Field(default=None, max_length=MAX_QUESTION_ID_CHARS)
    """When given, the answer is refused if the run now asks something else."""


class ReceivedAnswer(CamelModel):
    """The answer a run accepted: which question, the answer, and the option it picked (None for free text)."""

    question_id: str
    answer: str
    option: InputOption | None = None
    received_at: datetime


class InputExpired(CamelModel):
    """Payload of `user_input_expired`: nobody answered before the deadline."""

    question_id: str
    prompt: str
    deadline: datetime
    message: str


REQUIRED_EVENT = "user_input_required"
RECEIVED_EVENT = "user_input_received"
EXPIRED_EVENT = "user_input_expired"

HUMAN_INPUT_EVENTS: dict[str, type[BaseModel]] = {
    REQUIRED_EVENT: AwaitingInput,
    RECEIVED_EVENT: ReceivedAnswer,
    EXPIRED_EVENT: InputExpired,
}
"""The events a run that asks declares in its family's catalog (`workflows.common.human_input` emits them)."""
