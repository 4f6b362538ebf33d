"""Issue 28's "lost updates" row: two editors read the same item, each changes it and writes it back. With the ETag
they read as `If-Match`, exactly one write wins and the other is refused with 412 `ITEM_CHANGED` naming the current
ETag, for every kind of item a project holds and the project itself; racing writes in one instant likewise."""

import asyncio

import pytest

from tests.api.conftest import Gateway

KINDS = [
    ("chapters", {"title": "雨夜", "content": "林舟推开门。"}, "content"),
    ("characters", {"name": "林舟", "description": "退役侦探"}, "description"),
    ("plot-loops", {"title": "玉佩", "description": "来历不明"}, "description"),
    ("style-samples", {"title": "冷", "text": "雨一直下。"}, "text"),
    ("world-notes", {"title": "码头", "content": "旧港区"}, "content"),
    ("relationships", {"source": "林舟", "target": "苏念", "kind": "搭档"}, "description"),
]


async def new_project(gateway: Gateway) -> str:
    response = await gateway.http.post("/v1/writing/projects", json={"name": "长夜"})
    assert response.status_code == 201, response.text
    project_id: str = response.json()["projectId"]
    return f"/v1/writing/projects/{project_id}"


@pytest.mark.parametrize(("kind", "body", "field"), KINDS)
async def test_two_editors_appending_to_the_same_item_lose_no_line(
    gateway: Gateway, kind: str, body: dict[str, str], field: str
) -> None:
    http = gateway.http
    base = await new_project(gateway)
    added = await http.post(f"{base}/{kind}", json=body)
    created = added.json()
    url = f"{base}/{kind}/{created[next(key for key in created if key.endswith('Id') and key != 'projectId')]}"
    first_read, second_read = await http.get(url), await http.get(url)
    tag = first_read.headers["etag"]

    def appended(read: dict[str, object], line: str) -> dict[str, object]:
        kept = {key: read[key] for key in body} | {field: f"{read.get(field, '')}\n{line}"}
        return kept

    first = await http.put(url, json=appended(first_read.json(), "第一位编辑的一行"), headers={"If-Match": tag})
    second = await http.put(
        url, json=appended(second_read.json(), "第二位编辑的一行"), headers={"If-Match": second_read.headers["etag"]}
    )

    assert added.headers["etag"] == tag == second_read.headers["etag"] == '"1"' and first_read.json()["version"] == 1
    assert first.status_code == 200 and first.headers["etag"] == '"2"'
    assert second.status_code == 412, second.text
    assert second.json()["error"]["code"] == "ITEM_CHANGED" and second.headers["etag"] == '"2"'
    assert "第一位编辑的一行" in (await http.get(url)).json()[field]
    stale_delete = await http.delete(url, headers={"If-Match": tag})
    assert stale_delete.status_code == 412 and (await http.get(url)).status_code == 200
    assert (await http.delete(url, headers={"If-Match": '"2"'})).status_code == 204


async def test_of_two_editors_racing_exactly_one_wins(gateway: Gateway) -> None:
    http = gateway.http
    base = await new_project(gateway)
    chapter = (await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开门。"})).json()
    url = f"{base}/chapters/{chapter['chapterId']}"

    answers = await asyncio.gather(
        *(
            http.put(url, json={"title": "雨夜", "content": f"第{n}位编辑的版本"}, headers={"If-Match": '"1"'})
            for n in range(6)
        )
    )

    assert sorted(answer.status_code for answer in answers) == [200] + [412] * 5
    assert (await http.get(url)).json()["version"] == 2


async def test_a_write_without_if_match_still_applies_and_a_bad_one_is_refused_with_a_code(gateway: Gateway) -> None:
    http = gateway.http
    base = await new_project(gateway)
    chapter = (await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "一"})).json()
    url = f"{base}/chapters/{chapter['chapterId']}"

    plain = await http.put(url, json={"title": "雨夜", "content": "二"})
    weak = await http.put(url, json={"title": "雨夜", "content": "三"}, headers={"If-Match": 'W/"2"'})
    garbage = await http.put(url, json={"title": "雨夜", "content": "四"}, headers={"If-Match": "yesterday"})

    assert plain.status_code == 200 and plain.json()["version"] == 2
    assert weak.status_code == 200 and weak.headers["etag"] == '"3"'
    assert garbage.status_code == 400 and garbage.json()["error"]["code"] == "INVALID_IF_MATCH"


async def test_deleting_a_project_that_changed_since_it_was_read_is_refused(gateway: Gateway) -> None:
    http = gateway.http
    base = await new_project(gateway)
    read = await http.get(base)
    await http.post(f"{base}/chapters", json={"title": "雨夜"})

    stale = await http.delete(base, headers={"If-Match": read.headers["etag"]})
    fresh = await http.delete(base, headers={"If-Match": (await http.get(base)).headers["etag"]})

    assert stale.status_code == 412 and stale.json()["error"]["code"] == "ITEM_CHANGED"
    assert fresh.status_code == 204


async def test_two_editors_reordering_from_the_same_chapter_list_the_second_is_refused(gateway: Gateway) -> None:
    http = gateway.http
    base = await new_project(gateway)
    for title in ("一", "二", "三"):
        await http.post(f"{base}/chapters", json={"title": title, "content": f"第{title}章。"})
    first_read, second_read = await http.get(f"{base}/chapters"), await http.get(f"{base}/chapters")
    tag = first_read.headers["etag"]
    assert tag == second_read.headers["etag"]
    ids = [chapter["chapterId"] for chapter in first_read.json()]

    first = await http.post(f"{base}/chapters/order", json={"chapterIds": ids[::-1]}, headers={"If-Match": tag})
    second = await http.post(
        f"{base}/chapters/order", json={"chapterIds": ids[1:] + ids[:1]}, headers={"If-Match": tag}
    )

    assert first.status_code == 200, first.text
    assert [c["title"] for c in first.json()] == ["三", "二", "一"]
    assert second.status_code == 412 and second.json()["error"]["code"] == "ITEM_CHANGED"
    assert second.headers["etag"] == first.headers["etag"] == (await http.get(f"{base}/chapters")).headers["etag"]
    assert [c["title"] for c in (await http.get(f"{base}/chapters")).json()] == ["三", "二", "一"], "the first stays"
    again = await http.post(
        f"{base}/chapters/order", json={"chapterIds": ids[1:] + ids[:1]}, headers={"If-Match": second.headers["etag"]}
    )
    assert again.status_code == 200 and [c["title"] for c in again.json()] == ["二", "三", "一"]
    await http.put(f"{base}/chapters/{ids[0]}", json={"title": "一", "content": "改过了。"})
    edited = await http.post(
        f"{base}/chapters/order", json={"chapterIds": ids}, headers={"If-Match": again.headers["etag"]}
    )
    assert edited.status_code == 412, "a chapter edited since the list was read changes the list's ETag"
    plain = await http.post(f"{base}/chapters/order", json={"chapterIds": ids})
    assert plain.status_code == 200, "without If-Match a reorder applies as before"
