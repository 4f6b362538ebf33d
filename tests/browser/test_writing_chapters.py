"""Chapters as a book in the writing workspace (issue 28 items 1 and 6), in Chinese: a finished run's draft applied
to chapter 2 from the page becomes its version 2, whose diff against version 1 shows and whose version 1 is
restored; a save over a change made elsewhere is refused with a clear notice that keeps the writer's text, which
saves once the latest version is loaded; and the down button reorders the chapters."""

from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot
from tests.stack_process import Stack

CHAPTERS = [("雨夜", "林舟推开警局的门。"), ("码头", "苏念在等。"), ("旧案", "卷宗发黄。")]


def project_with_three_chapters(page: Page) -> tuple[str, list[str]]:
    project_id = page.request.post("/v1/writing/projects", data={"name": "长夜", "genre": "悬疑"}).json()["projectId"]
    base = f"/v1/writing/projects/{project_id}"
    ids = []
    for title, content in CHAPTERS:
        added = page.request.post(f"{base}/chapters", data={"title": title, "content": content})
        assert added.status == 201
        ids.append(added.json()["chapterId"])
    for name, description in [("林舟", "退役侦探"), ("苏念", "调查记者")]:
        assert page.request.post(f"{base}/characters", data={"name": name, "description": description}).status == 201
    page.add_init_script("localStorage.setItem('console.lang', 'zh')")
    page.goto(f"/#/writing/{project_id}")
    return base, ids


def test_a_draft_applied_from_the_page_becomes_version_2_with_a_diff_and_version_1_restores(
    page: Page, console_stack: Stack
) -> None:
    base, ids = project_with_three_chapters(page)
    page.get_by_label("你想写什么？").fill("写一段林舟和苏念在码头的场景")
    page.get_by_role("button", name="发送").click()

    actions = page.locator(".ws-draft-actions")
    expect(actions).to_be_visible()
    actions.get_by_label("选择章节").select_option(label="2. 码头")
    actions.get_by_role("button", name="应用", exact=True).click()
    expect(actions.get_by_role("status")).to_contain_text("已成为《码头》的版本 2")
    chapter = page.request.get(f"{base}/chapters/{ids[1]}").json()
    run_id = actions.get_attribute("data-run-id")
    draft = page.request.get(f"/v1/runs/{run_id}").json()["state"]["result"]["text"]
    assert chapter["version"] == 2 and chapter["content"] == draft

    page.locator(".ws-collection[data-kind=chapters] .ws-items").get_by_role("button", name="2. 码头").click()
    history = page.locator(".ws-history")
    expect(history.locator(".ws-versions > li")).to_have_count(2)
    expect(history.locator("li[data-number='2']")).to_contain_text("草稿")
    history.locator("li[data-number='2']").get_by_role("button", name="与上一版比较").click()
    expect(history.locator(".ws-diff .removed")).to_contain_text("-苏念在等。")
    screenshot(page, "writing_chapter_versions_diff")
    history.locator("li[data-number='1']").get_by_role("button", name="恢复这一版").click()
    expect(history.get_by_role("status")).to_contain_text("已恢复为新版本 3")
    expect(history.locator(".ws-versions > li")).to_have_count(3)
    restored = page.request.get(f"{base}/chapters/{ids[1]}").json()
    assert (restored["version"], restored["content"]) == (3, "苏念在等。")
    expect(page.locator("form[data-kind=chapters]").get_by_label("章节正文")).to_have_value("苏念在等。")


def test_a_save_over_a_change_made_elsewhere_keeps_the_text_and_saves_after_loading_the_latest(
    page: Page, console_stack: Stack
) -> None:
    base, ids = project_with_three_chapters(page)
    chapter_list = page.locator(".ws-collection[data-kind=chapters] .ws-items")
    chapter_list.get_by_role("button", name="1. 雨夜").click()
    form = page.locator("form[data-kind=chapters]")
    expect(form.get_by_label("章节正文")).to_have_value("林舟推开警局的门。")
    elsewhere = {"title": "雨夜", "content": "林舟推开警局的门。\n另一位编辑加的一行。"}
    assert page.request.put(f"{base}/chapters/{ids[0]}", data=elsewhere).status == 200

    mine = "林舟推开警局的门。\n我加的一行。"
    form.get_by_label("章节正文").fill(mine)
    form.get_by_role("button", name="保存修改").click()
    notice = form.locator(".ws-conflict")
    expect(notice).to_contain_text("已被别处修改")
    expect(form.get_by_label("章节正文")).to_have_value(mine)
    assert page.request.get(f"{base}/chapters/{ids[0]}").json()["content"] == elsewhere["content"]
    notice.get_by_role("button", name="载入最新版本（保留我的文字）").click()
    expect(notice.locator(".ws-latest pre")).to_contain_text("另一位编辑加的一行。")
    expect(form.get_by_label("章节正文")).to_have_value(mine)
    form.get_by_role("button", name="保存修改").click()
    expect(form.get_by_role("status")).to_contain_text("已保存")
    saved = page.request.get(f"{base}/chapters/{ids[0]}").json()
    assert (saved["version"], saved["content"]) == (3, mine)

    chapter_list.get_by_role("button", name="下移: 雨夜").click()
    expect(chapter_list.locator("button[data-id]").first).to_have_text("1. 码头")
    titles = [c["title"] for c in page.request.get(f"{base}/chapters").json()]
    assert titles == ["码头", "雨夜", "旧案"]


def test_a_reorder_from_a_list_changed_elsewhere_is_refused_and_the_list_loads_again(
    page: Page, console_stack: Stack
) -> None:
    base, ids = project_with_three_chapters(page)
    chapter_list = page.locator(".ws-collection[data-kind=chapters] .ws-items")
    expect(chapter_list.locator("button[data-id]").first).to_have_text("1. 雨夜")
    moved = page.request.post(f"{base}/chapters/order", data={"chapterIds": [ids[2], ids[0], ids[1]]})
    assert moved.status == 200

    chapter_list.get_by_role("button", name="下移: 雨夜").click()

    expect(page.locator(".ws-errors")).to_contain_text("章节列表在你读取之后已有改动")
    expect(chapter_list.locator("button[data-id]").first).to_have_text("1. 旧案")
    titles = [c["title"] for c in page.request.get(f"{base}/chapters").json()]
    assert titles == ["旧案", "雨夜", "码头"], "the order made elsewhere stays"


def test_each_chapter_in_the_list_shows_its_summary_which_follows_a_save(page: Page, console_stack: Stack) -> None:
    base, ids = project_with_three_chapters(page)
    chapter_list = page.locator(".ws-collection[data-kind=chapters] .ws-items")
    summaries = [c["summary"] for c in page.request.get(f"{base}/chapters").json()]
    assert all(summaries), summaries

    for index, summary in enumerate(summaries):
        expect(chapter_list.locator("li").nth(index).locator(".ws-item-note")).to_have_text(summary)
    chapter_list.get_by_role("button", name="2. 码头").click()
    form = page.locator("form[data-kind=chapters]")
    form.get_by_label("章节正文").fill("苏念在码头等了一夜。天亮时，她看见林舟的船靠岸。")
    form.get_by_role("button", name="保存修改").click()

    expect(form.get_by_role("status")).to_contain_text("已保存")
    saved = page.request.get(f"{base}/chapters/{ids[1]}").json()["summary"]
    assert "苏念在码头等了一夜" in saved
    expect(chapter_list.locator("li").nth(1).locator(".ws-item-note")).to_have_text(saved)
    screenshot(page, "writing_chapter_summaries")
