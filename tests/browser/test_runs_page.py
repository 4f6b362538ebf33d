"""The runs page in a real browser against the real stack: the list filters by status, workflow and session; a
run's page reloaded while the run waits for a person shows each event once, resumes the stream with
`Last-Event-ID` and, once the run is answered with the question's option button, shows the rest up to its terminal
event; a running run is cancelled from its page."""

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Page, Request, expect

from tests.browser.conftest import screenshot
from tests.e2e.image.test_stack import sse_events
from tests.stack_process import Stack

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

IMAGE_SESSION = "runs-page"
BRAINSTORM = "先想三个结局方案，我选一个再写"
SETTLE_S = 60.0


@dataclass(frozen=True)
class Runs:
    """Runs started over HTTP before the page looks at them."""

    image: str
    """A completed ImageAgentWorkflow run in session `IMAGE_SESSION`."""
    waiting: str
    """A BrainstormExpand chain waiting for the writer's choice."""
    cancellable: str
    """Another such chain, for the cancel button."""


def until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SETTLE_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {SETTLE_S:g} s: {what}")
        time.sleep(0.3)


def waiting_chain(http: httpx.Client, project: str) -> str:
    """Start a BrainstormExpand chain and read its stream until it asks for a choice; its run id."""
    with http.stream("POST", f"/v1/writing/projects/{project}/chat", json={"text": BRAINSTORM}) as response:
        assert response.status_code == 200, response.read()
        run_id = response.headers["x-run-id"]
        for event in sse_events(response):
            if event.event == "user_input_required":
                return run_id
    raise AssertionError(f"the chain {run_id} ended without asking")


def listed(http: httpx.Client, **query: str) -> list[str]:
    return [run["runId"] for run in http.get("/v1/runs", params=query).json()["runs"]]


@pytest.fixture(scope="module")
def runs(console_stack: Stack) -> Iterator[Runs]:
    with httpx.Client(base_url=console_stack.gateway, timeout=60) as http:
        started = http.post(
            "/v1/runs",
            json={
                "workflow": "ImageAgentWorkflow",
                "input": {"text": "画一幅水彩风格的山水"},
                "sessionId": IMAGE_SESSION,
            },
        )
        assert started.status_code == 201, started.text
        image = started.json()["runId"]
        project = http.post("/v1/writing/projects", json={"name": "长夜", "genre": "悬疑"}).json()["projectId"]
        chapter = {"title": "雨夜", "content": "林舟推开警局的门。苏念在档案室等他，桌上摊着老陈的旧案卷。"}
        assert http.post(f"/v1/writing/projects/{project}/chapters", json=chapter).status_code == 201
        waiting, cancellable = waiting_chain(http, project), waiting_chain(http, project)
        until(lambda: http.get(f"/v1/runs/{image}").json()["status"] == "completed", "the image run completes")
        until(lambda: {waiting, cancellable} <= set(listed(http, status="waiting")), "the chains are listed waiting")
        until(lambda: image in listed(http, status="completed"), "the image run is listed completed")
        yield Runs(image=image, waiting=waiting, cancellable=cancellable)


def shown_runs(page: Page) -> list[dict[str, str]]:
    rows = page.locator("#runs-table tbody tr[data-run-id]")
    return rows.evaluate_all("rows => rows.map(r => ({...r.dataset}))")  # type: ignore[no-any-return]


def apply_filters(page: Page, workflow: str = "", status: str = "", session: str = "") -> list[dict[str, str]]:
    page.locator("#runs-workflow").select_option(workflow)
    page.locator("#runs-status").select_option(status)
    page.locator("#runs-session").fill(session)
    with page.expect_response(lambda r: "/v1/runs?" in r.url) as answered:
        page.get_by_role("button", name="Filter").click()
    assert answered.value.ok
    expect(page.locator("#runs-table")).not_to_have_attribute("aria-busy", "true")
    return shown_runs(page)


def test_the_runs_list_filters_by_status_workflow_and_session(page: Page, runs: Runs) -> None:
    page.goto("/#/runs")
    expect(page.locator(f"#runs-table tr[data-run-id='{runs.image}']")).to_be_visible()
    everything = {row["runId"] for row in shown_runs(page)}
    assert {runs.image, runs.waiting, runs.cancellable} <= everything

    waiting = apply_filters(page, status="waiting")
    assert {row["runId"] for row in waiting} >= {runs.waiting, runs.cancellable}
    assert all(row["status"] == "waiting" for row in waiting) and runs.image not in {r["runId"] for r in waiting}
    screenshot(page, "console-runs-waiting")

    images = apply_filters(page, workflow="ImageAgentWorkflow")
    assert runs.image in {row["runId"] for row in images}
    assert all(row["workflow"] == "ImageAgentWorkflow" for row in images)

    session = apply_filters(page, session=IMAGE_SESSION)  # the image run and its session workflow
    assert runs.image in {row["runId"] for row in session} and all(r["sessionId"] == IMAGE_SESSION for r in session)
    assert not {runs.waiting, runs.cancellable} & {row["runId"] for row in session}

    page.reload()  # the filters are kept for the tab
    expect(page.locator("#runs-session")).to_have_value(IMAGE_SESSION)
    expect(page.locator("#runs-table tbody tr[data-run-id]")).to_have_count(len(session))


def event_seqs(page: Page) -> list[int]:
    items = page.locator(".timeline-item")
    return items.evaluate_all("items => items.map(i => Number(i.dataset.seq))")  # type: ignore[no-any-return]


def test_a_reload_mid_run_resumes_after_the_last_event_and_shows_each_once(
    page: Page, runs: Runs, console_stack: Stack
) -> None:
    streams: list[Request] = []
    page.on("request", lambda r: streams.append(r) if r.url.endswith(f"/v1/runs/{runs.waiting}/events") else None)
    page.goto(f"/#/runs/{runs.waiting}")
    question = page.locator(".timeline-item[data-type='user_input_required']")
    expect(question).to_have_count(1)
    before = event_seqs(page)
    assert before == list(range(len(before)))
    assert "last-event-id" not in streams[0].headers

    page.reload()
    expect(question).to_have_count(1)
    expect(page.locator("#run-status")).to_have_text("waiting")  # as the list says
    assert event_seqs(page) == before, "the events shown before the reload, each once"
    assert streams[-1].headers.get("last-event-id") == str(before[-1]), "the stream resumes after the last event"
    screenshot(page, "console-run-reloaded")

    page.locator(".waiting button[data-option='B']").click()  # the question's options answer it
    expect(page.locator(".timeline-item[data-type='done']")).to_have_count(1)
    after = event_seqs(page)
    assert after == list(range(len(after))) and len(after) > len(before), "no duplicates and no gaps"
    assert after[: len(before)] == before
    with httpx.Client(base_url=console_stack.gateway, timeout=30) as http:
        state = http.get(f"/v1/runs/{runs.waiting}").json()
    assert state["status"] == "completed" and state["awaitingInput"] is None
    expect(page.locator("#run-status")).to_have_text("completed")
    with httpx.Client(base_url=console_stack.gateway) as http:
        port = http.get("/console/config.json").json()["temporalUi"]["port"]
    link = f"http://127.0.0.1:{port}/namespaces/default/workflows/{runs.waiting}"
    expect(page.locator("#run-temporal")).to_have_attribute("href", link)


def test_a_run_is_cancelled_from_its_page(page: Page, runs: Runs) -> None:
    page.goto(f"/#/runs/{runs.cancellable}")
    expect(page.locator(".timeline-item[data-type='user_input_required']")).to_have_count(1)
    page.locator("#run-cancel").click()
    end = page.locator(".timeline-item.timeline-end")
    expect(end).to_have_count(1)
    expect(end).to_contain_text("cancelled")
    expect(page.locator("#run-status")).to_have_text("cancelled")
    screenshot(page, "console-run-cancelled")
