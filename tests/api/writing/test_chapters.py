"""Issue 28 items 1 and 6 over HTTP: a chapter's versions (listed, read, diffed, restored), a writing run's draft
applied to a chapter or as a new one, the chapters reordered and numbered without gaps, and the manuscript exported
as Markdown and as an EPUB that `ebooklib` opens with the chapters in order."""

import io
import random
import zipfile
from pathlib import Path

from ebooklib import ITEM_DOCUMENT
from ebooklib import epub as ebook

from tests.api.conftest import Gateway

THREE = [("雨夜", "林舟推开门。\n雨下个不停。"), ("码头", "苏念在等。"), ("旧案", "卷宗发黄。")]


async def three_chapters(gateway: Gateway) -> tuple[str, list[str]]:
    http = gateway.http
    project = (await http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    ids = []
    for title, content in THREE:
        added = await http.post(f"{base}/chapters", json={"title": title, "content": content})
        assert added.status_code == 201, added.text
        ids.append(added.json()["chapterId"])
    return base, ids


async def test_every_write_keeps_a_version_that_can_be_read_diffed_and_restored(gateway: Gateway) -> None:
    http = gateway.http
    base, ids = await three_chapters(gateway)
    url = f"{base}/chapters/{ids[0]}"
    await http.put(url, json={"title": "雨夜", "content": "林舟推开门。\n雨停了。"}, headers={"If-Match": '"1"'})

    listed = (await http.get(f"{url}/versions")).json()
    first = (await http.get(f"{url}/versions/1")).json()
    diff = (await http.get(f"{url}/versions/2/diff", params={"against": 1})).json()
    stale = await http.post(f"{url}/versions/1/restore", headers={"If-Match": '"1"'})
    restored = await http.post(f"{url}/versions/1/restore", headers={"If-Match": '"2"'})
    missing = await http.get(f"{url}/versions/9")

    assert [(v["number"], v["source"], v["runId"]) for v in listed] == [(2, "manual", None), (1, "manual", None)]
    assert "content" not in listed[0] and listed[1]["chars"] == len(THREE[0][1])
    assert first["content"] == THREE[0][1]
    assert "-雨下个不停。" in diff["diff"] and "+雨停了。" in diff["diff"]
    assert stale.status_code == 412 and stale.json()["error"]["code"] == "ITEM_CHANGED"
    assert restored.status_code == 200 and restored.headers["etag"] == '"3"'
    assert restored.json()["content"] == THREE[0][1]
    newest = (await http.get(f"{url}/versions")).json()[0]
    assert (newest["number"], newest["source"], newest["restoredFrom"]) == (3, "restore", 1)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "CHAPTER_VERSION_NOT_FOUND"


async def test_chapters_reorder_and_a_delete_closes_the_gap(gateway: Gateway) -> None:
    http = gateway.http
    base, ids = await three_chapters(gateway)
    loop = {"title": "玉佩", "plantedInChapter": 2, "resolvedInChapter": 3}  # planted in 码头, resolved in 旧案
    loop_url = f"{base}/plot-loops/{(await http.post(f'{base}/plot-loops', json=loop)).json()['plotLoopId']}"

    reordered = await http.post(f"{base}/chapters/order", json={"chapterIds": [ids[2], ids[0], ids[1]]})
    loop_reordered = (await http.get(loop_url)).json()
    twice = await http.post(f"{base}/chapters/order", json={"chapterIds": [ids[2], ids[2], ids[1]]})
    partial = await http.post(f"{base}/chapters/order", json={"chapterIds": [ids[2], ids[0]]})
    deleted = await http.delete(f"{base}/chapters/{ids[0]}")
    after = (await http.get(f"{base}/chapters")).json()

    assert reordered.status_code == 200
    assert [(c["position"], c["title"]) for c in reordered.json()] == [(1, "旧案"), (2, "雨夜"), (3, "码头")]
    assert twice.status_code == partial.status_code == 422
    assert twice.json()["error"]["code"] == partial.json()["error"]["code"] == "CHAPTER_ORDER_INVALID"
    assert deleted.status_code == 204
    assert [(c["position"], c["title"]) for c in after] == [(1, "旧案"), (2, "码头")]
    assert (loop_reordered["plantedInChapter"], loop_reordered["resolvedInChapter"]) == (3, 1), "the chapters moved"
    loop_after = (await http.get(loop_url)).json()
    assert (loop_after["plantedInChapter"], loop_after["resolvedInChapter"]) == (2, 1)


async def finished_draft(gateway: Gateway, base: str) -> str:
    response = await gateway.http.post(f"{base}/chat", json={"text": "写一段林舟和苏念在码头的场景"})
    assert response.status_code == 200, response.text
    run_id: str = response.headers["x-run-id"]
    return run_id


async def test_a_finished_runs_draft_becomes_a_version_of_a_chapter_or_a_new_chapter(gateway: Gateway) -> None:
    http = gateway.http
    base, ids = await three_chapters(gateway)
    run_id = await finished_draft(gateway, base)
    draft = (await http.get(f"/v1/runs/{run_id}")).json()["state"]["result"]["text"]

    applied = await http.post(f"{base}/chapters/{ids[1]}/apply", json={"runId": run_id})
    versions = (await http.get(f"{base}/chapters/{ids[1]}/versions")).json()
    old = (await http.get(f"{base}/chapters/{ids[1]}/versions/1")).json()
    added = await http.post(f"{base}/chapters/apply", json={"runId": run_id, "title": "夜谈", "position": 2})
    chapters = (await http.get(f"{base}/chapters")).json()

    assert applied.status_code == 200, applied.text
    assert applied.json()["content"] == draft and applied.json()["title"] == "码头"
    assert [(v["number"], v["source"], v["runId"]) for v in versions] == [(2, "draft", run_id), (1, "manual", None)]
    assert old["content"] == THREE[1][1]
    assert added.status_code == 201 and added.json()["content"] == draft
    assert [(c["position"], c["title"]) for c in chapters] == [(1, "雨夜"), (2, "夜谈"), (3, "码头"), (4, "旧案")]
    first = (await http.get(f"{base}/chapters/{added.json()['chapterId']}/versions")).json()
    assert [(v["number"], v["source"], v["runId"]) for v in first] == [(1, "draft", run_id)]


async def test_a_draft_from_another_project_or_no_run_is_not_found(gateway: Gateway) -> None:
    http = gateway.http
    base, ids = await three_chapters(gateway)
    other, _ = await three_chapters(gateway)
    run_id = await finished_draft(gateway, other)

    elsewhere = await http.post(f"{base}/chapters/{ids[0]}/apply", json={"runId": run_id})
    nothing = await http.post(f"{base}/chapters/apply", json={"runId": "writing-0000000000000000"})
    empty = await http.post(f"{base}/chapters/{ids[0]}/apply", json={})

    assert elsewhere.status_code == nothing.status_code == 404
    assert elsewhere.json()["error"]["code"] == nothing.json()["error"]["code"] == "RUN_NOT_FOUND"
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "INVALID_REQUEST"


async def test_the_manuscript_exports_as_markdown_and_as_an_epub_with_the_chapters_in_order(
    gateway: Gateway, tmp_path: Path
) -> None:
    http = gateway.http
    base, ids = await three_chapters(gateway)
    await http.post(f"{base}/chapters/order", json={"chapterIds": [ids[1], ids[0], ids[2]]})

    markdown = await http.get(f"{base}/export.md")
    epub = await http.get(f"{base}/export.epub")
    path = tmp_path / "book.epub"
    path.write_bytes(epub.content)
    book = ebook.read_epub(str(path))
    pages = [book.get_item_with_id(item_id) for item_id, _ in book.spine]
    chapters = [page for page in pages if page.get_type() == ITEM_DOCUMENT and page.file_name.startswith("chapter")]

    assert markdown.status_code == 200 and markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text.index("## 码头") < markdown.text.index("## 雨夜") < markdown.text.index("## 旧案")
    assert markdown.text.startswith("# 长夜\n") and "苏念在等。" in markdown.text
    assert epub.status_code == 200 and epub.headers["content-type"] == "application/epub+zip"
    assert zipfile.ZipFile(io.BytesIO(epub.content)).read("mimetype") == b"application/epub+zip"
    assert book.get_metadata("DC", "title")[0][0] == "长夜" and book.get_metadata("DC", "language")[0][0] == "zh"
    assert [page.get_content().decode().split("<h1>")[1].split("</h1>")[0] for page in chapters] == [
        "码头",
        "雨夜",
        "旧案",
    ]
    assert [link.title for link in book.toc] == ["码头", "雨夜", "旧案"]
    assert "卷宗发黄。" in chapters[2].get_content().decode()


async def test_a_title_with_control_characters_still_exports_and_shows_where_they_were(
    gateway: Gateway, tmp_path: Path
) -> None:
    http = gateway.http
    project = (await http.post("/v1/writing/projects", json={"name": "长夜\x00", "genre": "悬疑"})).json()
    base = f"/v1/writing/projects/{project['projectId']}"
    chapter = {"title": "雨\x07夜\uffff", "content": "林舟推开\x1b门。\x0b苏念在等。"}
    assert (await http.post(f"{base}/chapters", json=chapter)).status_code == 201

    markdown = await http.get(f"{base}/export.md")
    epub = await http.get(f"{base}/export.epub")

    assert markdown.status_code == 200 and "## 雨\x07夜\uffff" in markdown.text  # as the writer wrote it
    assert epub.status_code == 200, epub.text
    path = tmp_path / "book.epub"
    path.write_bytes(epub.content)
    book = ebook.read_epub(str(path))
    [page] = [book.get_item_with_id(item_id) for item_id, _ in book.spine if item_id != "nav"]
    assert "<h1>雨\ufffd夜\ufffd</h1>" in page.get_content().decode()
    assert "林舟推开\ufffd门。" in page.get_content().decode()
    assert book.get_metadata("DC", "title")[0][0] == "长夜\ufffd"


async def test_the_diff_of_two_chapters_of_many_short_lines_is_one_bounded_hunk(gateway: Gateway) -> None:
    """Lines that repeat, but too few times each for difflib to skip them as junk: its matcher's worst case."""
    http = gateway.http
    base, ids = await three_chapters(gateway)
    url = f"{base}/chapters/{ids[0]}"
    rng = random.Random(50)
    lines = [chr(0x4E00 + rng.randrange(230)) for _ in range(48_000)]
    first, second = "\n".join(["开头", *lines[:24_000], "结尾"]), "\n".join(["开头", *lines[24_000:], "结尾"])
    for version, text in ((2, first), (3, second)):
        written = await http.put(url, json={"title": "雨夜", "content": text}, headers={"If-Match": f'"{version - 1}"'})
        assert written.status_code == 200, written.text

    diff = (await http.get(f"{url}/versions/3/diff", params={"against": 2})).json()["diff"].splitlines()

    assert diff[:3] == ["--- v2 雨夜", "+++ v3 雨夜", "@@ -1,24002 +1,24002 @@"]  # the shared ends, the rest replaced
    assert diff[3] == " 开头" and diff[4:4000] == ["-" + line for line in lines[:3996]]  # not aligned: replaced
    assert diff[-1] == "… (cut at 4000 lines)"  # as any diff this long
