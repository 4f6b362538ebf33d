"""The content studio in a real browser (seed 001): a run started from the page with a topic, notes and an uploaded
reference image draws the declared graph and moves its highlight from node to node as the events arrive (the
Supervisor, its agents, the clarification, the tool loop, the end); the platform question is answered inline, and
the finished post is previewed with its generated images, and copied or downloaded (text, Markdown, zip); the
layout, tone and length go from the form in the user's words; a finished post is edited (a section rewritten,
an image regenerated, the whole text restyled) and any of its versions opens."""

import io
import zipfile
from itertools import pairwise
from pathlib import Path

from playwright.sync_api import Page, expect

from imaging.rendering import encode_png, render_text_to_image
from tests.browser.conftest import screenshot
from tests.stack_process import Stack

RECORD_HIGHLIGHTS = """() => {
  const graph = document.querySelector('svg.cs-graph');
  window.__highlighted = [];
  new MutationObserver((records) => {
    for (const record of records) window.__highlighted.push(record.oldValue);
  }).observe(graph, { attributeFilter: ['data-current'], attributeOldValue: true });
}"""
"""Every node the graph highlighted, in order, however many changes one batch of events made: each change records
the value it replaced (the last one is read from the graph at the end)."""


def test_the_content_studio_highlights_nodes_as_they_run_and_previews_the_post(
    page: Page, console_stack: Stack, tmp_path: Path
) -> None:
    reference = tmp_path / "reference.png"
    reference.write_bytes(
        encode_png(render_text_to_image("赛博朋克 霓虹 夜景", seed=5, width=400, height=300, style_strength=0.9))
    )
    page.add_init_script("localStorage.setItem('console.lang', 'en')")
    page.goto("/#/content")
    mermaid = page.request.get("/v1/workflows/ContentSupervisorWorkflow/graph").text().splitlines()[1:]
    declared = [line.split("[")[0].split("{")[0].split("(")[0].strip() for line in mermaid if "-->" not in line]
    drawn = page.locator("svg.cs-graph g.cs-node")
    expect(drawn).to_have_count(len(declared))
    assert sorted(drawn.evaluate_all("nodes => nodes.map(n => n.dataset.node)")) == sorted(declared)
    assert page.locator("svg.cs-graph path.cs-edge").count() == sum("-->" in line for line in mermaid)
    expect(page.locator("svg.cs-graph .cs-node.active")).to_have_count(0)
    page.evaluate(RECORD_HIGHLIGHTS)

    page.get_by_label("Topic").fill("打工人的咖啡续命指南")
    page.get_by_label("Notes and figures (one per line, optional)").fill(
        "2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。\n营养师建议：每天咖啡因不超过 400 毫克。"
    )
    page.get_by_label("Reference images (optional)").set_input_files(str(reference))
    page.get_by_role("button", name="Create").click()

    # no platform given: the brief compiler asks, and the graph shows the run waiting at the clarification node
    question = page.locator(".question-card")
    expect(question.locator("button.option[data-option=weibo]")).to_be_visible()
    expect(page.locator("svg.cs-graph .cs-node.active")).to_have_attribute("data-node", "clarification")
    expect(page.locator(".cs-thumbs img")).to_have_count(1)
    screenshot(page, "content_studio_clarification")
    question.locator("button.option[data-option=weibo]").click()

    images = page.locator(".cs-post .cs-figure img")
    expect(images.first).to_be_visible()
    expect(page.locator("svg.cs-graph .cs-node.active")).to_have_attribute("data-node", "done")
    highlighted = [node for node in page.evaluate("window.__highlighted") if node] + ["done"]
    assert highlighted[:3] == ["supervisor", "brief_compiler_agent", "clarification"], highlighted
    for node in ["research_evidence_agent", "writer_agent", "image_agent", "image_tools", "review_agent", "finalize"]:
        assert node in highlighted, f"{node} was never highlighted: {highlighted}"
    assert all(a != b for a, b in pairwise(highlighted)), "each change moves the highlight"
    expect(page.locator("svg.cs-graph .cs-node.active")).to_have_count(1)
    visited = page.locator("svg.cs-graph .cs-node.visited").evaluate_all("nodes => nodes.map(n => n.dataset.node)")
    assert set(visited) == set(highlighted) - {"done"}

    run_id = page.url.rsplit("/", 1)[-1]
    post = page.request.get(f"/v1/content/runs/{run_id}/post").json()
    assert post["complete"] and post["imageUrls"]
    expect(images).to_have_count(len(post["imageUrls"]))
    assert images.evaluate_all("imgs => imgs.map(i => i.src)") == post["imageUrls"]
    images.last.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.cs-post .cs-figure img')].every(i => i.complete && i.naturalWidth > 0)"
    )
    expect(page.locator(".cs-post h3")).to_have_text(post["title"])
    state = page.request.get(f"/v1/runs/{run_id}").json()["state"]
    assert state["creativeBrief"]["platform"] == "weibo", "the answer clicked reached the run"
    assert len(state["referenceImages"]) == 1, "the uploaded reference went with the run"
    decisions = page.locator(".timeline-item[data-type='supervisor_decision'] .timeline-text").all_inner_texts()
    assert decisions[0].startswith("→ brief_compiler_agent ("), "the timeline shows where each decision routed"
    assert all(decision.startswith("→ ") for decision in decisions), decisions


def test_a_post_made_with_the_users_options_is_copied_as_the_platforms_text_and_downloaded(
    page: Page, console_stack: Stack, tmp_path: Path
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.add_init_script("localStorage.setItem('console.lang', 'en')")
    page.goto("/#/content")
    page.get_by_label("Topic").fill("打工人的咖啡续命指南")
    page.get_by_label("Platform").select_option("xiaohongshu")
    page.get_by_label("Layout (optional)").fill("图文交错")
    page.get_by_label("Tone (optional)").fill("轻松幽默")
    page.get_by_label("Length").select_option("short")
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".cs-post .cs-figure img").first).to_be_visible(timeout=20_000)
    run_id = page.url.rsplit("/", 1)[-1]
    state = page.request.get(f"/v1/runs/{run_id}").json()["state"]
    assert state["layoutSpec"]["layout"] == "alternating" and state["creativeBrief"]["tone"] == "轻松幽默"
    # Without notes the offline post is filler the review fails; it is shown with the reason, not as approved.
    expect(page.locator(".cs-post [role=note]")).to_contain_text("Not approved by the review: 离线模式无法改进")

    page.get_by_role("button", name="Copy text").click()
    expect(page.locator(".cs-export [role=status]")).to_have_text("Copied: title, body and hashtags")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.request.get(f"/v1/content/runs/{run_id}/export.txt").text()
    assert copied.startswith(page.locator(".cs-post h3").inner_text()) and "\n#" in copied
    with page.expect_download() as downloading:
        page.get_by_role("button", name="Download Markdown").click()
    assert downloading.value.suggested_filename == f"{run_id}.md"
    with page.expect_download() as downloading:
        page.get_by_role("button", name="Download zip (text and images)").click()
    saved = tmp_path / "post.zip"
    downloading.value.save_as(saved)
    with zipfile.ZipFile(io.BytesIO(saved.read_bytes())) as archive:
        assert archive.read(f"{run_id}/post.txt").decode() == copied
        assert f"{run_id}/images/1.png" in archive.namelist()


def test_a_finished_post_is_edited_section_by_section_and_image_by_image_and_any_version_opens(
    page: Page, console_stack: Stack
) -> None:
    page.add_init_script("localStorage.setItem('console.lang', 'en')")
    page.goto("/#/content")
    page.get_by_label("Topic").fill("打工人的咖啡续命指南")
    page.get_by_label("Platform").select_option("xiaohongshu")
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".cs-post .cs-figure img").first).to_be_visible(timeout=20_000)
    first = page.url.rsplit("/", 1)[-1]
    original = page.request.get(f"/v1/content/runs/{first}/post").json()

    second = page.locator(".cs-block").nth(1)
    second.get_by_role("button", name="Rewrite").click()
    second.get_by_label("Rewrite").select_option("text")
    second.locator("textarea").fill("我自己写的第二段。")
    second.get_by_role("button", name="Start").click()
    expect(page.locator(".cs-block").nth(1).locator("p")).to_have_text("我自己写的第二段。", timeout=20_000)
    rewritten = page.url.rsplit("/", 1)[-1]
    assert rewritten != first

    third = page.locator(".cs-figure").nth(2)
    third.get_by_role("button", name="Regenerate").click()
    third.locator("input").fill("换成俯拍")
    third.get_by_role("button", name="Start").click()
    expect(page.locator(".cs-version")).to_have_count(3, timeout=20_000)
    redrawn = page.url.rsplit("/", 1)[-1]
    latest = page.request.get(f"/v1/content/runs/{redrawn}/post").json()
    assert latest["imageUrls"][2] != original["imageUrls"][2]
    expect(page.locator(".cs-figure img").nth(2)).to_have_attribute("src", latest["imageUrls"][2])
    expect(page.locator(".cs-block").nth(1).locator("p")).to_have_text("我自己写的第二段。")
    screenshot(page, "content_studio_versions")

    page.get_by_label("New tone").fill("轻松幽默")
    page.get_by_label("New length").select_option("short")
    page.locator(".cs-restyle").get_by_role("button", name="Start").click()
    expect(page.locator(".cs-version")).to_have_count(4, timeout=20_000)
    restyled = page.url.rsplit("/", 1)[-1]
    assert page.request.get(f"/v1/runs/{restyled}").json()["state"]["creativeBrief"]["tone"] == "轻松幽默"

    page.locator(f".cs-version[data-run-id='{first}']").get_by_role("button", name="Open").click()
    expect(page.locator(".cs-block").nth(1).locator("p")).not_to_have_text("我自己写的第二段。")
    expect(page.locator(".cs-figure img").nth(2)).to_have_attribute("src", original["imageUrls"][2])
    assert page.url.endswith(first)
