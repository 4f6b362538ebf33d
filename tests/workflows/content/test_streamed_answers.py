"""The content agents with an LLM stream their answers (issue 31): the writer's post and the brief reach the run as
`content` (named by agent) while the model writes them, as readable lines, not braces; the state holds the parsed
answer; an answer repaired in the JSON question's repair round, and a retried attempt, each restart the text
shown; reasoning (`<think>`) before the JSON is never shown."""

import json
from typing import Any

from tests.llm.answers import chat_stream
from tests.llm.loopback import Loopback
from tests.workflows.content.harness import ContentHarness, ContentOutcome
from tests.workflows.content.scripts import REFUSED, decide
from tests.workflows.content.test_llm_agents import BRIEF, TOPIC
from tests.workflows.streaming import cut_stream, shown_text, streamed, streamed_while_running

POST = {"title": "咖啡续命指南", "body": "每天一杯刚刚好。\n\n下午三点后别再喝。", "hashtags": ["咖啡", "打工人"]}
SHOWN = "咖啡续命指南\n\n每天一杯刚刚好。\n\n下午三点后别再喝。\n咖啡 打工人 "
"""`POST` as the run shows it."""


def writer_content(outcome: ContentOutcome) -> list[dict[str, Any]]:
    return [e.data for e in outcome.of_type("content") if e.data["agent"] == "writer_agent"]


def queue_writer(loopback: Loopback, *answers: Any) -> None:
    """The Supervisor asks for the brief (refused: the offline brief), then the writer, which gets `answers`."""
    loopback.queue(decide("brief_compiler_agent"), REFUSED, decide("writer_agent"), *answers)


async def test_the_writers_post_streams_as_readable_content_before_its_call_returns(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    queue_writer(loopback, chat_stream(streamed(POST)))

    handle = await scripted.start(TOPIC, max_iterations=2)
    outcome = await scripted.finish(handle)

    pieces = writer_content(outcome)
    assert len(pieces) > 1 and pieces[0]["text"].startswith("咖啡"), "the first words go at once, the rest as written"
    assert shown_text(pieces) == SHOWN and "{" not in SHOWN
    assert all(event.node == "writer_agent" for event in outcome.of_type("content"))
    content = outcome.state.generated_content
    assert content is not None and content.model_dump(exclude_defaults=True) == POST, "stored as parsed"
    assert await streamed_while_running(handle, "content.writer"), "streamed while the call ran"
    assert not [e for e in outcome.of_type("content") if e.data["agent"] == "brief_compiler_agent"], "offline: none"


async def test_the_brief_streams_too(scripted: ContentHarness, loopback: Loopback) -> None:
    loopback.queue(decide("brief_compiler_agent"), chat_stream(streamed({"brief": BRIEF})))

    outcome = await scripted.run(TOPIC, max_iterations=1)

    pieces = [e.data for e in outcome.of_type("content") if e.data["agent"] == "brief_compiler_agent"]
    assert shown_text(pieces) == f"{TOPIC}\n上班族\n- 每天不超过 400 毫克咖啡因\n"
    assert outcome.state.creative_brief is not None and outcome.state.creative_brief.audience == "上班族"


async def test_a_post_repaired_in_the_repair_round_restarts_the_text_shown(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    too_long = {"title": "太长的标题" * 30, "body": "作废"}  # a title is at most 120 characters
    queue_writer(loopback, chat_stream(streamed(too_long)), chat_stream(streamed(POST)))

    outcome = await scripted.run(TOPIC, max_iterations=2)

    pieces = writer_content(outcome)
    assert pieces[0]["text"].startswith("太长") and sum(bool(p["restart"]) for p in pieces) == 1
    assert shown_text(pieces) == SHOWN
    assert outcome.state.generated_content is not None and outcome.state.generated_content.title == POST["title"]


async def test_a_retried_attempt_restarts_the_writers_text(scripted: ContentHarness, loopback: Loopback) -> None:
    other = {"title": "旧的标题", "body": "作废的正文" * 10}
    queue_writer(loopback, cut_stream(streamed(other)[:6]), chat_stream(streamed(POST)))

    outcome = await scripted.run(TOPIC, max_iterations=2)

    pieces = writer_content(outcome)
    assert pieces[0]["text"].startswith("旧的") and pieces[0]["attempt"] == 1
    restarted = [p for p in pieces if p["restart"]]
    assert len(restarted) == 1 and restarted[0]["attempt"] == 2
    assert shown_text(pieces) == SHOWN


async def test_reasoning_before_the_json_is_never_shown(scripted: ContentHarness, loopback: Loopback) -> None:
    thinking = '<think>先想标题：{"title": "草稿"}</think>\n\n'
    queue_writer(loopback, chat_stream(streamed(thinking + json.dumps(POST, ensure_ascii=False))))

    outcome = await scripted.run(TOPIC, max_iterations=2)

    pieces = writer_content(outcome)
    assert not any(p["restart"] for p in pieces) and shown_text(pieces) == SHOWN
    assert "草稿" not in "".join(p["text"] for p in pieces)


async def test_a_post_whose_model_fails_for_good_voids_the_text_it_streamed(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    too_long = {"title": "太长的标题" * 30, "body": "作废"}  # invalid in the first round and in the repair round
    queue_writer(loopback, chat_stream(streamed(too_long)), chat_stream(streamed(too_long)))

    outcome = await scripted.run(TOPIC, max_iterations=2)

    pieces = writer_content(outcome)
    assert pieces[0]["text"].startswith("太长"), "the model's text showed while it was written"
    assert (pieces[-1]["text"], pieces[-1]["restart"]) == ("", True), "an empty restart voids it"
    assert shown_text(pieces) == "", "nothing the run did not use stays on screen"
    [degraded] = [e for e in outcome.of_type("error") if e.node == "writer_agent"]
    assert degraded.data["code"] == "AGENT_DEGRADED"
    content = outcome.state.generated_content
    assert content is not None and content.title != too_long["title"], "the offline writer's post"
