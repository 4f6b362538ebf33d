"""What an echo run takes (from `POST /v1/runs`, and as the workflow's input), its state and its result."""

from typing import Literal

from pydantic import Field

from models.base import CamelModel, RequestModel
from models.errors import ErrorInfo
from models.events import RunStatus
from models.human_input import AwaitingInput
from models.runs import GraphPosition

Choice = Literal["keep", "shout"]


class EchoRequest(RequestModel):
    """`POST /v1/runs {"workflow": "EchoWorkflow", "input": {...}}`: the text to answer."""

    text: str = Field(min_length=1, max_length=2000)


class EchoRunInput(CamelModel):
    """The workflow's input: the request, plus what the gateway knows (whether a model is configured, how long the
    question waits). Workflows read no settings (ARCHITECTURE rule 1)."""

    text: str
    llm_configured: bool = False
    input_timeout_seconds: float = 3600.0
    deadline_seconds: float = 300.0


class Reply(CamelModel):
    """The reply node's answer, and whether the offline rule wrote it instead of the model."""

    text: str
    offline: bool


class WordCount(CamelModel):
    """The tool's answer: how long the reply is."""

    characters: int
    words: int


class EchoState(CamelModel):
    """The run as `GET /v1/runs/{id}` shows it."""

    metadata: GraphPosition = Field(default_factory=GraphPosition)
    error: ErrorInfo | None = None
    reply: Reply | None = None
    count: WordCount | None = None
    awaiting_input: AwaitingInput | None = None
    choice: Choice | None = None
    final_text: str | None = None

    @property
    def position(self) -> GraphPosition:
        return self.metadata


class EchoResult(CamelModel):
    """What the run returns: how it ended and its final text."""

    status: RunStatus
    final_text: str | None
