"""Follow-up changes on the app builder's page (issue 27 item 2), on the real stack with the model simulator as its
model: a run builds an app, the "change this app" box starts round 2 from it (streamed like any run), and the
rounds panel lists both rounds with their change counts, round 2's per-file diff (the text the diff API serves),
each round's zip and "use as base". While the run goes, what each agent writes shows as one text per agent (its
`content` events, a restart replacing its text), and the code a task's model writes as one text per task (live
only: `content_live`, under "<task id> · <agent>")."""

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import app_builder_stack, build_app, screenshot
from tests.simulator.server import Simulator
from tests.sse import parse_sse
from tests.stack_process import Stack
from tests.workflows.streaming import shown_text

TODO = "做一个待办事项应用：可以添加、完成和删除待办"
DARK_MODE = "add a dark mode toggle"


@pytest.fixture(scope="module")
def console_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The real stack for this module, its model the simulator (instant answers), checked without npm."""
    with app_builder_stack(tmp_path_factory, toolchain=False, simulator=Simulator()) as running:
        yield running


def test_a_follow_up_round_is_listed_with_its_diff_zip_and_use_as_base(
    page: Page, console_stack: Stack, tmp_path: Path
) -> None:
    build_app(page, TODO)
    rounds = page.locator(".ab-round")
    expect(rounds).to_have_count(1)
    first = rounds.first.get_attribute("data-run")
    expect(page.locator(".ab-base")).to_contain_text(f"Changes round 1 ({first})")

    page.get_by_label("What shall change?").fill(DARK_MODE)
    page.get_by_role("button", name="Apply change").click()

    expect(rounds).to_have_count(2)
    second = rounds.nth(1).get_attribute("data-run")
    assert second and second != first and page.url.endswith(second)
    listed = page.request.get(f"/v1/apps/runs/{second}/rounds").json()["rounds"]
    assert [r["runId"] for r in listed] == [first, second]
    changes = listed[1]["changes"]
    expected = f"{changes['added']} added · {changes['modified']} modified · {changes['removed']} removed"
    expect(rounds.nth(1).locator(".ab-changes")).to_have_text(expected)
    expect(rounds.nth(1).locator(".ab-round-message")).to_have_text(DARK_MODE)

    rounds.nth(1).get_by_role("button", name="Show diff").click()
    served = page.request.get(f"/v1/apps/runs/{second}/diff").json()["files"]
    files = rounds.nth(1).locator(".ab-diff > li")
    expect(files).to_have_count(len(served))
    assert files.evaluate_all("items => items.map(i => [i.dataset.path, i.dataset.status])") == [
        [f["path"], f["status"]] for f in served
    ]
    files.first.locator("summary").click()
    expect(files.first.locator("pre code")).to_have_text(served[0]["diff"])
    screenshot(page, "app_builder_rounds_diff", full_page=True)

    with page.expect_download() as downloading:
        rounds.first.get_by_role("button", name="Download round zip").click()
    saved = tmp_path / "round1.zip"
    downloading.value.save_as(saved)
    with zipfile.ZipFile(io.BytesIO(saved.read_bytes())) as archive:
        names = sorted(archive.namelist())
    listing = page.request.get(f"/v1/apps/runs/{first}/files").json()["files"]
    assert names == sorted(f"{first}/{f['path']}" for f in listing), "round 1's own project"

    rounds.first.get_by_role("button", name="Use as base").click()
    expect(page.locator(".ab-base")).to_contain_text(f"Changes round 1 ({first})")
    expect(rounds.first).to_have_attribute("data-base", "true")


def test_what_each_agent_writes_shows_as_one_text_per_agent(page: Page, console_stack: Stack) -> None:
    build_app(page, TODO)
    expect(page.locator(".ab-round")).to_have_count(1)
    run_id = page.locator(".ab-round").first.get_attribute("data-run")

    events = parse_sse(page.request.get(f"/v1/runs/{run_id}/events").text())
    written: dict[str, list[dict[str, object]]] = {}
    for event in events:
        if event.event == "content":
            piece = event.data["data"]
            written.setdefault(str(piece["agent"]), []).append(piece)
    assert {"product-manager", "planner"} <= set(written), sorted(written)
    expect(page.get_by_role("heading", name="What the agents are writing")).to_be_visible()
    blocks = page.locator(".agent-text-block")
    code_tag = page.locator(".tag", has_text=" · ")  # a task's code, live only: "<task id> · <agent>"
    expect(blocks.filter(has_not=code_tag)).to_have_count(len(written))
    for agent, pieces in written.items():
        block = blocks.filter(has=page.locator(".tag", has_text=agent), has_not=code_tag)
        expect(block.locator("pre.agent-text")).to_have_text(shown_text(pieces))
    code = blocks.filter(has=code_tag)
    for index in range(code.count()):
        expect(code.nth(index).locator("pre.agent-text")).to_contain_text("── ")  # a file's path, then its code
    screenshot(page, "app_builder_agent_texts", full_page=True)
