"""The writers' projects over HTTP with `WRITING_DB_URL` set (a fresh database on the session's throwaway
PostgreSQL): a project and a chapter are created, and of two edits sent at once that name the same version
(`If-Match`), exactly one applies and the other is refused with 412 `ITEM_CHANGED`, as on SQLite; nothing is
written under `DATA_DIR/writing`."""

import asyncio
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import running_gateway


async def test_of_two_edits_of_one_version_one_applies_and_one_is_refused(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, postgres_database: str
) -> None:
    async with running_gateway(env, tmp_path, api_style_store, writing_db_url=postgres_database) as gateway:
        http = gateway.http
        created = await http.post("/v1/writing/projects", json={"name": "长夜"})
        project = created.json()["projectId"]
        added = await http.post(
            f"/v1/writing/projects/{project}/chapters", json={"title": "雨夜", "content": "门开了。"}
        )
        url = f"/v1/writing/projects/{project}/chapters/{added.json()['chapterId']}"

        answers = await asyncio.gather(
            *(http.put(url, json={"title": "雨夜", "content": text}, headers={"If-Match": '"1"'}) for text in "甲乙")
        )
        now = await http.get(url)

    assert (created.status_code, added.status_code) == (201, 201)
    assert sorted(a.status_code for a in answers) == [200, 412]
    (refused,) = [a for a in answers if a.status_code == 412]
    (applied,) = [a for a in answers if a.status_code == 200]
    assert refused.json()["error"]["code"] == "ITEM_CHANGED" and refused.headers["etag"] == '"2"'
    assert now.headers["etag"] == '"2"' and now.json()["content"] == applied.json()["content"]
    assert not (tmp_path / "writing").exists(), "the projects and turns are in PostgreSQL, not under DATA_DIR"
