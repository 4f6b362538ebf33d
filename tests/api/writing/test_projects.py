"""Req 10 of issue 8 (the writer's project): projects, chapters, characters, plot loops, style samples, world notes
and relationships over HTTP, owned by their principal, bounded, counted in the project's revision, and kept across
a restart of the gateway."""

from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, BOB, KEYS, Gateway, running_gateway


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
        "revision": 6,
        "chapters": 2,
        "characters": 1,
        "plotLoops": 0,
        "styleSamples": 0,
        "worldNotes": 0,
        "relationships": 0,
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
        ("POST", f"{base}/plot-loops", {"title": "玉佩", "status": "closed"}),
        ("POST", f"{base}/plot-loops", {"title": "玉佩", "plantedInChapter": 5, "resolvedInChapter": 2}),
        ("POST", f"{base}/plot-loops", {"title": "玉佩", "plantedInChapter": 0}),
        ("POST", f"{base}/plot-loops", {"title": "玉佩", "plantedInChapter": 2**63}),
        ("POST", f"{base}/style-samples", {"title": "空的", "text": ""}),
        ("POST", f"{base}/style-samples", {"title": "太长", "text": "字" * 20_001}),
        ("POST", f"{base}/world-notes", {"content": "没有标题"}),
        ("POST", f"{base}/world-notes", {"title": "城", "content": "x", "tags": ["多余"]}),
        ("POST", f"{base}/relationships", {"source": "林舟", "target": " 林舟 ", "kind": "自己"}),
        ("POST", f"{base}/relationships", {"source": "林舟", "target": "苏念", "kind": "师" * 101}),
        ("POST", f"{base}/relationships", {"source": "  ", "target": "苏念", "kind": "师徒"}),
    ]
    for method, path, body in cases:
        response = await http.request(method, path, json=body)
        assert response.status_code == 422, (path, body)
        assert response.json()["error"]["code"] == "INVALID_REQUEST"

    assert len((await http.get("/v1/writing/projects")).json()) == 1
    for kind in ("chapters", "characters", "plot-loops", "style-samples", "world-notes", "relationships"):
        assert (await http.get(f"{base}/{kind}")).json() == [], kind
    assert (await http.get(base)).json()["revision"] == 0
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


async def test_a_full_length_style_sample_fits_the_body_limit(gateway: Gateway) -> None:
    project = await create_project(gateway)

    response = await gateway.http.post(
        f"/v1/writing/projects/{project}/style-samples",
        content=('{"title": "长样本", "text": "' + "\\u5b57" * 20_000 + '"}').encode(),  # 120 000 bytes
        headers={"content-type": "application/json"},
    )

    assert response.status_code == 201, response.text[:200]
    assert response.json()["text"] == "字" * 20_000


ITEM_KINDS = [
    pytest.param(
        "plot-loops",
        "plotLoopId",
        {"title": "玉佩", "description": "来历不明", "plantedInChapter": 3},
        {
            "title": "玉佩",
            "description": "是林家的",
            "status": "resolved",
            "plantedInChapter": 3,
            "resolvedInChapter": 9,
        },
        "PLOT_LOOP_NOT_FOUND",
        id="plot-loops",
    ),
    pytest.param(
        "style-samples",
        "styleSampleId",
        {"title": "开篇", "text": "雨下了一整夜。"},
        {"title": "开篇", "text": "雨停了。"},
        "STYLE_SAMPLE_NOT_FOUND",
        id="style-samples",
    ),
    pytest.param(
        "world-notes",
        "worldNoteId",
        {"title": "临江城", "content": "终年多雨"},
        {"title": "临江城", "content": "终年多雨的港城"},
        "WORLD_NOTE_NOT_FOUND",
        id="world-notes",
    ),
    pytest.param(
        "relationships",
        "relationshipId",
        {"source": "林舟", "target": "苏念", "kind": "师徒"},
        {"source": "林舟", "target": "苏念", "kind": "仇人", "description": "师父杀了她父亲"},
        "RELATIONSHIP_NOT_FOUND",
        id="relationships",
    ),
]


@pytest.mark.parametrize(("kind", "id_field", "created", "changed", "not_found"), ITEM_KINDS)
async def test_an_item_of_each_kind_can_be_added_read_changed_and_deleted(
    gateway: Gateway, kind: str, id_field: str, created: dict[str, Any], changed: dict[str, Any], not_found: str
) -> None:
    http = gateway.http
    project = await create_project(gateway)
    base = f"/v1/writing/projects/{project}/{kind}"

    added = await http.post(base, json=created)
    item_id = added.json()[id_field]
    updated = await http.put(f"{base}/{item_id}", json=changed)
    read = (await http.get(f"{base}/{item_id}")).json()
    listed = (await http.get(base)).json()
    counted = (await http.get(f"/v1/writing/projects/{project}")).json()
    deleted = await http.delete(f"{base}/{item_id}")
    gone = await http.get(f"{base}/{item_id}")
    missing = await http.put(f"{base}/{item_id}", json=changed)

    assert added.status_code == 201, added.text
    assert added.json() | created == added.json() and added.json()["projectId"] == project
    assert updated.status_code == 200 and updated.json() | changed == updated.json()
    assert read == updated.json() and listed == [read]
    assert counted[id_field.removesuffix("Id") + "s"] == 1
    assert deleted.status_code == 204 and (await http.get(base)).json() == []
    assert gone.status_code == 404 and gone.json()["error"]["code"] == not_found
    assert missing.status_code == 404 and missing.json()["error"]["code"] == not_found
    assert (await http.delete(f"{base}/{item_id}")).json()["error"]["code"] == not_found


async def test_a_relationship_is_added_once_per_pair_then_changed(gateway: Gateway) -> None:
    http = gateway.http
    project = await create_project(gateway)
    base = f"/v1/writing/projects/{project}/relationships"

    added = await http.post(base, json={"source": "林舟", "target": "苏念", "kind": "师徒"})
    changed = await http.post(base, json={"source": "苏念", "target": "林舟", "kind": "仇人", "description": "旧仇"})
    other = await http.post(base, json={"source": "林舟", "target": "老周", "kind": "旧识"})
    moved = await http.put(
        f"{base}/{other.json()['relationshipId']}", json={"source": "林舟", "target": "苏念", "kind": "同伴"}
    )

    assert (added.status_code, changed.status_code, other.status_code) == (201, 200, 201)
    assert changed.json() | {"updatedAt": None} == {
        "relationshipId": added.json()["relationshipId"],
        "projectId": project,
        "source": "苏念",
        "target": "林舟",
        "kind": "仇人",
        "description": "旧仇",
        "updatedAt": None,
        "version": 2,
        "origin": "writer",
        "sourceRunId": None,
    }
    assert moved.status_code == 409 and moved.json()["error"]["code"] == "RELATIONSHIP_EXISTS"
    assert [(r["source"], r["target"], r["kind"]) for r in (await http.get(base)).json()] == [
        ("林舟", "老周", "旧识"),
        ("苏念", "林舟", "仇人"),
    ]


async def test_the_revision_goes_up_with_each_edit_and_not_with_reads(gateway: Gateway) -> None:
    http = gateway.http
    project = await create_project(gateway)
    base = f"/v1/writing/projects/{project}"

    async def revision() -> int:
        value: int = (await http.get(base)).json()["revision"]
        return value

    seen = [await revision()]
    chapter = (await http.post(f"{base}/chapters", json={"title": "雨夜"})).json()["chapterId"]
    seen.append(await revision())
    await http.put(f"{base}/chapters/{chapter}", json={"title": "雨夜", "content": "门开了。"})
    seen.append(await revision())
    loop = (await http.post(f"{base}/plot-loops", json={"title": "玉佩"})).json()["plotLoopId"]
    seen.append(await revision())
    await http.put(f"{base}/plot-loops/{loop}", json={"title": "玉佩", "status": "resolved"})
    seen.append(await revision())
    await http.post(f"{base}/relationships", json={"source": "林舟", "target": "苏念", "kind": "师徒"})
    seen.append(await revision())
    await http.delete(f"{base}/plot-loops/{loop}")
    seen.append(await revision())
    for path in ("", "/chapters", f"/chapters/{chapter}", "/plot-loops", "/relationships", "/world-notes"):
        assert (await http.get(f"{base}{path}")).status_code == 200
    await http.post(f"{base}/relationships", json={"source": "林舟", "target": "苏念", "kind": "师徒"})  # the same
    await http.put(f"{base}/world-notes/note_nope", json={"title": "没有这条"})
    seen.append(await revision())

    assert seen == [0, 1, 2, 3, 4, 5, 6, 6]


async def test_another_principal_cannot_see_or_touch_a_project(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    async with running_gateway(env, tmp_path, api_style_store, api_keys=KEYS) as keyed:
        project = await create_project(keyed, **ALICE)
        base = f"/v1/writing/projects/{project}"
        chapter = (await keyed.http.post(f"{base}/chapters", json={"title": "t"}, headers=ALICE)).json()["chapterId"]
        loop = (await keyed.http.post(f"{base}/plot-loops", json={"title": "玉佩"}, headers=ALICE)).json()["plotLoopId"]
        relationship = {"source": "林舟", "target": "苏念", "kind": "师徒"}
        bond = (await keyed.http.post(f"{base}/relationships", json=relationship, headers=ALICE)).json()
        bond = bond["relationshipId"]
        revision = (await keyed.http.get(base, headers=ALICE)).json()["revision"]

        for method, path, body in [
            ("GET", base, None),
            ("GET", f"{base}/chapters", None),
            ("POST", f"{base}/chapters", {"title": "偷偷加的"}),
            ("GET", f"{base}/chapters/{chapter}", None),
            ("PUT", f"{base}/chapters/{chapter}", {"title": "改掉"}),
            ("DELETE", f"{base}/chapters/{chapter}", None),
            ("POST", f"{base}/characters", {"name": "x"}),
            ("GET", f"{base}/plot-loops", None),
            ("POST", f"{base}/plot-loops", {"title": "x"}),
            ("PUT", f"{base}/plot-loops/{loop}", {"title": "改掉"}),
            ("DELETE", f"{base}/plot-loops/{loop}", None),
            ("POST", f"{base}/style-samples", {"title": "x", "text": "y"}),
            ("GET", f"{base}/world-notes", None),
            ("POST", f"{base}/world-notes", {"title": "x"}),
            ("GET", f"{base}/relationships", None),
            ("POST", f"{base}/relationships", {"source": "林舟", "target": "苏念", "kind": "仇人"}),
            ("GET", f"{base}/relationships/{bond}", None),
            ("DELETE", f"{base}/relationships/{bond}", None),
        ]:
            response = await keyed.http.request(method, path, json=body, headers=BOB)
            assert response.status_code == 404, (method, path)
            assert response.json()["error"]["code"] == "PROJECT_NOT_FOUND"
        assert (await keyed.http.get("/v1/writing/projects", headers=BOB)).json() == []
        assert (await keyed.http.get(f"{base}/chapters/{chapter}", headers=ALICE)).json()["title"] == "t"
        assert (await keyed.http.get(f"{base}/plot-loops/{loop}", headers=ALICE)).json()["title"] == "玉佩"
        assert (await keyed.http.get(f"{base}/relationships/{bond}", headers=ALICE)).json()["kind"] == "师徒"
        assert (await keyed.http.get(base, headers=ALICE)).json()["revision"] == revision
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


async def test_projects_and_chapters_stop_at_their_limits_with_clear_422s(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    """Issue 50 #6: nothing bounded a project, and three exports of 150 chapters of 100 000 characters took the
    gateway from 366 to 715 MB."""
    async with running_gateway(
        env, tmp_path, api_style_store, max_projects_per_principal=2, max_chapters_per_project=2
    ) as gateway:
        http = gateway.http
        projects = [await http.post("/v1/writing/projects", json={"name": f"第{n}部"}) for n in range(3)]
        base = f"/v1/writing/projects/{projects[0].json()['projectId']}"
        chapters = [await http.post(f"{base}/chapters", json={"title": f"第{n}章"}) for n in range(3)]
        listed = (await http.get(f"{base}/chapters")).json()
        await http.delete(f"{base}/chapters/{listed[0]['chapterId']}")
        after_delete = await http.post(f"{base}/chapters", json={"title": "新的一章"})

    assert [r.status_code for r in projects] == [201, 201, 422]
    assert projects[2].json()["error"]["code"] == "PROJECT_LIMIT_REACHED"
    assert [r.status_code for r in chapters] == [201, 201, 422]
    assert (
        chapters[2].json()["error"]["code"] == "CHAPTER_LIMIT_REACHED" and "2" in chapters[2].json()["error"]["message"]
    )
    assert len(listed) == 2 and after_delete.status_code == 201  # a place freed is a place
