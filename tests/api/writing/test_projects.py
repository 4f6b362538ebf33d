"""Req 10 of issue 8 (the writer's project): projects, chapters and characters over HTTP, owned by their
principal, bounded, and kept across a restart of the gateway."""

import hashlib
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway

ALICE = {"authorization": "Bearer alice-key"}
BOB = {"authorization": "Bearer bob-key"}
KEYS = f"alice=alice-key,bob=sha256:{hashlib.sha256(b'bob-key').hexdigest()}"


async def create_project(gateway: Gateway, name: str = "长夜", **headers: str) -> str:
    response = await gateway.http.post("/v1/writing/projects", json={"name": name, "genre": "悬疑"}, headers=headers)
    assert response.status_code == 201, response.text
    project_id: str = response.json()["projectId"]
    return project_id


async def test_a_project_gets_chapters_and_characters_that_can_be_read_changed_and_deleted(gateway: Gateway) -> None:
    http = gateway.http
    project = await create_project(gateway)
    base = f"/v1/writing/projects/{project}"

    first = (await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开门。"})).json()
    second = (await http.post(f"{base}/chapters", json={"title": "码头", "content": "苏念在等。"})).json()
    lin = (await http.post(f"{base}/characters", json={"name": "林舟", "description": "退役侦探"})).json()
    await http.post(f"{base}/characters", json={"name": "苏念", "description": "记者"})
    changed = await http.put(
        f"{base}/chapters/{first['chapterId']}", json={"title": "雨夜", "content": "林舟没有开门。"}
    )
    deleted = await http.delete(f"{base}/characters/{lin['characterId']}")

    assert [first["position"], second["position"]] == [1, 2]
    assert changed.status_code == 200 and changed.json()["content"] == "林舟没有开门。"
    assert deleted.status_code == 204
    assert [c["name"] for c in (await http.get(f"{base}/characters")).json()] == ["苏念"]
    assert [c["title"] for c in (await http.get(f"{base}/chapters")).json()] == ["雨夜", "码头"]
    summary = (await http.get(base)).json()
    assert summary | {"createdAt": None} == {
        "projectId": project,
        "name": "长夜",
        "genre": "悬疑",
        "createdAt": None,
        "chapters": 2,
        "characters": 1,
    }
    gone = await http.get(f"{base}/characters/{lin['characterId']}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "CHARACTER_NOT_FOUND"


async def test_bad_project_input_gets_a_code_and_stores_nothing(gateway: Gateway) -> None:
    http = gateway.http
    project = await create_project(gateway)
    base = f"/v1/writing/projects/{project}"

    cases = [
        ("POST", "/v1/writing/projects", {"name": ""}),
        ("POST", "/v1/writing/projects", {"name": "x", "owner": "bob"}),
        ("POST", f"{base}/chapters", {"content": "没有标题"}),
        ("POST", f"{base}/chapters", {"title": "太长", "content": "字" * 100_001}),
        ("POST", f"{base}/characters", {"name": "x" * 201}),
    ]
    for method, path, body in cases:
        response = await http.request(method, path, json=body)
        assert response.status_code == 422, (path, body)
        assert response.json()["error"]["code"] == "INVALID_REQUEST"

    assert len((await http.get("/v1/writing/projects")).json()) == 1
    assert (await http.get(f"{base}/chapters")).json() == []
    missing = await http.post("/v1/writing/projects/proj_nope/chapters", json={"title": "t"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "PROJECT_NOT_FOUND"


async def test_a_full_length_chapter_fits_the_body_limit(gateway: Gateway) -> None:
    project = await create_project(gateway)
    content = "字" * 100_000  # sent with every character escaped: 600 000 bytes

    response = await gateway.http.post(
        f"/v1/writing/projects/{project}/chapters",
        content=('{"title": "长章", "content": "' + "\\u5b57" * 100_000 + '"}').encode(),
        headers={"content-type": "application/json"},
    )

    assert response.status_code == 201, response.text[:200]
    assert response.json()["content"] == content


async def test_another_principal_cannot_see_or_touch_a_project(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    async with running_gateway(env, tmp_path, api_style_store, api_keys=KEYS) as keyed:
        project = await create_project(keyed, **ALICE)
        base = f"/v1/writing/projects/{project}"
        chapter = (await keyed.http.post(f"{base}/chapters", json={"title": "t"}, headers=ALICE)).json()["chapterId"]

        for method, path, body in [
            ("GET", base, None),
            ("GET", f"{base}/chapters", None),
            ("POST", f"{base}/chapters", {"title": "偷偷加的"}),
            ("GET", f"{base}/chapters/{chapter}", None),
            ("PUT", f"{base}/chapters/{chapter}", {"title": "改掉"}),
            ("DELETE", f"{base}/chapters/{chapter}", None),
            ("POST", f"{base}/characters", {"name": "x"}),
        ]:
            response = await keyed.http.request(method, path, json=body, headers=BOB)
            assert response.status_code == 404, (method, path)
            assert response.json()["error"]["code"] == "PROJECT_NOT_FOUND"
        assert (await keyed.http.get("/v1/writing/projects", headers=BOB)).json() == []
        assert (await keyed.http.get(f"{base}/chapters/{chapter}", headers=ALICE)).json()["title"] == "t"
        assert (await keyed.http.get("/v1/writing/projects")).status_code == 401


async def test_projects_survive_a_restart_of_the_gateway(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    async with running_gateway(env, tmp_path, api_style_store) as before:
        project = await create_project(before)
        await before.http.post(f"/v1/writing/projects/{project}/characters", json={"name": "林舟"})

    async with running_gateway(env, tmp_path, api_style_store) as after:
        characters = (await after.http.get(f"/v1/writing/projects/{project}/characters")).json()

    assert [c["name"] for c in characters] == ["林舟"]
