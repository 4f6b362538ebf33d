"""The echo family's activities over the worker's shared dependencies (its `Family` names this factory)."""

from collections.abc import Callable
from typing import Any

from activities.common.dependencies import WorkerDependencies
from activities.echo.reply import EchoAgent
from activities.echo.tools import EchoTools


def build_activities(deps: WorkerDependencies) -> list[Callable[..., Any]]:
    """The reply (over the worker's model, if any) and the word-count tool."""
    return [EchoAgent(deps.llm).reply, EchoTools().count_words]
