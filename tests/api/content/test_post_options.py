"""The post's options in the user's words (issue 29, items 3 and 5): `layoutPreference` takes Chinese or English
words and maps them onto a layout id (the run's input keeps both), `tone` and `length` are accepted and reach the
writer (offline: the body's length; the brief's tone), and words that name no layout or length are refused with a
code whose message lists what is accepted."""

import pytest
from temporalio.api.enums.v1 import EventType

from models.content.runs import ContentRunInput
from tests.api.conftest import Gateway
from tests.api.content.test_post_export import TOPIC, finished_run

SHORT_ON_XIAOHONGSHU = (150, 433)
"""The lower third of Xiaohongshu's 150–1000 characters."""


async def started_input(gateway: Gateway, run_id: str) -> ContentRunInput:
    history = await gateway.env.client.get_workflow_handle(run_id).fetch_history()
    started = next(e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)
    payload = started.workflow_execution_started_event_attributes.input.payloads[0]
    return ContentRunInput.model_validate_json(payload.data)


@pytest.mark.parametrize(("words", "layout"), [("图文交错", "alternating"), ("cover first", "cover_first")])
async def test_a_layout_in_the_users_words_is_mapped_and_both_are_kept(
    gateway: Gateway, words: str, layout: str
) -> None:
    run_id = await finished_run(gateway, layoutPreference=words)

    state = (await gateway.http.get(f"/v1/runs/{run_id}")).json()["state"]
    assert state["layoutPreference"] == layout and state["layoutSpec"]["layout"] == layout
    stored = await started_input(gateway, run_id)
    assert (stored.layout_words, stored.layout_preference) == (words, layout)


async def test_the_generic_run_api_maps_a_layout_and_refuses_an_unknown_one_too(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/runs",
        json={"workflow": "ContentSupervisorWorkflow", "input": {"topic": TOPIC, "layoutPreference": "九宫格"}},
    )

    unknown = await gateway.http.post(
        "/v1/runs",
        json={"workflow": "ContentSupervisorWorkflow", "input": {"topic": TOPIC, "layoutPreference": "瀑布流"}},
    )

    assert response.status_code == 201, response.text
    stored = await started_input(gateway, response.json()["runId"])
    assert (stored.layout_words, stored.layout_preference) == ("九宫格", "grid")
    await gateway.http.post(f"/v1/runs/{response.json()['runId']}/cancel")
    assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "LAYOUT_PREFERENCE_UNKNOWN"


async def test_words_that_name_no_layout_or_length_are_refused_listing_what_is_accepted(gateway: Gateway) -> None:
    layout = await gateway.http.post("/v1/content/runs", json={"topic": TOPIC, "layoutPreference": "瀑布流"})
    length = await gateway.http.post("/v1/content/runs", json={"topic": TOPIC, "length": "不要太长"})
    tone = await gateway.http.post("/v1/content/runs", json={"topic": TOPIC, "tone": "轻松" * 30})

    assert layout.status_code == 422 and layout.json()["error"]["code"] == "LAYOUT_PREFERENCE_UNKNOWN"
    assert all(word in layout.json()["error"]["message"] for word in ("alternating", "图文交错", "九宫格", "瀑布流"))
    assert length.status_code == 422 and length.json()["error"]["code"] == "LENGTH_UNKNOWN"
    assert all(word in length.json()["error"]["message"] for word in ("short", "短", "long"))
    assert tone.status_code == 422 and tone.json()["error"]["code"] == "INVALID_REQUEST"


async def test_tone_and_length_are_accepted_and_the_offline_body_follows_the_length(gateway: Gateway) -> None:
    short = await finished_run(gateway, tone="轻松幽默", length="短")
    long = await finished_run(gateway, tone="warm and practical", length="long")

    short_state = (await gateway.http.get(f"/v1/runs/{short}")).json()["state"]
    long_state = (await gateway.http.get(f"/v1/runs/{long}")).json()["state"]
    short_body = len(short_state["generatedContent"]["body"])
    long_body = len(long_state["generatedContent"]["body"])
    low, high = SHORT_ON_XIAOHONGSHU
    assert low <= short_body <= high < long_body
    assert short_state["creativeBrief"]["tone"] == "轻松幽默"
    assert long_state["creativeBrief"]["tone"] == "warm and practical"
    stored = await started_input(gateway, short)
    assert (stored.tone, stored.length, stored.length_words) == ("轻松幽默", "short", "短")
