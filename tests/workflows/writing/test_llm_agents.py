"""The writing agents with an LLM configured: the loopback server answers in the recorded OpenAI Chat wire format.
The writer's text streams into the run in batches (issue 8 item 8) and is whole in the state; a failing LLM is
reported with an `error` event and the offline agent answers instead (Req 1.5); the consistency check adds the
LLM's review to its rules, each finding placed in the draft."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from tests.llm.answers import chat_completion, chat_stream
from tests.llm.loopback import Fixture, Loopback
from tests.workflows.harness import question_of
from tests.workflows.writing.conftest import CHAPTERS, CHARACTERS, PLOT_LOOPS, STYLE_SAMPLES
from tests.workflows.writing.harness import OWNER, WritingHarness, writing_harness
from tests.workflows.writing.test_chains import BRAINSTORM, choose

SCENE = "写一段林舟和苏念在码头的场景"


@pytest.fixture
async def llm_writing(env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback) -> AsyncIterator[WritingHarness]:
    async with writing_harness(env, tmp_path, llm_base_url=loopback.base_url) as harness:
        yield harness


@pytest.fixture
def llm_project(llm_writing: WritingHarness) -> str:
    return llm_writing.project(
        chapters=CHAPTERS, characters=CHARACTERS, plot_loops=PLOT_LOOPS, style_samples=STYLE_SAMPLES
    )


async def test_the_writers_text_streams_in_batches_and_is_whole_in_the_state(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    pieces = [f"第{i}句：雨还在下，林舟看着苏念。" for i in range(120)]
    loopback.queue(chat_stream(pieces), chat_completion({"issues": []}))

    outcome = await llm_writing.run(llm_project, SCENE)

    written = "".join(pieces)
    contents = outcome.of_type("content")
    assert 1 < len(contents) < len(pieces) / 3, "batched: far fewer events than the provider's deltas"
    assert outcome.content == written
    result = outcome.state.result
    assert result is not None and result.text == written and result.streamed and not result.offline
    assert outcome.one("check_result")["offline"] is False
    writer_call = loopback.requests[0].json()
    system = writer_call["messages"][0]["content"]
    prompt = writer_call["messages"][1]["content"]
    assert "老陈" in prompt and "雨下了一整夜" in prompt, "the prompt carries the preprocessing context"
    assert system == outcome.state.enhanced_system_prompt


async def test_req_1_5_a_failing_llm_is_reported_and_the_offline_agent_answers(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    refused = Fixture.json({"error": {"message": "bad model", "type": "invalid_request_error"}}, status=400)
    loopback.queue(refused, chat_completion({"issues": []}))

    outcome = await llm_writing.run(llm_project, SCENE)

    assert outcome.result.status == "completed"
    degraded = outcome.of_type("error")
    assert [e.data["code"] for e in degraded] == ["AGENT_DEGRADED"]
    assert outcome.state.result is not None and outcome.state.result.offline
    assert outcome.content == outcome.result.text and outcome.result.text.startswith("【离线")
    assert outcome.types[-1] == "done"


async def test_req_1_5_a_failing_router_emits_an_error_event_and_the_rules_route(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    refused = Fixture.json({"error": {"message": "bad model", "type": "invalid_request_error"}}, status=400)
    loopback.queue(refused, chat_stream(["你好，", "我在。"]))

    outcome = await llm_writing.run(llm_project, "今天过得怎么样")  # no rule is sure of it: the model is asked

    [error] = outcome.of_type("error")
    assert error.data["code"] == "ROUTER_DEGRADED" and error.data["node"] == "router"
    assert outcome.state.intent is not None and outcome.state.intent.source != "llm"
    assert outcome.result.status == "completed" and outcome.types[-1] == "done"


async def test_req_3_5_the_llm_review_adds_located_issues_to_the_rules_findings(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    draft = "苏念推开门。林舟的黑色眼睛里全是血丝。"
    review = {
        "issues": [{"kind": "trait_conflict", "severity": "warning", "message": "林舟是蓝眼睛", "excerpt": "黑色眼睛"}]
    }
    loopback.queue(chat_stream([draft]), chat_completion(review))

    outcome = await llm_writing.run(llm_project, SCENE)

    check = outcome.one("check_result")
    issue = next(i for i in check["issues"] if i["kind"] == "trait_conflict")
    location = issue["location"]
    assert draft[location["start"] : location["end"]] == "黑色眼睛"
    assert check["passed"] is True, "a warning does not fail the check"


async def test_req_14_5_with_an_llm_the_brainstorms_json_options_are_offered_and_the_choice_reaches_the_writer(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    ideas = {
        "options": [
            {"id": "A", "title": "怀表里的胶卷", "summary": "老陈把证据藏在怀表里"},
            {"id": "B", "title": "苏念的父亲", "summary": "走私船的主人是苏念的父亲"},
        ],
        "text": "两个方向，请选择。",
    }
    loopback.queue(
        chat_completion(ideas), chat_stream(["林舟打开怀表，", "里面是一卷胶卷。"]), chat_completion({"issues": []})
    )

    handle = await llm_writing.start(llm_project, BRAINSTORM)
    question = await question_of(handle)
    await choose(handle, "A")
    outcome = await llm_writing.finish(handle)

    assert [(o.id, o.label) for o in question.options] == [
        ("A", "怀表里的胶卷：老陈把证据藏在怀表里"),
        ("B", "苏念的父亲：走私船的主人是苏念的父亲"),
    ]
    writer_prompt = loopback.requests[1].json()["messages"][1]["content"]
    assert "A. 怀表里的胶卷" in writer_prompt and "两个方向" in writer_prompt, "chain context and choice in the prompt"
    assert outcome.result.text == "林舟打开怀表，里面是一卷胶卷。"
    assert [step.agent for step in outcome.state.chain.steps] == ["brainstorm", "writer"]  # type: ignore[union-attr]


DEAD_MAN_WALKS = "老陈推开门，走进雨里。"
"""A draft the rules fault: 老陈 died three years ago (the sample project) and acts here."""


@pytest.mark.parametrize(
    "review",
    [
        [Fixture.json({"error": {"message": "bad model", "type": "invalid_request_error"}}, status=400)],
        [chat_completion("我觉得没问题。"), chat_completion("真的没问题。")],
    ],
    ids=["review-failed", "review-unreadable"],
)
async def test_issue_25_a_failed_model_review_keeps_the_rules_findings_and_says_so(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback, review: list[Fixture]
) -> None:
    loopback.queue(chat_stream([DEAD_MAN_WALKS]), *review)

    outcome = await llm_writing.run(llm_project, SCENE)

    check = outcome.one("check_result")
    assert check["degraded"] is True and check["offline"] is True
    assert [i["kind"] for i in check["issues"]] == ["dead_character_acts"] and check["passed"] is False
    assert [e.data["code"] for e in outcome.of_type("error")] == ["CHECK_FAILED"]
    assert outcome.result.status == "completed" and outcome.result.text == DEAD_MAN_WALKS


async def test_req_10_5_the_relationship_update_reads_the_designs_text_and_characters(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    """A model's design that gives its relationships only in prose: the update reads them from `text`, and merges
    only those between people the writer knows of (the project's characters and the design's `characters`)."""
    design = {
        "characters": [{"name": "周野", "role": "走私头目", "description": "码头的走私头目"}],
        "relationships": [],
        "text": "周野是码头的走私头目。\n关系：\n- 周野 → 林舟（旧识）：当年一起在码头长大\n"
        "- 周野 → 阿九（手下）：随口提到的一个名字",
    }
    loopback.queue(chat_completion(design))

    outcome = await llm_writing.run(llm_project, "设计一个新角色：码头的走私头目，他和林舟是旧识")

    child = outcome.one("relationship_update")["runId"]
    assert await llm_writing.env.client.get_workflow_handle(child).result() == "completed"
    stored = {(r.source, r.target, r.kind) for r in llm_writing.projects.relationships(OWNER, llm_project)}
    assert stored == {("周野", "林舟", "旧识")}, "read from the text; 阿九 is nobody the writer knows of"
    [updated] = [e.data for e in await llm_writing.events(child) if e.type == "relationship_update"]
    assert updated["added"][0]["description"] == "当年一起在码头长大" and updated["total"] == 1
