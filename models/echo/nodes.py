"""The echo family's activities, typed: the reply (the LLM node) and its one tool."""

from models.base import CamelModel
from models.echo.runs import Reply, WordCount
from models.nodes import ActivitySpec
from models.streaming import StreamTarget


class ReplyRequest(CamelModel):
    """What the reply node answers; `use_llm` False is the offline rule (no model, or the model's fallback)."""

    text: str
    use_llm: bool
    stream: StreamTarget | None = None
    """Where the model's reply streams while it is written (None: nowhere; a run recorded before it streamed)."""


class CountRequest(CamelModel):
    """The text the tool counts."""

    text: str


REPLY = ActivitySpec("echo.reply", ReplyRequest, Reply)
COUNT_WORDS = ActivitySpec("echo.count_words", CountRequest, WordCount)
