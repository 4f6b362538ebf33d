"""The app builder in a real browser (seed 003): a run started from the page shows its layers, its waves with
every task's final state and the quality result; then the workspace's file tree opens a file in the viewer (the
text the files API serves) and the zip download is a zip of the project with its package.json. Offline, the page
says the run was built offline, and a request the offline builder does not build is refused with its code."""

import io
import json
import re
import zipfile
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.conftest import build_app, screenshot
from tests.stack_process import Stack

TODO = "做一个待办事项应用：可以添加、完成和删除待办，并按状态筛选"
FINAL_STATES = {"completed", "not_needed"}


def test_the_app_builder_shows_the_waves_opens_a_file_and_downloads_the_zip(
    page: Page, console_stack: Stack, tmp_path: Path
) -> None:
    page.add_init_script("localStorage.setItem('console.lang', 'en')")
    page.goto("/#/apps")
    page.get_by_label("What app shall we build?").fill(TODO)
    expect(page.get_by_label("Tech stack (comma separated)")).to_have_value("react, typescript")
    page.get_by_role("button", name="Build").click()

    app_tsx = page.locator("button.ab-file[data-path='src/App.tsx']")
    expect(app_tsx).to_be_visible()
    run_id = page.url.rsplit("/", 1)[-1]
    assert run_id.startswith("app-")
    expect(page.locator(".ab-layer[data-state=done]")).to_have_count(3)
    state = page.request.get(f"/v1/runs/{run_id}").json()["state"]
    shown_waves = page.locator(".ab-wave").evaluate_all(
        "waves => waves.map(w => [...w.querySelectorAll('.ab-task')].map(t => t.dataset.task))"
    )
    assert shown_waves[: len(state["waves"])] == state["waves"], "each wave with its tasks, in order"
    expect(page.locator(".ab-wave h3").first).to_have_text("Wave 1")
    shown = dict(page.locator(".ab-task").evaluate_all("items => items.map(i => [i.dataset.task, i.dataset.status])"))
    assert shown == {task_id: task["status"] for task_id, task in state["tasks"].items()}, "every task's final state"
    assert set(shown.values()) <= FINAL_STATES, shown
    expect(page.locator(".ab-quality li[data-passed=true]")).to_have_count(1)
    expect(page.locator(".ab-offline-run")).to_be_visible()  # no model: the run says it was built offline
    agent_tasks = [task_id for task_id, task in state["tasks"].items() if task["offline"]]
    expect(page.locator(".ab-task .ab-offline")).to_have_count(len(agent_tasks))
    ready = page.locator(".timeline-item[data-type='app_ready'] .timeline-text")
    expect(ready).to_have_text(re.compile(r"^✓ \d+ files, [\d.]+ KB$"))  # the count, not the payload's JSON

    app_tsx.click()
    expect(page.locator(".ab-viewer-path")).to_have_text("src/App.tsx")
    served = page.request.get(f"/v1/apps/runs/{run_id}/files/src/App.tsx").text()
    assert "export default function App" in served
    expect(page.locator(".ab-viewer code")).to_have_text(served)
    expect(app_tsx).to_have_attribute("aria-current", "true")

    with page.expect_download() as downloading:
        page.get_by_role("button", name="Download zip").click()
    download = downloading.value
    assert download.suggested_filename == f"{run_id}.zip"
    saved = tmp_path / "app.zip"
    download.save_as(saved)
    with zipfile.ZipFile(io.BytesIO(saved.read_bytes())) as archive:
        names = archive.namelist()
        package = json.loads(archive.read(f"{run_id}/package.json"))
        assert archive.read(f"{run_id}/src/App.tsx").decode() == served
    listing = page.request.get(f"/v1/apps/runs/{run_id}/files").json()["files"]
    assert sorted(names) == sorted(f"{run_id}/{f['path']}" for f in listing), "the whole workspace"
    assert "react" in package["dependencies"]
    assert page.locator("button.ab-file").count() == len(listing), "the tree lists every file"
    screenshot(page, "app_builder_file_viewer")


def test_issue_27_offline_a_request_for_another_kind_of_app_is_refused_on_the_page(
    page: Page, console_stack: Stack
) -> None:
    build_app(page, "a weather dashboard with a city search")

    banner = page.locator(".error-banner")
    expect(banner).to_contain_text("OFFLINE_APP_UNSUPPORTED")
    expect(banner).to_contain_text("LLM_PROVIDER")
    expect(page.locator(".ab-task")).to_have_count(0)
    screenshot(page, "app_builder_offline_refusal")


def test_issue_27_offline_the_rounds_panel_says_follow_ups_need_a_model(page: Page, console_stack: Stack) -> None:
    build_app(page, TODO)

    expect(page.locator(".ab-round")).to_have_count(1)
    expect(page.locator(".ab-followup-offline")).to_contain_text("Follow-up changes need a configured model")
    expect(page.get_by_role("button", name="Apply change")).to_be_hidden()
    expect(page.get_by_role("button", name="Use as base")).to_be_hidden()
    expect(page.get_by_role("button", name="Download round zip")).to_be_visible()
