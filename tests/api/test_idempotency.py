"""Issue 50 #12: a request that starts work can be retried. The gateway killed 150 ms after eight chats left no client
with a run id while all eight runs went on, and the natural retry drew every image twice. With the same
`Idempotency-Key` a retry gets the run the first request started (a run, a writing chat, an image turn: the session
counts one turn), another principal's same key names another run, and applying one run to a chapter twice keeps one
version (and one new chapter)."""

from tests.api.conftest import ALICE, BOB, Gateway
from tests.api.writing.test_chapters import finished_draft, three_chapters
from tests.sse import parse_sse

KEY = {"idempotency-key": "chat-7f3a-retry"}


async def test_a_retried_run_start_gets_the_first_run_and_the_session_one_turn(gateway: Gateway) -> None:
    body = {"workflow": "ImageAgentWorkflow", "input": {"text": "生成一只猫"}, "sessionId": "retried"}
    gateway.sessions.add("session-local-retried")

    first = await gateway.http.post("/v1/runs", json=body, headers=KEY)
    again = await gateway.http.post("/v1/runs", json=body, headers=KEY)
    other = await gateway.http.post("/v1/runs", json=body, headers={"idempotency-key": "another-request"})

    assert first.status_code == again.status_code == other.status_code == 201, (first.text, again.text)
    assert again.json()["runId"] == first.json()["runId"] != other.json()["runId"]
    session = (await gateway.http.get("/v1/runs/session-local-retried")).json()
    assert session["state"]["turns"] == 2  # the first request's and the other key's, not the retry's


async def test_a_retried_chat_streams_the_first_run_without_starting_another(gateway: Gateway) -> None:
    gateway.sessions.add("session-local-chat-retried")
    body = {"text": "画一只猫", "sessionId": "chat-retried"}

    first = await gateway.http.post("/api/agent/chat", json=body, headers=KEY)
    again = await gateway.http.post("/api/agent/chat", json=body, headers=KEY)

    assert first.headers["x-run-id"] == again.headers["x-run-id"]
    assert parse_sse(again.text)[-1].event == "stream_end"
    session = (await gateway.http.get("/v1/runs/session-local-chat-retried")).json()
    assert session["state"]["turns"] == 1


async def test_a_retried_writing_chat_is_the_same_run_and_its_draft_is_applied_once(gateway: Gateway) -> None:
    http = gateway.http
    base, ids = await three_chapters(gateway)
    chat = {"text": "写一段林舟和苏念在码头的场景"}
    first = await http.post(f"{base}/chat", json=chat, headers=KEY)
    again = await http.post(f"{base}/chat", json=chat, headers=KEY)
    assert first.headers["x-run-id"] == again.headers["x-run-id"]
    run_id = first.headers["x-run-id"]

    applied = [await http.post(f"{base}/chapters/{ids[1]}/apply", json={"runId": run_id}) for _ in range(2)]
    added = [await http.post(f"{base}/chapters/apply", json={"runId": run_id, "title": "夜谈"}) for _ in range(2)]

    assert [r.status_code for r in applied] == [200, 200] and applied[0].json() == applied[1].json()
    versions = (await http.get(f"{base}/chapters/{ids[1]}/versions")).json()
    assert [(v["number"], v["runId"]) for v in versions] == [(2, run_id), (1, None)]
    assert added[0].json()["chapterId"] == added[1].json()["chapterId"]
    assert len((await http.get(f"{base}/chapters")).json()) == 4
    another = await finished_draft(gateway, base)
    assert (await http.post(f"{base}/chapters/{ids[1]}/apply", json={"runId": another})).json()["version"] == 3


async def test_one_principal_s_key_never_names_another_s_run(keyed: Gateway) -> None:
    body = {"workflow": "ImageAgentWorkflow", "input": {"text": "生成一只猫"}, "sessionId": "shared-key"}
    keyed.sessions |= {"session-alice-shared-key", "session-bob-shared-key"}

    alice = await keyed.http.post("/v1/runs", json=body, headers=ALICE | KEY)
    bob = await keyed.http.post("/v1/runs", json=body, headers=BOB | KEY)
    bad = await keyed.http.post("/v1/runs", json=body, headers=ALICE | {"idempotency-key": "no spaces"})

    assert alice.status_code == bob.status_code == 201 and alice.json()["runId"] != bob.json()["runId"]
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "INVALID_REQUEST"
