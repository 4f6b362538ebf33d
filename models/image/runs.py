"""Workflow inputs, outputs and messages of the image agent and its session."""

from pydantic import Field

from models.base import CamelModel
from models.events import RunStatus
from models.image.state import Message, PreviousResult, UserInput
from models.nodes import ActivitySpec


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
    session_workflow_id: str | None = None
    """The session that started this run, told how it ended (`image.report_turn`); None for a run started on its
    own."""
    owner: str = ""
    """The principal the run is for (its `Owner`): the images it makes are stored for it. Empty in runs started
    before runs carried it: their images are stored for nobody."""


class ImageTurnResult(CamelModel):
    """What a run returns to its session: only what the session keeps (the full state stays queryable)."""

    status: RunStatus
    reply: str
    previous: PreviousResult | None = None
    """The image this turn made, for the next "再调整一下"; None when it made none."""


class ChatTurn(CamelModel):
    """A user's message, submitted to the session workflow by the gateway."""

    user_input: UserInput
    owner: str | None = None
    """The principal who sent it: the session refuses a message of anyone but its owner (None: a message sent
    before the gateway said)."""


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


class TurnStart(CamelModel):
    """`image.start_turn`: the session starts a turn's run (a workflow of its own, not a child)."""

    run_id: str
    input: ImageAgentInput
    owner: str
    summary: str


class TurnStarted(CamelModel):
    """The run exists (this attempt started it, or an earlier attempt of the same start did)."""


class TurnEnd(CamelModel):
    """How a turn's run ended, as its session hears it: its result, or why it has none."""

    run_id: str
    result: ImageTurnResult | None = None
    failure: str | None = None
    """Set when the run did not return a result (cancelled, terminated, failed, never started)."""


class TurnReport(CamelModel):
    """`image.report_turn`: a run tells its session how it ended."""

    session_workflow_id: str
    end: TurnEnd


class TurnReported(CamelModel):
    """False when the session had already ended: nobody was waiting."""

    delivered: bool


class TurnLookup(CamelModel):
    """`image.look_up_turn`: the session asks Temporal how a run it has not heard from is doing."""

    run_id: str


class TurnLookedUp(CamelModel):
    """The run's end, or None while it is still running."""

    end: TurnEnd | None = None


class SessionLookup(CamelModel):
    """`image.look_up_session`: a queued run asks whether its session is still there to let it begin."""

    session_workflow_id: str


class SessionLookedUp(CamelModel):
    """Whether the session is still running."""

    open: bool


IMAGE_AGENT_WORKFLOW = "ImageAgentWorkflow"
"""The image agent's registered workflow type: `image.start_turn` starts a turn's run by this name."""
TURN_ENDED_SIGNAL = "turn_ended"
"""The session's signal that carries a `TurnEnd`: `image.report_turn` sends it by this name."""

START_TURN = ActivitySpec("image.start_turn", TurnStart, TurnStarted)
REPORT_TURN = ActivitySpec("image.report_turn", TurnReport, TurnReported)
LOOK_UP_TURN = ActivitySpec("image.look_up_turn", TurnLookup, TurnLookedUp)
LOOK_UP_SESSION = ActivitySpec("image.look_up_session", SessionLookup, SessionLookedUp)
