"""An agent's text on its way to its run while the model writes it, for every family: where the activity sends it
(`StreamTarget`), the `content_delta` signal that carries each batch (`ContentDelta`), and the `content` event the
run shows it as (`ContentChunk`). `agent` is the family's agent name (its `AgentName` or `AnalysisAgentID`
value); the JSON shape is the writing family's, whose recorded histories replay unchanged."""

from pydantic import Field

from models.base import CamelModel

CONTENT_SIGNAL = "content_delta"
"""The signal an agent streams its text to its run with."""


class StreamTarget(CamelModel):
    """Where an agent sends its text while it writes: the run's workflow, by signal."""

    workflow_id: str
    run_id: str | None = None


class ContentDelta(CamelModel):
    """The `content_delta` signal an agent sends while it writes: the next batch of text of one attempt."""

    agent: str
    attempt: int
    index: int
    """0, 1, 2, ... within the attempt's round; a batch the run has already seen is ignored."""
    text: str
    round: int = 0
    """0, 1, ... within the attempt: a later round voids what the earlier ones streamed (a JSON answer that came
    back in the repair round, or a streamed draft replaced by the answer as it was parsed)."""


class ContentChunk(CamelModel):
    """`content`: the next piece of an agent's text, as it is written (batched), or all of it at once."""

    agent: str
    text: str
    attempt: int = 1
    restart: bool = False
    """True on the first piece of a retried attempt, a repair round, or a later call of the agent (in the writing
    family, of any agent): what was shown before it is void. An empty piece with `restart`: the agent's model
    failed for good and its text so far is void (its offline version answers instead)."""
    offline: bool = False
    """True when the text is an offline agent's placeholder (no model wrote it; it starts with its label)."""


LIVE_PIECE_CHARS = 8000
"""The most text one live piece carries (a worker splits a longer one)."""
LIVE_EVENT = "content_live"
"""The event type a gateway streams an agent's live text as (no `id:`: not one of the run's durable events)."""
LIVE_TEXT_PATH = "/internal/live-text"
"""The gateway's route the workers post their agents' live text to."""


class LivePiece(CamelModel):
    """`content_live`: the next piece of an agent's text as the model writes it, sent by the activity straight to
    the gateways (`activities.common.live_text`), ahead of the `content` events that record it in batches.

    Provisional: a reader shows an agent's live text until the agent's first `content` event, then while it begins
    with the text that agent's `content` events gave it (same `attempt`) and is longer; otherwise the `content`
    text. A piece whose `offset` is not where the
    reader's live text of its `call`, `attempt` and `round` ends (it missed one) is dropped; a piece of another call,
    attempt or round starts the live text again when its `offset` is 0."""

    workflow_id: str = Field(max_length=1000)
    agent: str = Field(max_length=100)
    call: str = Field(max_length=100)
    """The activity's id within its run: a later call of the same agent is another call."""
    attempt: int = Field(ge=1, le=1_000_000)
    round: int = Field(ge=0, le=1_000_000)
    offset: int = Field(ge=0, le=10**12)
    """Characters of this call, attempt and round sent before this piece."""
    text: str = Field(max_length=LIVE_PIECE_CHARS)


LIVE_BATCH_ITEMS = 1000
"""The most pieces, and the most ended calls, one post of live text carries (a gateway refuses more)."""


class EndedCall(CamelModel):
    """An agent call whose activity attempt has ended: no more pieces of it will come."""

    workflow_id: str = Field(max_length=1000)
    call: str = Field(max_length=100)


class LiveBatch(CamelModel):
    """What a worker posts to a gateway: the live pieces written since its last post, then the calls that ended
    after their last piece was posted."""

    pieces: list[LivePiece] = Field(max_length=LIVE_BATCH_ITEMS)
    ended: list[EndedCall] = Field(default_factory=list, max_length=LIVE_BATCH_ITEMS)
