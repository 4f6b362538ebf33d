"""Issue 29 item 1 over HTTP, offline: a post made without notes is template filler the review fails, and no
offline fallback can change that; the run ends after the one fallback that came back the same, with the post
(`approved: false`, a deliverable and not an error event) and the reason per dimension the user can read, instead of
redrawing the images up to `maxIterations`. An English topic is told all of it in English."""

import re

from tests.api.conftest import Gateway
from tests.api.content.test_content_runs import TOPIC
from tests.sse import parse_sse

CHINESE = re.compile(r"[\u4e00-\u9fff\uff08\uff09\uff1a\uff1b\uff0c]")
"""A Chinese character or full-width punctuation."""
FEW_ITERATIONS = 10
"""The normal order is 7 agents; one fallback that changes nothing, then the end."""


async def test_a_post_without_notes_ends_early_unapproved_and_says_why(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/content/runs", json={"topic": TOPIC, "platform": "xiaohongshu", "maxIterations": 20}
    )

    assert response.status_code == 200, response.text
    run_id = response.headers["x-run-id"]
    events = parse_sse(response.text)
    post = (await gateway.http.get(f"/v1/content/runs/{run_id}/post")).json()
    state = (await gateway.http.get(f"/v1/runs/{run_id}")).json()["state"]
    assert post["complete"] and not post["approved"]
    assert post["endReason"] == "cannot_improve"
    message: str = post["endMessage"]
    assert message.startswith("离线模式无法改进：信息密度") and message.endswith("请补充笔记/接入模型"), message
    assert state["iterationCount"] <= FEW_ITERATIONS
    started = [event for event in events if event.event == "agent_started"]
    assert len(started) <= FEW_ITERATIONS
    drawn = [event for event in events if event.event == "image_generated"]
    assert len(drawn) == len(post["imageUrls"]), "the images are drawn once, not again for every fallback"
    errors = [event.data["data"] for event in events if event.event == "error"]
    assert errors == [], "an unapproved complete post is delivered, not an error"
    assert events[-1].event == "done"


async def test_an_english_post_gets_its_findings_and_why_it_cannot_improve_in_english(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/content/runs", json={"topic": "Packing light for a weekend trip", "platform": "xiaohongshu"}
    )

    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    post = (await gateway.http.get(f"/v1/content/runs/{response.headers['x-run-id']}/post")).json()
    [review, *_] = [event.data["data"] for event in events if event.event == "review_result"]
    assert review["feedback"]["summary"].startswith("Not approved: ")
    assert not CHINESE.search(" ".join(review["feedback"]["findings"].values())), review["feedback"]
    assert post["endReason"] == "cannot_improve" and not post["approved"]
    message: str = post["endMessage"]
    assert message.startswith("Offline mode cannot improve this: information density"), message
    assert message.endswith("Add notes or connect a language model") and not CHINESE.search(message), message
