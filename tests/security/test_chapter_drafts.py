"""Applying a writing run's draft to a chapter (issue 28 item 1): only the caller's own finished run on the same
project can be applied. Another principal's run, or the caller's run on another project, is the 404 of a run that
does not exist; a run that has not finished is a 409 `DRAFT_NOT_READY` and writes nothing."""

from api.routes.writing_chat import start_writing
from models.writing.runs import WritingChatRequest
from tests.api.conftest import ALICE, BOB, Gateway
from tests.workflows.harness import question_of


async def project_with_a_chapter(gateway: Gateway, headers: dict[str, str]) -> tuple[str, str]:
    http = gateway.http
    project = (await http.post("/v1/writing/projects", json={"name": "长夜"}, headers=headers)).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    chapter = await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开门。"}, headers=headers)
    return base, chapter.json()["chapterId"]


async def test_another_principals_draft_cannot_be_applied(keyed: Gateway) -> None:
    http = keyed.http
    alice_base, _ = await project_with_a_chapter(keyed, ALICE)
    bob_base, bob_chapter = await project_with_a_chapter(keyed, BOB)
    chat = await http.post(f"{alice_base}/chat", json={"text": "写一段林舟在码头的场景"}, headers=ALICE)
    run_id = chat.headers["x-run-id"]

    into_chapter = await http.post(f"{bob_base}/chapters/{bob_chapter}/apply", json={"runId": run_id}, headers=BOB)
    as_chapter = await http.post(f"{bob_base}/chapters/apply", json={"runId": run_id}, headers=BOB)

    assert into_chapter.status_code == as_chapter.status_code == 404
    assert into_chapter.json()["error"]["code"] == as_chapter.json()["error"]["code"] == "RUN_NOT_FOUND"
    versions = (await http.get(f"{bob_base}/chapters/{bob_chapter}/versions", headers=BOB)).json()
    assert [v["number"] for v in versions] == [1]
    assert len((await http.get(f"{bob_base}/chapters", headers=BOB)).json()) == 1


async def test_a_run_that_has_not_finished_has_no_draft_to_apply(keyed: Gateway) -> None:
    http = keyed.http
    base, chapter = await project_with_a_chapter(keyed, ALICE)
    project_id = base.rsplit("/", 1)[1]
    request = WritingChatRequest(text="先想三个结局方案，我选一个再写")
    run_id = await start_writing(keyed.env.client, keyed.settings, "alice", project_id, request)
    handle = keyed.env.client.get_workflow_handle(run_id)
    try:
        await question_of(handle)  # the chain waits for the writer's choice
        applied = await http.post(f"{base}/chapters/{chapter}/apply", json={"runId": run_id}, headers=ALICE)
    finally:
        await handle.terminate("test finished")

    assert applied.status_code == 409 and applied.json()["error"]["code"] == "DRAFT_NOT_READY"
    assert (await http.get(f"{base}/chapters/{chapter}", headers=ALICE)).json()["version"] == 1
