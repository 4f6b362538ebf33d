"""The app builder's agents with a model stream their answers (issue 31): an analysis agent's Session_Document and
the planner's tasks reach the run as `content` (named by agent, on the agent's node) while the model writes them,
as readable lines, not braces; the UI and UX experts, who write at once, each stream on their own node; the
documents and the plan the run keeps are the parsed answers; an answer repaired in the JSON question's repair
round, and a retried attempt, each restart the text shown; reasoning (`<think>`) before the JSON is never shown."""

import json
from collections.abc import Callable
from typing import Any

from models.app_builder.documents import AnalysisAgentID, ProductManagerContent
from tests.llm.answers import chat_stream
from tests.llm.loopback import Fixture, Loopback, RecordedRequest
from tests.workflows.app_builder.harness import AppHarness, AppOutcome
from tests.workflows.app_builder.scripts import ROLES, ScriptedModel, offline_contents, task
from tests.workflows.streaming import cut_stream, shown_text, streamed, streamed_while_running

PM = AnalysisAgentID.PRODUCT_MANAGER
CONTENT = offline_contents()[PM]
PLAN = [task("scaffold", "scaffold-agent")]


def first_answers(
    model: ScriptedModel, agent: AnalysisAgentID, *answers: Fixture
) -> Callable[[RecordedRequest], Fixture]:
    """`model`, but `agent`'s first calls get `answers`, in order."""
    queued = list(answers)
    prefix = next(prefix for prefix, role in ROLES.items() if role == agent)

    def respond(request: RecordedRequest) -> Fixture:
        if queued and request.json()["messages"][0]["content"].startswith(prefix):
            return queued.pop(0)
        return model(request)

    return respond


def agent_content(outcome: AppOutcome, agent: str) -> list[dict[str, Any]]:
    return [e.data for e in outcome.of_type("content") if e.data["agent"] == agent]


def before_restart(pieces: list[dict[str, Any]]) -> str:
    """The text shown before the first restart replaced it."""
    restart = next((i for i, piece in enumerate(pieces) if piece["restart"]), len(pieces))
    return "".join(piece["text"] for piece in pieces[:restart])


def requirement_lines(content: dict[str, Any]) -> list[str]:
    return [f"{r['id']}. {r['title']}：{r['description']}" for r in content["functionalRequirements"]]


async def test_a_document_streams_as_readable_content_before_its_call_returns(
    scripted: AppHarness, loopback: Loopback
) -> None:
    loopback.responder = first_answers(ScriptedModel(plans=[PLAN]), PM, chat_stream(streamed(CONTENT)))
    handle = await scripted.start()
    outcome = await scripted.finish(handle)

    pieces = agent_content(outcome, PM.value)
    shown = shown_text(pieces)
    assert len(pieces) > 1 and "{" not in shown
    assert shown.startswith("\n".join(requirement_lines(CONTENT))), "one requirement a line, as written"
    assert {e.node for e in outcome.of_type("content") if e.data["agent"] == PM.value} == {"product_manager"}
    [document] = [d for d in outcome.state.documents if d.agent_id == PM]
    assert document.content == ProductManagerContent.model_validate(CONTENT), "stored as parsed"
    assert await streamed_while_running(handle, "app_builder.product_manager"), "streamed while the call ran"


async def test_the_ui_and_ux_experts_stream_at_once_each_on_its_node_and_the_planner_its_tasks(
    scripted: AppHarness, loopback: Loopback
) -> None:
    model = ScriptedModel(plans=[PLAN])
    ui, ux = AnalysisAgentID.UI_EXPERT, AnalysisAgentID.UX_EXPERT
    contents = offline_contents()
    model.documents = {agent: chat_stream(streamed(contents[agent])) for agent in (ui, ux)}
    loopback.responder = model

    outcome = await scripted.run()

    assert outcome.result.status == "completed"
    for agent in (ui, ux):
        events = [e for e in outcome.of_type("content") if e.data["agent"] == agent.value]
        assert events and {e.node for e in events} == {agent.value.replace("-", "_")}
    assert shown_text(agent_content(outcome, "planner")) == "scaffold. " + PLAN[0]["goal"] + "\n"


async def test_a_document_repaired_in_the_repair_round_restarts_the_text_shown(
    scripted: AppHarness, loopback: Loopback
) -> None:
    invalid = {**CONTENT, "functionalRequirements": [{"id": "r1", "title": "作废的需求", "description": "作废"}]}
    model = ScriptedModel(plans=[PLAN])
    loopback.responder = first_answers(model, PM, chat_stream(streamed(invalid)), chat_stream(streamed(CONTENT)))

    outcome = await scripted.run()

    pieces = agent_content(outcome, PM.value)
    assert before_restart(pieces).startswith("r1. 作废") and sum(bool(p["restart"]) for p in pieces) == 1
    assert shown_text(pieces).startswith("\n".join(requirement_lines(CONTENT)))
    [document] = [d for d in outcome.state.documents if d.agent_id == PM]
    assert document.content == ProductManagerContent.model_validate(CONTENT)


async def test_a_retried_attempt_restarts_the_documents_text(scripted: AppHarness, loopback: Loopback) -> None:
    other = {**CONTENT, "functionalRequirements": [{"id": "r1", "title": "旧的需求", "description": "作废" * 20}]}
    model = ScriptedModel(plans=[PLAN])
    loopback.responder = first_answers(model, PM, cut_stream(streamed(other)[:8]), chat_stream(streamed(CONTENT)))

    outcome = await scripted.run()

    pieces = agent_content(outcome, PM.value)
    assert before_restart(pieces).startswith("r1. ") and pieces[0]["attempt"] == 1, "the cut answer's first words"
    restarted = [p for p in pieces if p["restart"]]
    assert len(restarted) == 1 and restarted[0]["attempt"] == 2
    assert shown_text(pieces).startswith("\n".join(requirement_lines(CONTENT)))


async def test_reasoning_before_the_json_is_never_shown(scripted: AppHarness, loopback: Loopback) -> None:
    thinking = '<think>先列需求：{"functionalRequirements": [{"title": "草稿"}]}</think>\n\n'
    answer = chat_stream(streamed(thinking + json.dumps(CONTENT, ensure_ascii=False)))
    loopback.responder = first_answers(ScriptedModel(plans=[PLAN]), PM, answer)

    outcome = await scripted.run()

    pieces = agent_content(outcome, PM.value)
    assert not any(p["restart"] for p in pieces) and "草稿" not in "".join(p["text"] for p in pieces)
    assert shown_text(pieces).startswith("\n".join(requirement_lines(CONTENT)))
