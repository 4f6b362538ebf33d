"""The writing agents with an LLM configured: the loopback server answers in the recorded OpenAI Chat wire format.
The writer's text streams into the run in batches (issue 8 item 8) and is whole in the state; a failing LLM is
reported with an `error` event and the offline agent answers instead (Req 1.5); the consistency check adds the
LLM's review to its rules, each finding placed in the draft."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from models.writing.projects import ChapterIn
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


OUTLINE = {"sections": [{"position": 3, "title": "怀表", "summary": "林舟打开怀表。", "plotLoops": []}], "text": "大纲"}


CLUES = [
    "怀表停在了{n}点。",
    "走私船第{n}次靠岸。",
    "苏念拍下了第{n}张照片。",
    "老陈的卷宗少了第{n}页。",
    "码头的第{n}盏灯灭了。",
]


def long_chapter(number: int) -> tuple[str, list[str]]:
    """A chapter of about 2 500 characters, and the clues it says once each, in its middle."""
    clues = [clue.format(n=number) for clue in CLUES]
    sentences = [f"第{number}夜，林舟沿着码头巡查，雨水打湿了他的外套。", "苏念在档案室里翻看老陈留下的卷宗。"] * 50
    sentences[20:20] = clues
    return "".join(sentences), clues


async def test_req_5_2_the_planner_gets_the_chapter_list_with_each_chapters_summary_and_the_plot_loops(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    loopback.queue(chat_completion(OUTLINE))

    outcome = await llm_writing.run(llm_project, "帮我规划接下来三章的大纲")

    assert outcome.one("structure_update")["sections"][0]["title"] == "怀表"
    prompt = loopback.requests[0].json()["messages"][1]["content"]
    chapters = llm_writing.projects.chapters(OWNER, llm_project)
    assert all(chapter.summary for chapter in chapters), "every chapter was summarised when it was saved"
    for chapter in chapters:
        assert f"第{chapter.position}章《{chapter.title}》（{len(chapter.content)} 字）：{chapter.summary}" in prompt
    assert "未回收：老陈的怀表" in prompt


async def test_req_5_2_the_consistency_check_reads_the_chapters_with_the_books_summaries(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    loopback.queue(chat_completion({"text": "没有发现问题。", "issues": []}))

    await llm_writing.run(llm_project, "检查一下前两章有没有前后矛盾")

    prompt = loopback.requests[0].json()["messages"][1]["content"]
    assert "## 全书章节概要" in prompt
    assert all(chapter.summary in prompt for chapter in llm_writing.projects.chapters(OWNER, llm_project))


async def test_req_5_2_a_changed_chapter_gets_a_new_summary_kept_with_its_version(llm_writing: WritingHarness) -> None:
    project = llm_writing.project(chapters=[("雨夜", "林舟推开警局的门。苏念在等他。")])
    (chapter,) = llm_writing.projects.chapters(OWNER, project)

    changed = llm_writing.projects.update_chapter(
        OWNER, project, chapter.chapter_id, ChapterIn(title="雨夜", content="老陈的怀表停在了十二点。林舟把它收好。")
    )

    assert chapter.summary == "林舟推开警局的门。苏念在等他。"
    assert changed.summary == "老陈的怀表停在了十二点。林舟把它收好。"
    versions = [llm_writing.projects.chapter_version(OWNER, project, chapter.chapter_id, n) for n in (1, 2)]
    assert [version.summary for version in versions] == [chapter.summary, changed.summary]


async def test_req_11_3_with_a_preprocessing_context_agents_read_summaries_and_passages_not_every_chapter(
    llm_writing: WritingHarness, loopback: Loopback
) -> None:
    book = [long_chapter(number) for number in (1, 2, 3)]
    project = llm_writing.project(chapters=[(f"第{n}夜", text) for n, (text, _) in enumerate(book, start=1)])
    loopback.queue(chat_completion(OUTLINE))

    outcome = await llm_writing.run(project, "帮我规划接下来三章的大纲")

    context = outcome.state.preprocessing_context
    assert context is not None, "the planner ran with the workflow's preprocessing context"
    prompt = loopback.requests[0].json()["messages"][1]["content"]
    chapters = llm_writing.projects.chapters(OWNER, project)
    assert all(chapter.summary in prompt for chapter in chapters)
    retrieved = "".join(passage.text for passage in context.passages)
    earlier = [(chapter, clues) for chapter, (_, clues) in zip(chapters[:2], book, strict=False)]
    unread = [clue for chapter, clues in earlier for clue in clues if clue not in chapter.summary + retrieved]
    assert unread and all(clue not in prompt for clue in unread), "earlier chapters are not re-read whole"
    assert len(prompt) < sum(len(chapter.content) for chapter in chapters) / 2


async def test_req_10_5_the_relationship_update_reads_the_designs_text_and_characters(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    """A model's design that gives its relationships only in prose: the update reads them from `text`, and proposes
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
    proposed = llm_writing.projects.proposals(OWNER, llm_project)
    edges = {(p.item["source"], p.item["target"], p.item["kind"]) for p in proposed if p.kind == "relationship"}
    assert edges == {("周野", "林舟", "旧识")}, "read from the text; 阿九 is nobody the writer knows of"
    [updated] = [e.data for e in await llm_writing.events(child) if e.type == "relationship_update"]
    assert updated["added"][0]["description"] == "当年一起在码头长大"
    assert [(e["source"], e["target"]) for e in updated["unknown"]] == [("周野", "阿九")]


async def test_an_english_requests_degraded_agent_and_router_are_reported_in_english(
    llm_writing: WritingHarness, llm_project: str, loopback: Loopback
) -> None:
    """Issue 28 item 7: the `error` a failing model leaves, and the warning thought with it, are in the request's
    language (codes unchanged)."""
    refused = Fixture.json({"error": {"message": "bad model", "type": "invalid_request_error"}}, status=400)
    loopback.queue(refused, refused)

    outcome = await llm_writing.run(llm_project, "how are you today")  # no rule is sure of it: the model is asked

    errors = [(e.data["code"], e.data["message"]) for e in outcome.of_type("error")]
    assert [code for code, _ in errors] == ["ROUTER_DEGRADED", "AGENT_DEGRADED"], errors
    assert errors[0][1].startswith("LLM routing failed; using the keyword rules instead: ")
    assert errors[1][1].startswith("SimpleAgent's model call failed; the offline agent answers: ")
    warnings = [e.data["message"] for e in outcome.of_type("thought_log") if e.data.get("level") == "warning"]
    assert warnings == ["LLM routing failed; using the keyword rules instead", errors[1][1].split(": ")[0]]
    assert outcome.result.status == "completed"
