"""Edits of a finished post over HTTP (issue 29 item 3): section 2 rewritten with the user's own text and then by an
instruction (offline: an honest rule-based rewrite that says it is offline), image 3 redrawn from that version,
each as its own run; the post's versions listed from any run id; the exports of the latest version hold the new
text and the new image; bad edits are refused with codes, and another principal's post is a 404."""

import asyncio
import io
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import DeleteWorkflowExecutionRequest
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from api.routes import content_export, runs
from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, BOB, Gateway, running_gateway
from tests.api.content.test_post_export import finished_run
from tests.sse import SseEvent, parse_sse

OWN_TEXT = "我自己写的第二段：因此我每天只喝两杯。您也可以试试先喝水再喝咖啡。下午三点以后就不再碰咖啡了。"


async def edited(gateway: Gateway, run_id: str, **edit: object) -> tuple[str, list[SseEvent]]:
    response = await gateway.http.post(f"/v1/content/runs/{run_id}/edits", json=edit)
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    assert [event.event for event in events[-2:]] == ["post_ready", "done"], events[-3:]
    assert events[-1].data["data"]["status"] == "completed", events[-1].data
    return response.headers["x-run-id"], events


async def post_of(gateway: Gateway, run_id: str) -> dict[str, Any]:
    response = await gateway.http.get(f"/v1/content/runs/{run_id}/post")
    assert response.status_code == 200, response.text
    post: dict[str, Any] = response.json()
    return post


def texts(post: dict[str, Any]) -> list[str]:
    return [section["text"] for section in post["sections"] if section["kind"] == "text"]


async def test_rewrite_section_2_then_regenerate_image_3_each_as_a_version_the_exports_hold_the_latest(
    gateway: Gateway,
) -> None:
    first = await finished_run(gateway)
    original = await post_of(gateway, first)

    own, own_events = await edited(gateway, first, action="rewrite_section", section=2, text=OWN_TEXT)
    spoken, spoken_events = await edited(gateway, own, action="rewrite_section", section=2, instruction="更口语一点")
    redrawn, _ = await edited(gateway, spoken, action="regenerate_image", image=3, instruction="换成俯拍")

    assert texts(await post_of(gateway, own))[1] == OWN_TEXT
    spoken_text = texts(await post_of(gateway, spoken))[1]
    assert spoken_text == OWN_TEXT.replace("因此", "所以").replace("您", "你")
    said = [event.data["data"]["message"] for event in spoken_events if event.event == "thought_log"]
    assert any("离线改写" in message for message in said), said
    latest = await post_of(gateway, redrawn)
    assert texts(latest)[1] == spoken_text and texts(original)[1] != spoken_text
    assert latest["imageUrls"][2] != original["imageUrls"][2]
    assert latest["imageUrls"][:2] == original["imageUrls"][:2]
    assert latest["creativeId"] == original["creativeId"] == own_events[-2].data["data"]["creativeId"]
    assert texts(await post_of(gateway, first)) == texts(original)  # the original run keeps version 1

    lists = [(await gateway.http.get(f"/v1/content/runs/{run}/versions")).json() for run in (first, spoken, redrawn)]
    assert lists[0] == {**lists[1], "runId": first} == {**lists[2], "runId": first}
    versions = lists[0]["versions"]
    assert [(v["version"], v["runId"], v["action"]) for v in versions] == [
        (1, first, "create"),
        (2, own, "rewrite_section"),
        (3, spoken, "rewrite_section"),
        (4, redrawn, "regenerate_image"),
    ]
    assert lists[0]["latest"] == redrawn and lists[0]["creativeId"] == original["creativeId"]
    assert all(v["status"] == "completed" and v["applied"] for v in versions)
    assert versions[3]["change"].startswith("第 3 张图") and versions[3]["baseRunId"] == spoken

    markdown = (await gateway.http.get(f"/v1/content/runs/{redrawn}/export.md")).text
    assert spoken_text in markdown and OWN_TEXT not in markdown
    bundle = await gateway.http.get(f"/v1/content/runs/{redrawn}/export.zip")
    old_image = (await gateway.http.get(original["imageUrls"][2])).content
    new_image = (await gateway.http.get(latest["imageUrls"][2])).content
    with zipfile.ZipFile(io.BytesIO(bundle.content)) as archive:
        assert archive.read(f"{redrawn}/images/3.png") == new_image != old_image
        assert spoken_text in archive.read(f"{redrawn}/post.md").decode()


async def test_an_instruction_the_offline_rewrite_does_not_understand_keeps_the_text_and_says_so(
    gateway: Gateway,
) -> None:
    first = await finished_run(gateway)
    before = texts(await post_of(gateway, first))[1]

    edit, events = await edited(gateway, first, action="rewrite_section", section=2, instruction="加一个比喻")

    assert texts(await post_of(gateway, edit))[1] == before
    warning = next(event.data["data"] for event in events if event.event == "thought_log")
    assert warning["level"] == "warning" and "离线改写" in warning["message"] and "保留原文" in warning["message"]
    version = (await gateway.http.get(f"/v1/content/runs/{edit}/versions")).json()["versions"][1]
    assert version["applied"] is False and "保留原文" in version["change"]


async def test_bad_edits_are_refused_with_codes(gateway: Gateway) -> None:
    first = await finished_run(gateway)
    empty = await finished_run(gateway, maxIterations=1)
    waiting = (
        await gateway.http.post(
            "/v1/runs", json={"workflow": "ContentSupervisorWorkflow", "input": {"topic": "咖啡"}}
        )  # no platform: the run waits for the user's answer
    ).json()["runId"]
    cases = [
        (first, {"action": "translate", "section": 1}, 422, "EDIT_INVALID"),
        (first, {"action": "rewrite_section", "section": 1}, 422, "EDIT_INVALID"),
        (first, {"action": "rewrite_section", "section": 2, "text": "a", "instruction": "b"}, 422, "EDIT_INVALID"),
        (first, {"action": "rewrite_section", "section": 99, "text": "新的一段"}, 422, "SECTION_NOT_FOUND"),
        (first, {"action": "rewrite_section", "section": 0, "text": "新的一段"}, 422, "SECTION_NOT_FOUND"),
        (first, {"action": "regenerate_image", "image": 99}, 422, "IMAGE_NOT_FOUND"),
        (first, {"action": "regenerate_image"}, 422, "EDIT_INVALID"),
        (empty, {"action": "rewrite_section", "section": 1, "text": "新的一段"}, 409, "POST_NOT_READY"),
        (waiting, {"action": "rewrite_section", "section": 1, "text": "新的一段"}, 409, "POST_NOT_READY"),
        ("content-0000000000000000", {"action": "regenerate_image", "image": 1}, 404, "RUN_NOT_FOUND"),
    ]
    for run_id, body, status, code in cases:
        response = await gateway.http.post(f"/v1/content/runs/{run_id}/edits", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), (body, response.text)
    await gateway.http.post(f"/v1/runs/{waiting}/cancel")


async def test_another_principal_gets_a_404_for_the_edits_and_the_versions(keyed: Gateway) -> None:
    keyed.http.headers.update(ALICE)
    first = await finished_run(keyed)
    edit, _ = await edited(keyed, first, action="rewrite_section", section=1, text="爱丽丝的新开头。")

    for run_id in (first, edit):
        versions = await keyed.http.get(f"/v1/content/runs/{run_id}/versions", headers=BOB)
        rewrite = await keyed.http.post(
            f"/v1/content/runs/{run_id}/edits", json={"action": "regenerate_image", "image": 1}, headers=BOB
        )
        export = await keyed.http.get(f"/v1/content/runs/{run_id}/export.md", headers=BOB)
        for response in (versions, rewrite, export):
            assert response.status_code == 404 and response.json()["error"]["code"] == "RUN_NOT_FOUND"
    assert len((await keyed.http.get(f"/v1/content/runs/{first}/versions")).json()["versions"]) == 2


async def test_restyle_writes_the_whole_text_again_in_the_new_tone_and_length_and_keeps_the_images(
    gateway: Gateway,
) -> None:
    first = await finished_run(gateway, length="long")
    original = await post_of(gateway, first)
    before = (await gateway.http.get(f"/v1/runs/{first}")).json()["state"]

    restyled, events = await edited(gateway, first, action="restyle", tone="轻松幽默", length="短")

    after = (await gateway.http.get(f"/v1/runs/{restyled}")).json()["state"]
    assert after["creativeBrief"]["tone"] == "轻松幽默"
    assert len(after["generatedContent"]["body"]) < len(before["generatedContent"]["body"])
    assert (await post_of(gateway, restyled))["imageUrls"] == original["imageUrls"]
    said = next(event.data["data"]["message"] for event in events if event.event == "thought_log")
    assert said.startswith("全文已重写（离线写作，未配置大模型）：语气「轻松幽默」，篇幅 短；共 "), said
    version = (await gateway.http.get(f"/v1/content/runs/{restyled}/versions")).json()["versions"][1]
    assert version["action"] == "restyle" and version["change"] == said
    for body, code in (
        ({"action": "restyle"}, "EDIT_INVALID"),
        ({"action": "restyle", "length": "巨长"}, "LENGTH_UNKNOWN"),
    ):
        response = await gateway.http.post(f"/v1/content/runs/{first}/edits", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (422, code), response.text


async def test_each_version_is_reviewed_again_and_one_past_the_platforms_length_is_not_approved(
    gateway: Gateway,
) -> None:
    first = await finished_run(gateway)
    original = await post_of(gateway, first)
    too_long = "咖啡因的半衰期约为五小时，下午喝的咖啡到半夜还有一半留在身体里。" * 50  # 1650 characters

    worse, events = await edited(gateway, first, action="rewrite_section", section=2, text=too_long)

    [review] = [event.data["data"] for event in events if event.event == "review_result"]
    post = await post_of(gateway, worse)
    assert post["qualityScores"] == review["scores"] != original["qualityScores"], "the new version's own scores"
    assert not post["approved"] and post["endReason"] == "edit_not_approved"
    assert post["endMessage"] == review["feedback"]["summary"]


@pytest.fixture
async def on_a_dev_server(
    dev_env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[Gateway]:
    """The gateway on a real Temporal server (the time-skipping one deletes no run)."""
    async with running_gateway(dev_env, tmp_path, api_style_store) as gateway:
        yield gateway


async def deleted(env: WorkflowEnvironment, *run_ids: str) -> None:
    """`run_ids` deleted as retention deletes closed runs, once the server no longer knows them (the dev server
    takes half a minute)."""
    service = env.client.workflow_service
    for run_id in run_ids:
        execution = WorkflowExecution(workflow_id=run_id)
        await service.delete_workflow_execution(
            DeleteWorkflowExecutionRequest(namespace=env.client.namespace, workflow_execution=execution)
        )
    for run_id in run_ids:
        for _ in range(1200):
            try:
                await env.client.get_workflow_handle(run_id).describe()
            except RPCError as err:
                assert err.status == RPCStatusCode.NOT_FOUND, err
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"{run_id} was not deleted")


async def test_a_post_whose_oldest_versions_were_deleted_lists_the_rest_and_an_edit_takes_the_next_number(
    on_a_dev_server: Gateway, dev_env: WorkflowEnvironment
) -> None:
    gateway = on_a_dev_server
    first = await finished_run(gateway)
    second, _ = await edited(gateway, first, action="rewrite_section", section=2, text=OWN_TEXT)
    third, _ = await edited(gateway, second, action="regenerate_image", image=1)
    await deleted(dev_env, first, second)  # retention deletes the oldest closed runs first

    listed = (await gateway.http.get(f"/v1/content/runs/{third}/versions")).json()
    fourth, _ = await edited(gateway, third, action="rewrite_section", section=2, text=OWN_TEXT + "再补一句。")
    relisted = (await gateway.http.get(f"/v1/content/runs/{fourth}/versions")).json()

    assert [(v["version"], v["runId"]) for v in listed["versions"]] == [(3, third)] and listed["complete"] is False
    assert fourth.endswith("-v4"), "not the deleted version 2's number again"
    assert [(v["version"], v["runId"]) for v in relisted["versions"]] == [(3, third), (4, fourth)]
    assert relisted["latest"] == fourth


async def test_the_versions_of_closed_runs_are_asked_of_a_worker_once(
    gateway: Gateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 50 #7: each listing queried every version's run, so twenty reads of a fifty-version post kept the
    workers too busy to answer some (503). A closed run's state is asked once; its description is still read."""
    first = await finished_run(gateway)
    second, _ = await edited(gateway, first, action="rewrite_section", section=2, text=OWN_TEXT)
    queried: list[str] = []
    real = runs.answered

    async def counted(handle: Any, query: str, result_type: Any) -> Any:
        queried.append(handle.id)
        return await real(handle, query, result_type)

    monkeypatch.setattr(content_export, "answered", counted)

    lists = [(await gateway.http.get(f"/v1/content/runs/{second}/versions")).json() for _ in range(3)]

    assert [v["runId"] for v in lists[0]["versions"]] == [first, second] and lists[1] == lists[2] == lists[0]
    assert queried.count(first) <= 1 and queried.count(second) <= 1, queried
