"""Workflow inputs, outputs and messages of the image agent and its session."""

from pydantic import Field

from models.base import CamelModel
from models.events import RunStatus
from models.image.state import Message, PreviousResult, UserInput


class TurnContext(CamelModel):
    """What a turn knows of its session when it starts: recent messages and the last image."""

    messages: list[Message] = Field(default_factory=list)
    """The session's most recent messages, for the Planner's context (seed 000 §5.2)."""
    previous: PreviousResult | None = None


class ImageAgentInput(CamelModel):
    """Everything one image-agent run needs; workflows read no settings, so limits travel here too."""

    session_id: str
    turn: int = 1
    user_input: UserInput
    context: TurnContext | None = Field(default_factory=TurnContext)
    """None while the turn is queued behind others: the session sends it with `begin` when the turn is due."""
    position: int = 0
    """Runs ahead of this one in its session when it was submitted."""
    deadline_seconds: float = 60.0
    llm_configured: bool = False
    """Whether the worker has an LLM: the Planner and Critic then call it (regular activities); without one their
    keyword and pixel checks run as local activities."""
    hosted_models: list[str] = Field(default_factory=list)
    """`preferredModel`s a configured image API serves (the others render locally)."""
    direct_models: list[str] = Field(default_factory=list)
    """Hosted models of a synchronous API (OpenAI Images): one Executor call with a longer timeout."""
    default_model: str | None = None
    """The hosted model a turn without `preferredModel` uses (`IMAGE_PROVIDER_DEFAULT`); None: the local renderer."""
    allow_fallback: bool = True
    """Whether a spent quota falls back to the local renderer instead of ending the turn."""


class ImageTurnResult(CamelModel):
    """What a run returns to its session: only what the session keeps (the full state stays queryable)."""

    status: RunStatus
    reply: str
    previous: PreviousResult | None = None
    """The image this turn made, for the next "再调整一下"; None when it made none."""


class ChatTurn(CamelModel):
    """A user's message, submitted to the session workflow by the gateway."""

    user_input: UserInput


class TurnTicket(CamelModel):
    """The session's answer to a submitted message: which run handles it and how many runs are ahead."""

    session_id: str
    turn: int
    run_id: str
    position: int = 0


class SessionSnapshot(CamelModel):
    """What a session carries across continue-as-new, and answers to its `state` query."""

    session_id: str
    messages: list[Message] = Field(default_factory=list)
    previous: PreviousResult | None = None
    turns: int = 0
    active_run_id: str | None = None
    queued: int = 0


class SessionInput(CamelModel):
    """The session's settings and the snapshot it starts from (empty, or carried over by continue-as-new)."""

    snapshot: SessionSnapshot
    owner: str
    """The principal whose session this is; its runs carry it as their `Owner` too."""
    idle_timeout_seconds: float = 30 * 60
    run_deadline_seconds: float = 60.0
    llm_configured: bool = False
    hosted_models: list[str] = Field(default_factory=list)
    direct_models: list[str] = Field(default_factory=list)
    default_model: str | None = None
    allow_fallback: bool = True
    max_turns_per_run: int = 100
    """Continue-as-new after this many turns, long before the history grows large."""
