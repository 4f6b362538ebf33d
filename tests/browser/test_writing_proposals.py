"""Proposals in the writing workspace (issue 28 item 2), in Chinese: a WorldBuilding answer shows as a pending
proposal with its source run; accepting it from the page puts it among the project's world notes as accepted
from that run, and the list empties."""

from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot
from tests.browser.test_writing_chapters import project_with_three_chapters
from tests.stack_process import Stack


def test_a_world_building_proposal_is_accepted_from_the_page(page: Page, console_stack: Stack) -> None:
    base, _ = project_with_three_chapters(page)
    page.get_by_label("你想写什么？").fill("帮我设定这个城市的世界观")
    page.get_by_role("button", name="发送").click()

    proposal = page.locator(".ws-proposals > li[data-kind=world_note]")
    expect(proposal).to_be_visible()
    run_id = page.locator(".ws-run-id").get_attribute("data-run-id")
    expect(proposal).to_contain_text(f"来自运行 {run_id}")
    assert page.request.get(f"{base}/world-notes").json() == []
    screenshot(page, "writing_proposals")
    proposal.get_by_role("button", name="采纳").click()

    expect(page.locator(".ws-proposals")).to_contain_text("没有待确认的提议")
    (note,) = page.request.get(f"{base}/world-notes").json()
    assert (note["origin"], note["sourceRunId"]) == ("accepted", run_id)
