"""The writing workspace in a real browser (seed 002), in Chinese: the project sidebar creates a project, adds a
chapter, edits it and adds a character, all kept by the writing API; and a BrainstormExpand chain's options,
shown as buttons while the run waits, resume the chain when one is clicked, so the Writer writes the chosen one."""

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot
from tests.stack_process import Stack

CHAIN_REQUEST = "先想三个结局方案，我选一个再写"
RAIN = "林舟推开警局的门。苏念在档案室等他，桌上摊着老陈的旧案卷。"


def in_chinese(page: Page) -> None:
    page.add_init_script("localStorage.setItem('console.lang', 'zh')")


def test_the_sidebar_creates_a_project_and_adds_and_edits_its_chapter(page: Page, console_stack: Stack) -> None:
    in_chinese(page)
    page.goto("/#/writing")
    page.get_by_label("项目名称").fill("长夜")
    page.get_by_label("类型（可选）").fill("悬疑")
    page.get_by_role("button", name="创建").click()
    expect(page.locator("button.ws-project[aria-pressed=true]")).to_contain_text("长夜")
    project_id = page.locator("button.ws-project[aria-pressed=true]").get_attribute("data-id")
    assert project_id and page.url.endswith(f"#/writing/{project_id}")

    chapters = page.locator("form[data-kind=chapters]")
    chapters.get_by_label("章节标题").fill("雨夜")
    chapters.get_by_label("章节正文").fill(RAIN)
    chapters.get_by_role("button", name="添加").click()
    chapter_list = page.locator(".ws-collection[data-kind=chapters] .ws-items")
    expect(chapter_list.get_by_role("button", name="1. 雨夜")).to_be_visible()

    chapter_list.get_by_role("button", name="1. 雨夜").click()  # opens it in the form: now it saves changes
    expect(chapters.get_by_label("章节正文")).to_have_value(RAIN)
    chapters.get_by_label("章节标题").fill("雨夜（修订）")
    chapters.get_by_role("button", name="保存修改").click()
    expect(chapter_list.get_by_role("button", name="1. 雨夜（修订）")).to_be_visible()

    characters = page.locator("form[data-kind=characters]")
    characters.get_by_label("角色名").fill("林舟")
    characters.get_by_label("角色描述").fill("退役侦探")
    characters.get_by_role("button", name="添加").click()
    expect(page.locator(".ws-collection[data-kind=characters] .ws-items")).to_contain_text("林舟")

    base = f"/v1/writing/projects/{project_id}"
    saved = page.request.get(f"{base}/chapters").json()
    assert [(c["position"], c["title"], c["content"]) for c in saved] == [(1, "雨夜（修订）", RAIN)], (
        "edited, not added"
    )
    assert [(c["name"], c["description"]) for c in page.request.get(f"{base}/characters").json()] == [
        ("林舟", "退役侦探")
    ]

    page.reload()  # the project comes back from the URL, with what the API keeps
    expect(page.locator("button.ws-project[aria-pressed=true]")).to_contain_text("长夜")
    expect(chapter_list).to_contain_text("1. 雨夜（修订）")


def test_a_brainstorm_choice_clicked_in_the_page_resumes_the_chain(page: Page, console_stack: Stack) -> None:
    project_id = page.request.post("/v1/writing/projects", data={"name": "长夜", "genre": "悬疑"}).json()["projectId"]
    base = f"/v1/writing/projects/{project_id}"
    assert page.request.post(f"{base}/chapters", data={"title": "雨夜", "content": RAIN}).status == 201
    for name, description in [("林舟", "退役侦探，沉默寡言"), ("苏念", "调查记者，执着")]:
        assert page.request.post(f"{base}/characters", data={"name": name, "description": description}).status == 201

    in_chinese(page)
    page.goto(f"/#/writing/{project_id}")
    page.get_by_label("你想写什么？").fill(CHAIN_REQUEST)
    page.get_by_role("button", name="发送").click()

    options = page.locator(".question-card button.option")
    expect(options).to_have_count(3)
    assert [options.nth(i).get_attribute("data-option") for i in range(3)] == ["A", "B", "C"]
    expect(page.locator(".bubble[data-agent=brainstorm]")).to_contain_text("A.")
    run_id = page.locator(".ws-run-id").get_attribute("data-run-id")
    assert run_id
    waiting = page.request.get(f"/v1/runs/{run_id}").json()
    assert waiting["status"] == "waiting" and waiting["awaitingInput"]["options"][1]["id"] == "B", "the chain waits"
    screenshot(page, "writing_brainstorm_options")

    # the draft narrates the chosen option's event (the last part of its label, to its first ；), not its title
    chosen_event = options.nth(1).locator("span").inner_text().split("：")[-1].split("；")[0]
    options.nth(1).click()

    expect(page.locator(".ws-run-end")).to_have_class(re.compile(r"\bstatus-completed\b"))
    expect(options.nth(1)).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".question-card .question-status")).to_contain_text("已回答：B")
    writer = page.locator(".bubble[data-agent=writer]")
    expect(writer).to_contain_text(chosen_event)
    expect(page.locator(".ws-checks .ws-verdict")).to_have_text("通过")
    event_types = page.locator(".timeline-item").evaluate_all("items => items.map(i => i.dataset.type)")
    assert event_types.index("user_input_required") < event_types.index("user_input_received")
    assert event_types.index("user_input_received") < event_types.index("chain_summary") < event_types.index("done")

    state = page.request.get(f"/v1/runs/{run_id}").json()
    assert state["status"] == "completed" and state["awaitingInput"] is None
    assert chosen_event in state["state"]["result"]["text"], "the Writer wrote the option clicked"


def test_the_chat_remembers_its_turns_and_a_revision_names_its_chapter(page: Page, console_stack: Stack) -> None:
    """Issue 28: a revision says which chapter it would change, and a follow-up in the same conversation revises
    the same chapter; the turns the conversation remembers show above the chat."""
    project_id = page.request.post("/v1/writing/projects", data={"name": "长夜"}).json()["projectId"]
    base = f"/v1/writing/projects/{project_id}"
    for title in ("雨夜", "码头", "旧案"):
        assert page.request.post(f"{base}/chapters", data={"title": title, "content": RAIN}).status == 201

    in_chinese(page)
    page.goto(f"/#/writing/{project_id}")
    for n, request in enumerate(["改写第二章，让节奏更紧凑", "再紧张一点"], start=1):
        page.get_by_label("你想写什么？").fill(request)
        page.get_by_role("button", name="发送").click()
        expect(page.locator(".ws-revision-target")).to_have_count(n)
        expect(page.locator(".ws-revision-target").nth(n - 1)).to_contain_text("第2章《码头》")
        expect(page.locator(".ws-memory summary")).to_contain_text(f"已记住 {n} 轮")

    page.locator(".ws-memory summary").click()
    expect(page.locator(".ws-memory-turns li")).to_have_text(
        ["REVISE_CHAPTER：改写第二章，让节奏更紧凑", "REVISE_CHAPTER：再紧张一点"]
    )
    chapters = page.request.get(f"{base}/chapters").json()
    assert [c["content"] for c in chapters] == [RAIN] * 3, "a revision is a proposal: the project is unchanged"
    screenshot(page, "writing_revision_memory")
