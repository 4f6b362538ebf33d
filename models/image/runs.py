"""Workflow inputs, outputs and messages of the image agent and its session."""

from pydantic import Field

from models.agent import Message, PreviousResult, UserInput
from models.base import CamelModel


class ImageAgentInput(CamelModel):
    """Everything one image-agent run needs; workflows read no settings, so limits travel here too."""

    session_id: str
    turn: int = 1
    user_input: UserInput
    messages: list[Message] = Field(default_factory=list)
    """The session's most recent messages, for the Planner's context (seed 000 §5.2)."""
    previous: PreviousResult | None = None
    deadline_seconds: float = 60.0


class ChatTurn(CamelModel):
    """A user's message, submitted to the session workflow by the gateway."""

    user_input: UserInput


class TurnTicket(CamelModel):
    """The session's answer to a submitted message: which run handles it."""

    session_id: str
    turn: int
    run_id: str


class SessionSnapshot(CamelModel):
    """What a session carries across continue-as-new, and answers to its `state` query."""

    session_id: str
    messages: list[Message] = Field(default_factory=list)
    previous: PreviousResult | None = None
    turns: int = 0
    active_run_id: str | None = None
    queued: int = 0


class SessionInput(CamelModel):
    snapshot: SessionSnapshot
    idle_timeout_seconds: float = 30 * 60
    run_deadline_seconds: float = 60.0
    max_turns_per_run: int = 100
    """Continue-as-new after this many turns, long before the history grows large."""
