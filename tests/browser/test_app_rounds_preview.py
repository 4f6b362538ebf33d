"""Issue 27's done-when in a real browser, on the real stack with the model simulator as its model and a model
that writes a real project (`ProjectAuthor`), the toolchain on: a todo app, then "add a dark mode toggle" from it
in the "change this app" box. Round 2 changes what the toggle needs (App.tsx and styles.css modified,
ThemeToggle.tsx added) and keeps every other file, passes quality with the type check and the build, and its
preview loads in the console's sandboxed frame, where the toggle works; the rounds panel lists both rounds with
round 2's per-file diff. Screenshot: `test-artifacts/app_builder_rounds_preview.png`."""

from collections.abc import Iterator
from dataclasses import replace

import pytest
from playwright.sync_api import Page, expect

from tests.api.app_builder.project_author import DARK_MODE, TODO_APP, project_files, todo_then_dark_mode
from tests.browser.conftest import app_builder_stack, screenshot
from tests.simulator.server import Simulator
from tests.stack_process import Stack

pytestmark = pytest.mark.toolchain

TODO = "做一个待办事项应用：可以添加、完成和删除待办"
CHANGE = "add a dark mode toggle"
RUN_S = 300_000
"""Milliseconds a round may take here: four documents, a plan, its tasks and an npm install, type check and build."""


@pytest.fixture(scope="module")
def console_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The real stack, its model the simulator (instant answers) whose `write_file` calls carry the todo app and its
    dark mode, the toolchain on."""
    simulator = Simulator()
    simulator.style = replace(simulator.style, tool_author=todo_then_dark_mode())
    with app_builder_stack(tmp_path_factory, toolchain=True, simulator=simulator) as running:
        yield running


def test_issue_27_a_dark_mode_round_changes_what_it_must_and_its_preview_works(
    page: Page, console_stack: Stack
) -> None:
    page.add_init_script("if (self === top) localStorage.setItem('console.lang', 'en')")
    page.goto("/#/apps")
    page.get_by_label("What app shall we build?").fill(TODO)
    page.get_by_role("button", name="Build").click()
    app = page.frame_locator("iframe.ab-preview-frame")
    expect(app.get_by_role("heading", name="Todo")).to_be_visible(timeout=RUN_S)
    first = page.url.rsplit("/", 1)[-1]

    page.get_by_label("What shall change?").fill(CHANGE)
    page.get_by_role("button", name="Apply change").click()
    rounds = page.locator(".ab-round")
    expect(rounds).to_have_count(2, timeout=RUN_S)
    toggle = app.get_by_role("button", name="Dark mode")
    expect(toggle).to_be_visible(timeout=RUN_S)
    second = page.url.rsplit("/", 1)[-1]
    assert second != first

    state = page.request.get(f"/v1/runs/{second}").json()["state"]
    assert state["success"] and state["quality"][-1]["passed"], state["quality"][-1]
    assert {"typecheck", "build"} <= set(state["quality"][-1]["checksRun"])
    diff = page.request.get(f"/v1/apps/runs/{second}/diff").json()["files"]
    assert sorted((f["path"], f["status"]) for f in diff) == [
        ("src/App.tsx", "modified"),
        ("src/components/ThemeToggle.tsx", "added"),
        ("src/styles.css", "modified"),
    ]
    for path, text in project_files(TODO_APP).items():
        if path not in project_files(DARK_MODE):
            assert page.request.get(f"/v1/apps/runs/{second}/files/{path}").text() == text, f"{path} kept"

    rounds.nth(1).get_by_role("button", name="Show diff").click()
    shown = rounds.nth(1).locator(".ab-diff > li")
    expect(shown).to_have_count(3)
    expect(rounds.nth(1).locator(".ab-changes")).to_have_text("1 added · 2 modified · 0 removed")

    toggle.click()
    expect(app.get_by_role("button", name="Light mode")).to_be_visible()
    expect(app.locator("html")).to_have_attribute("data-theme", "dark")
    screenshot(page, "app_builder_rounds_preview", full_page=True)
