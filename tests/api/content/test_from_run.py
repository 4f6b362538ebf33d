"""A new post that starts from an earlier one (issue 29 item 3, `fromRun`) over HTTP: it takes the earlier post's
notes, reference images, platform, tone and session where the request leaves them out, so it neither asks for the
platform again nor loses the notes' facts; the request's own values win; another principal's post is a 404, one
that still works a 409, and a malformed id a 422."""

from tests.api.conftest import ALICE, BOB, Gateway
from tests.api.content.test_content_runs import upload
from tests.sse import parse_sse

NOTES = ["营养师建议：每天咖啡因不超过 400 毫克。", "2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。"]


async def started(gateway: Gateway, body: dict[str, object], headers: dict[str, str] | None = None) -> str:
    run_id, _ = await started_in_session(gateway, body, headers)
    return run_id


async def started_in_session(
    gateway: Gateway, body: dict[str, object], headers: dict[str, str] | None = None
) -> tuple[str, str | None]:
    """A run that completed without asking anything: its id and its session (`X-Session-Id`)."""
    response = await gateway.http.post("/v1/content/runs", json=body, headers=headers or {})
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    assert events[-1].event == "done" and events[-1].data["data"]["status"] == "completed", events[-3:]
    assert "user_input_required" not in [event.event for event in events], "nothing asked again"
    return response.headers["x-run-id"], response.headers.get("x-session-id")


async def state_of(gateway: Gateway, run_id: str) -> dict[str, object]:
    state: dict[str, object] = (await gateway.http.get(f"/v1/runs/{run_id}")).json()["state"]
    return state


async def test_a_new_post_takes_the_earlier_posts_notes_references_platform_tone_and_session(
    gateway: Gateway,
) -> None:
    reference = await upload(gateway, "水彩 花园")
    first = await started(
        gateway,
        {
            "topic": "打工人的咖啡续命指南",
            "platform": "xiaohongshu",
            "tone": "轻松幽默",
            "evidence": NOTES,
            "referenceImages": [reference],
            "sessionId": "coffee-series",
        },
    )

    second, session = await started_in_session(
        gateway, {"topic": "咖啡因和睡眠：下午几点以后别再喝咖啡", "fromRun": first}
    )

    earlier, later = await state_of(gateway, first), await state_of(gateway, second)
    brief = later["creativeBrief"]
    assert isinstance(brief, dict) and brief["platform"] == "xiaohongshu" and brief["tone"] == "轻松幽默"
    assert later["referenceImages"] == earlier["referenceImages"] != []
    assert later["metadata"]["startedFrom"] == first  # type: ignore[index]
    notes = earlier["metadata"]["evidenceNotesRef"]  # type: ignore[index]
    assert notes and later["metadata"]["evidenceNotesRef"] == notes  # type: ignore[index]
    text = (await gateway.http.get(f"/v1/content/runs/{second}/export.txt")).text
    assert "400 毫克" in text, "the earlier post's notes reach the new one"
    assert session == "coffee-series", "the new post joins the earlier one's session"


async def test_the_requests_own_values_win_over_the_earlier_posts(gateway: Gateway) -> None:
    first = await started(gateway, {"topic": "打工人的咖啡续命指南", "platform": "xiaohongshu", "evidence": NOTES})

    second = await started(
        gateway,
        {"topic": "手冲咖啡入门", "fromRun": first, "platform": "weibo", "evidence": ["手冲咖啡的水温 92 度最合适。"]},
    )

    later = await state_of(gateway, second)
    assert later["creativeBrief"]["platform"] == "weibo"  # type: ignore[index]
    text = (await gateway.http.get(f"/v1/content/runs/{second}/export.txt")).text
    assert "92" in text and "400 毫克" not in text


async def test_from_run_of_another_principal_a_post_still_working_or_a_bad_id_is_refused(keyed: Gateway) -> None:
    alices = await started(keyed, {"topic": "咖啡", "platform": "xiaohongshu"}, headers=ALICE)
    asking = {"workflow": "ContentSupervisorWorkflow", "input": {"topic": "咖啡"}}  # waits for a platform
    waiting = (await keyed.http.post("/v1/runs", json=asking, headers=ALICE)).json()["runId"]
    for _ in range(100):
        if (await keyed.http.get(f"/v1/runs/{waiting}", headers=ALICE)).json()["awaitingInput"]:
            break

    stolen = await keyed.http.post("/v1/content/runs", json={"topic": "茶", "fromRun": alices}, headers=BOB)
    early = await keyed.http.post("/v1/content/runs", json={"topic": "茶", "fromRun": waiting}, headers=ALICE)
    malformed = await keyed.http.post("/v1/content/runs", json={"topic": "茶", "fromRun": "../x"}, headers=ALICE)

    await keyed.http.post(f"/v1/runs/{waiting}/cancel", headers=ALICE)
    assert (stolen.status_code, stolen.json()["error"]["code"]) == (404, "RUN_NOT_FOUND")
    assert (early.status_code, early.json()["error"]["code"]) == (409, "POST_NOT_READY")
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (422, "INVALID_REQUEST")
