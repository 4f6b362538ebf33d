"""A finished post, exported over HTTP (issue 29 item 4): the copy-ready text for Xiaohongshu (title, body,
`#话题` tags), the Markdown (title, sections, images as relative links with alt text) and the zip of both and the
images (the very images the post serves), capped with a clear error; a run that still works or ended without a
post is 409 with a code."""

import io
import re
import zipfile
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.sse import parse_sse

TOPIC = "打工人的咖啡续命指南"
NOTES = ["2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。", "营养师建议：每天咖啡因不超过 400 毫克。"]
IMAGE_LINK = re.compile(r"!\[([^\]]+)\]\((images/\d+\.png)\)")


async def finished_run(gateway: Gateway, **fields: object) -> str:
    body = {"topic": TOPIC, "platform": "xiaohongshu", "evidence": NOTES, **fields}
    response = await gateway.http.post("/v1/content/runs", json=body)
    assert response.status_code == 200, response.text
    assert parse_sse(response.text)[-1].event == "done"
    run_id: str = response.headers["x-run-id"]
    return run_id


async def test_a_finished_post_exports_as_text_markdown_and_a_zip_of_both_and_its_images(gateway: Gateway) -> None:
    run_id = await finished_run(gateway)
    post = (await gateway.http.get(f"/v1/content/runs/{run_id}/post")).json()
    state = (await gateway.http.get(f"/v1/runs/{run_id}")).json()["state"]

    text = await gateway.http.get(f"/v1/content/runs/{run_id}/export.txt")
    markdown = await gateway.http.get(f"/v1/content/runs/{run_id}/export.md")
    bundle = await gateway.http.get(f"/v1/content/runs/{run_id}/export.zip")

    assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain")
    tags = " ".join(f"#{tag}" for tag in post["hashtags"])
    assert post["hashtags"] and text.text == f"{post['title']}\n\n{state['generatedContent']['body']}\n\n{tags}\n"
    assert markdown.status_code == 200 and markdown.text.startswith(f"# {post['title']}\n")
    headings = [section["heading"] for section in post["sections"] if section.get("heading")]
    assert all(f"## {heading}" in markdown.text for heading in headings)
    links = IMAGE_LINK.findall(markdown.text)
    assert [name for _, name in links] == [f"images/{n}.png" for n in range(1, len(post["imageUrls"]) + 1)]
    assert all(alt.strip() for alt, _ in links) and links[0][0].startswith("封面")
    assert bundle.status_code == 200 and bundle.headers["content-type"] == "application/zip"
    assert bundle.headers["content-disposition"] == f'attachment; filename="{run_id}.zip"'
    with zipfile.ZipFile(io.BytesIO(bundle.content)) as archive:
        assert archive.read(f"{run_id}/post.md").decode() == markdown.text
        assert archive.read(f"{run_id}/post.txt").decode() == text.text
        for (_, name), url in zip(links, post["imageUrls"], strict=True):
            assert archive.read(f"{run_id}/{name}") == (await gateway.http.get(url)).content


async def test_a_run_that_works_or_ended_without_a_post_has_nothing_to_export(gateway: Gateway) -> None:
    waiting = (
        await gateway.http.post("/v1/runs", json={"workflow": "ContentSupervisorWorkflow", "input": {"topic": TOPIC}})
    ).json()["runId"]  # no platform: the run waits for the user's answer
    for _ in range(100):
        if (await gateway.http.get(f"/v1/runs/{waiting}")).json()["awaitingInput"]:
            break
    early = await gateway.http.get(f"/v1/content/runs/{waiting}/export.md")
    await gateway.http.post(f"/v1/runs/{waiting}/cancel")
    empty = await finished_run(gateway, maxIterations=1)

    assert early.status_code == 409 and early.json()["error"]["code"] == "POST_NOT_READY"
    for kind in ("txt", "md", "zip"):
        response = await gateway.http.get(f"/v1/content/runs/{empty}/export.{kind}")
        assert response.status_code == 409 and response.json()["error"]["code"] == "POST_EMPTY", response.text


async def test_a_zip_over_the_cap_is_refused_with_a_code(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    async with running_gateway(env, tmp_path, api_style_store, content_export_max_bytes=4096) as gateway:
        run_id = await finished_run(gateway)
        bundle = await gateway.http.get(f"/v1/content/runs/{run_id}/export.zip")
        markdown = await gateway.http.get(f"/v1/content/runs/{run_id}/export.md")

    assert bundle.status_code == 413 and bundle.json()["error"]["code"] == "EXPORT_TOO_LARGE"
    assert "4096" in bundle.json()["error"]["message"] and markdown.status_code == 200
