"""Issue 29 item 2 over HTTP, offline: a quality fallback changes its input. Notes that all begin with the topic
make headings that repeat one stem, which the review fails on readability; readability goes to the writer (not the
image planner), which gets the review's findings and rewrites the headings, and the second review scores higher and
approves the post."""

from typing import Any

from tests.api.conftest import Gateway
from tests.sse import parse_sse

TOPIC = "早上喝咖啡的正确时间"
SAME_STEM_NOTES = [
    "早上喝咖啡最好在起床后 90 分钟以后，这时皮质醇已经回落，提神效果更持久。",
    "早上喝咖啡之前先喝一杯温水，补充一夜流失的水分，也能减少对胃的刺激。",
    "早上喝咖啡不要空腹，搭配一片全麦面包或者一个鸡蛋，血糖更平稳。",
]


def _of(events: list[Any], kind: str, agent: str) -> list[dict[str, Any]]:
    return [event.data["data"] for event in events if event.event == kind and event.data["node"] == agent]


async def test_headings_that_repeat_a_stem_are_rewritten_by_the_writer_and_the_post_is_approved(
    gateway: Gateway,
) -> None:
    response = await gateway.http.post(
        "/v1/content/runs",
        json={"topic": TOPIC, "platform": "xiaohongshu", "evidence": SAME_STEM_NOTES, "maxIterations": 20},
    )

    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    reviews = [event.data["data"] for event in events if event.event == "review_result"]
    first, second = reviews[0], reviews[-1]
    assert first["scores"]["readability"] < 0.6
    assert "小标题开头重复同一词干" in first["feedback"]["findings"]["readability"]
    assert first["fallback"]["agent"] == "writer_agent"
    written = _of(events, "agent_finished", "writer_agent")
    assert len(written) == 2 and len(reviews) == 2
    assert "按审核发现改写了重复词干的小标题" in written[1]["summary"], written[1]["summary"]
    assert second["scores"]["readability"] > first["scores"]["readability"]
    post = (await gateway.http.get(f"/v1/content/runs/{response.headers['x-run-id']}/post")).json()
    assert post["approved"] and post["endReason"] == "approved"
    headings = [section["heading"] for section in post["sections"] if section["kind"] == "text"]
    assert not any(heading.startswith("早上喝咖") for heading in headings), headings
    assert [event.data["data"] for event in events if event.event == "error"] == []


async def test_an_english_post_s_headings_are_rewritten_at_whole_words_and_it_is_told_so_in_english(
    gateway: Gateway,
) -> None:
    topic = "Packing light for a weekend trip"
    notes = [f"{topic} starts with one pair of shoes.", f"{topic} means one jacket.", f"{topic}: minis save 40% space."]
    response = await gateway.http.post(
        "/v1/content/runs", json={"topic": topic, "platform": "xiaohongshu", "evidence": notes, "maxIterations": 20}
    )

    events = parse_sse(response.text)
    [first, second] = [event.data["data"] for event in events if event.event == "review_result"]
    assert "headings begin with the same stem" in first["feedback"]["findings"]["readability"]
    assert second["feedback"]["approved"]
    post = (await gateway.http.get(f"/v1/content/runs/{response.headers['x-run-id']}/post")).json()
    headings = [section["heading"] for section in post["sections"] if section["kind"] == "text"]
    assert {"Starts with one pair of shoes", "Means one jacket", "Minis save 40% space"} <= set(headings), headings
    assert not any(heading.startswith("Pack") for heading in headings), headings
    assert post["endMessage"] == "Approved by the review: every quality dimension passes"
