"""The writing family's activities: one input model per node and the typed `ActivitySpec` that names each one
`writing.<node>` for the worker and the workflow alike."""

from pydantic import Field

from models.base import CamelModel
from models.nodes import ActivitySpec
from models.writing.intents import IntentResult


class RouteRequest(CamelModel):
    """The router's input: what the writer asked."""

    text: str = Field(max_length=20_000)
    use_llm: bool = True
    """False after the LLM path failed: the router answers from its rules, or GENERAL_CHAT."""


ROUTER = ActivitySpec("writing.router", RouteRequest, IntentResult)
