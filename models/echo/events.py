"""The echo family's events: the model's reply as it is written (`content`, `models.streaming`), the reply, its
tool's answer, its question (the shared human-input events), its end."""

from models.base import CamelModel
from models.echo.runs import Reply, WordCount
from models.errors import ErrorInfo
from models.events import EventCatalog, RunEnd
from models.human_input import HUMAN_INPUT_EVENTS
from models.streaming import ContentChunk


class EchoReady(CamelModel):
    """`echo_ready`: the final text, after the person's choice."""

    text: str


class Degraded(CamelModel):
    """`degraded`: a node whose model failed for good, and the offline path that answered instead."""

    node: str
    reason: str


ECHO_EVENTS = EventCatalog(
    payloads={
        "content": ContentChunk,
        "reply_ready": Reply,
        "degraded": Degraded,
        "tool_result": WordCount,
        **HUMAN_INPUT_EVENTS,
        "echo_ready": EchoReady,
        "error": ErrorInfo,
        "done": RunEnd,
    },
    terminal="done",
)
