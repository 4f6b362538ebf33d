"""Issue 29 item 2 on the model simulator (tests/simulator): a review that fails one dimension sends its findings to
the prompt of the agent that owns the dimension (readability: the writer), and that agent's next output differs.
The simulator writes the Supervisor's decisions the way a model following its prompt would (the first stage not
done, else the quality fallback it is told about, else END) and a review that fails readability once; every
other answer is its own made-up one."""

import threading
from dataclasses import dataclass, field, replace
from typing import Any

from activities.content.prompts import AGENT_PROMPTS
from models.content.agents import AgentName
from tests.api.conftest import Gateway
from tests.api.content.prompted_supervisor import prompted_decision
from tests.simulator.requests import SimRequest
from tests.simulator.server import LoggedCall, Simulator
from tests.sse import parse_sse

TIME_SCALE = 0.01
FINDINGS = ["第 2 段 180 字没有分段", "平均句长 64 字，长句太多"]
LOW_READABILITY = 0.35


@dataclass
class ScriptedContentModel:
    """The simulator's `json_author` for the Supervisor and the review; None (made up) for everything else."""

    reviews: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: SimRequest) -> Any:
        decision = prompted_decision(request)
        if decision is not None:
            return decision
        if AGENT_PROMPTS[AgentName.REVIEW] in request.system:
            with self._lock:
                self.reviews += 1
                first = self.reviews == 1
            readability = LOW_READABILITY if first else 0.9
            return {
                "feedback": {
                    "approved": not first,
                    "summary": "可读性偏低" if first else "通过",
                    "issues": [f"可读性 {readability}：{'；'.join(FINDINGS)}"] if first else [],
                    "findings": {"readability": "；".join(FINDINGS)} if first else {},
                },
                "scores": {
                    "infoDensity": 0.9,
                    "textImageAlignment": 0.9,
                    "styleConsistency": 0.9,
                    "readability": readability,
                    "platformFit": 0.9,
                },
            }
        return None


def _writer_calls(simulator: Simulator) -> list[LoggedCall]:
    return [call for call in simulator.log if AGENT_PROMPTS[AgentName.WRITER] in call.request.system and call.value]


async def test_a_failed_readability_sends_its_findings_to_the_writer_s_prompt(
    simulated: Gateway, simulator: Simulator
) -> None:
    simulator.style = replace(simulator.style, tool_policy="never", json_author=ScriptedContentModel())

    response = await simulated.http.post(
        "/v1/content/runs",
        json={"topic": "打工人的咖啡续命指南", "platform": "xiaohongshu", "maxIterations": 14},
        timeout=300,
    )

    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    routes = [event.data["data"]["routedTo"] for event in events if event.event == "supervisor_decision"]
    reviews = [event.data["data"] for event in events if event.event == "review_result"]
    assert [review["scores"]["readability"] for review in reviews] == [LOW_READABILITY, 0.9], routes
    assert reviews[0]["fallback"]["agent"] == "writer_agent"
    first, again = _writer_calls(simulator)
    asked = again.request.last_user_text
    assert f"质量回退：审核的可读性（readability）得分 {LOW_READABILITY:.2f}" in asked, asked[:600]
    assert all(f"- {finding}" in asked for finding in FINDINGS), asked[:600]
    assert "质量回退" not in first.request.last_user_text
    assert again.value != first.value, "the writer's next post differs"
    [post] = [event.data["data"] for event in events if event.event == "post_ready"]
    assert post["approved"] and post["endReason"] == "approved"
