"""Scripted LLM answers for content runs (OpenAI Chat wire format on the loopback server): a Supervisor's
decision, an answer with no decision in it, tool calls, a review's scores, and a refusal (HTTP 400, not
retryable) that makes an agent fall back to its offline version at once."""

from typing import Any

from models.content.artifacts import QualityDimension
from tests.llm.answers import chat_completion, chat_tool_calls
from tests.llm.loopback import Fixture

REFUSED = Fixture.json({"error": {"message": "scripted refusal", "type": "invalid_request_error"}}, status=400)
"""An LLM call that fails for good: the agent's offline version answers (an AGENT_DEGRADED error event)."""

GOOD_SCORES = {dimension.value: 0.9 for dimension in QualityDimension}


def decide(next_agent: str, guidance: str = "", focus: list[str] | None = None) -> Fixture:
    """The Supervisor's JSON decision."""
    return chat_completion(
        {"next_agent": next_agent, "guidance": guidance, "context_from_previous": "", "focus_areas": focus or []}
    )


def no_decision(text: str = "我需要再想一想下一步该做什么。") -> Fixture:
    """An answer with no JSON decision in it."""
    return chat_completion(text)


def tools(*calls: tuple[str, str, dict[str, Any]]) -> Fixture:
    return chat_tool_calls(list(calls))


def review(scores: dict[str, float], *, approved: bool) -> Fixture:
    """The review's JSON: a verdict and the five scores."""
    feedback = {"approved": approved, "summary": "脚本审核", "issues": [], "findings": {}}
    return chat_completion({"feedback": feedback, "scores": scores})


def low(dimension: QualityDimension, score: float = 0.3) -> dict[str, float]:
    return GOOD_SCORES | {dimension.value: score}


def offline_steps(count: int) -> list[Fixture]:
    """`count` Supervisor turns and their agents, each refused: the offline policy and agents do the work."""
    return [REFUSED, REFUSED] * count
