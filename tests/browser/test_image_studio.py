"""The image studio in a real browser against the real stack: a chat turn fills the per-node timeline (thought_log,
progress bar) and shows the SmartCanvas image, the AgentMessage bubble and the download link, readable at 1280 and
390 px; a mask painted with the brush on the canvas makes an inpainting run that changes the image inside the mask
and leaves every pixel outside it as it was; the brush also paints from the keyboard (arrow keys move a visible brush
cursor, Space and Enter paint under it)."""

import base64
import io
import json
import re

import httpx
import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Locator, Page, Request, expect

from tests.browser.conftest import screenshot
from tests.stack_process import Stack

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

CAT = "生成一只赛博朋克风格的猫"
HELMET = "把这里换成机械头盔"
MARGIN = 3
"""Pixels around the mask's bounding box left out of the comparison (the mask is scaled with nearest neighbours)."""


def run_turn(page: Page, text: str) -> str:
    """Send a message from the studio's composer and wait for its run to end; the run id."""
    page.locator("#image-message").fill(text)
    page.locator("#image-send").click()
    expect(page.locator("#image-send")).to_be_disabled()
    expect(page.locator(".timeline-item[data-type='stream_end']")).to_have_count(1)
    expect(page.locator("#image-send")).to_be_enabled()
    run_link = page.locator(".run-link")
    expect(run_link).to_be_visible()
    href = run_link.get_attribute("href") or ""
    assert href.startswith("#/runs/")
    return href.removeprefix("#/runs/")


def shown_image(page: Page) -> str:
    canvas = page.locator(".canvas-image")
    expect(canvas).to_be_visible()
    page.wait_for_function("() => document.querySelector('.canvas-image').naturalWidth > 0")
    return canvas.get_attribute("src") or ""


def pixels(http: httpx.Client, url: str) -> np.ndarray:
    response = http.get(url)
    assert response.status_code == 200
    return np.asarray(Image.open(io.BytesIO(response.content)).convert("RGB"))


def sent_mask(request: Request) -> np.ndarray:
    """The alpha channel of the inpainting mask a chat request carried."""
    mask_data = json.loads(request.post_data or "{}")["maskData"]
    mask_png = base64.b64decode(mask_data["base64"].split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(mask_png)).convert("RGBA"))[..., 3]


def centre(locator: Locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_an_image_turn_shows_the_timeline_and_the_image(page: Page, console_stack: Stack) -> None:
    page.goto("/")
    expect(page).to_have_url(f"{console_stack.gateway}/#/image")
    run_id = run_turn(page, CAT)
    url = shown_image(page)

    with httpx.Client(base_url=console_stack.gateway, timeout=30) as http:
        view = http.get(f"/v1/runs/{run_id}").json()
    assert view["status"] == "completed"
    assert url == view["state"]["executionResult"]["imageUrl"]
    expect(page.locator("#image-download")).to_have_attribute("href", url)

    timeline = page.locator(".timeline-item")
    types = timeline.evaluate_all("items => items.map(i => i.dataset.type)")
    seqs = timeline.evaluate_all("items => items.map(i => i.dataset.seq).filter(s => s !== '').map(Number)")
    assert types.count("thought_log") >= 3 and "progress" in types and "gen_ui_component" in types
    assert seqs == list(range(len(seqs))), "each of the run's events once, in order"
    nodes = set(page.locator(".timeline-item .tag.node").all_inner_texts())
    assert {"planner", "executor", "critic"} <= {n.lower() for n in nodes}, nodes
    assert page.locator(".timeline-progress progress").evaluate("bar => bar.value") == 100
    expect(page.locator(".bubble.user")).to_have_text(CAT)
    expect(page.locator(".bubble.agent").last).not_to_be_empty()
    expect(page.locator(".actions button").first).to_be_visible()  # the ActionPanel's actions
    expect(page.locator(".history li[data-run-id]")).to_have_count(1)
    screenshot(page, "console-image-studio", full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator(".canvas-image")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scrolling at 390 px"
    screenshot(page, "console-image-studio-390")


def test_a_mask_drawn_on_the_canvas_repaints_only_inside_it(page: Page, console_stack: Stack) -> None:
    page.goto("/#/image")
    run_turn(page, CAT)
    before_url = shown_image(page)

    page.locator("#image-brush").click()
    expect(page.locator("#image-brush")).to_have_attribute("aria-pressed", "true")
    box = page.locator("canvas.mask").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.35, box["y"] + box["height"] * 0.35)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.4, steps=12)
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.6, steps=12)
    page.mouse.up()
    expect(page.locator("#image-clear-mask")).to_be_enabled()
    screenshot(page, "console-image-studio-mask")

    with page.expect_request(lambda r: r.url.endswith("/api/agent/chat") and r.method == "POST") as sent:
        run_id = run_turn(page, HELMET)
    assert json.loads(sent.value.post_data or "{}")["maskData"]["imageUrl"] == before_url
    alpha = sent_mask(sent.value)
    rows, cols = np.nonzero(alpha > 127)
    assert rows.size, "the mask the page sent has the stroke painted on it"
    after_url = shown_image(page)
    assert after_url != before_url

    with httpx.Client(base_url=console_stack.gateway, timeout=30) as http:
        state = http.get(f"/v1/runs/{run_id}").json()["state"]
        before, after = pixels(http, before_url), pixels(http, after_url)
    assert state["intent"]["action"] == "inpainting" and state["executionResult"]["taskType"] == "inpainting"
    assert before.shape == after.shape and alpha.shape == before.shape[:2]
    outside = np.ones(alpha.shape, dtype=bool)
    top, bottom = max(rows.min() - MARGIN, 0), rows.max() + MARGIN + 1
    left, right = max(cols.min() - MARGIN, 0), cols.max() + MARGIN + 1
    outside[top:bottom, left:right] = False
    assert outside.mean() > 0.5, "the stroke covers a part of the image, not all of it"
    assert np.array_equal(before[outside], after[outside]), "pixels outside the mask are unchanged"
    assert not np.array_equal(before[~outside], after[~outside]), "the masked area was repainted"


def test_the_mask_brush_paints_from_the_keyboard(page: Page) -> None:
    page.add_init_script("localStorage.setItem('console.lang', 'en')")
    page.goto("/#/image")
    run_turn(page, CAT)
    shown_image(page)
    canvas, cursor = page.locator("canvas.mask"), page.locator(".brush-cursor")
    expect(canvas).not_to_have_attribute("tabindex", "0")  # no tab stop while the brush is off

    page.locator("#image-brush").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#image-brush")).to_have_attribute("aria-pressed", "true")
    expect(canvas).to_have_accessible_name(re.compile("arrow keys move the brush"))
    expect(canvas).to_have_accessible_description(re.compile("with Space or Enter"))
    page.locator("#image-download").focus()
    page.keyboard.press("Tab")
    expect(canvas).to_be_focused()
    expect(cursor).to_be_visible()
    box = canvas.bounding_box()
    assert box is not None
    start = centre(cursor)
    assert start == pytest.approx((box["x"] + box["width"] / 2, box["y"] + box["height"] / 2), abs=1.5)

    for key in ["Shift+ArrowLeft"] * 3 + ["ArrowUp"] * 2:
        page.keyboard.press(key)
    first = centre(cursor)
    assert first == pytest.approx((start[0] - 3 * 40, start[1] - 2 * 8), abs=1.5), "40 px with Shift, 8 without"
    expect(page.locator("#image-clear-mask")).to_be_disabled()  # moving paints nothing
    page.keyboard.press("Space")
    expect(page.locator("#image-clear-mask")).to_be_enabled()
    for key in ["Shift+ArrowDown"] * 4:
        page.keyboard.press(key)
    second = centre(cursor)
    page.keyboard.press("Enter")
    screenshot(page, "console-image-studio-keyboard-mask")

    with page.expect_request(lambda r: r.url.endswith("/api/agent/chat") and r.method == "POST") as sent:
        run_turn(page, HELMET)
    alpha = sent_mask(sent.value)
    height, width = alpha.shape
    scale = width / box["width"]
    radius = 12 * scale  # the default brush is 24 CSS px wide
    rows, cols = np.mgrid[0:height, 0:width]
    near = np.zeros(alpha.shape, dtype=bool)
    for x, y in (first, second):
        cx, cy = (x - box["x"]) * scale, (y - box["y"]) * scale
        assert alpha[round(cy), round(cx)] > 127, f"painted under the cursor at {cx:.0f},{cy:.0f}"
        near |= (cols - cx) ** 2 + (rows - cy) ** 2 <= (radius + MARGIN) ** 2
    painted = alpha > 127
    assert painted.sum() > 1.5 * np.pi * radius**2, "two brush-sized dabs"
    assert not painted[~near].any(), "nothing painted away from the cursor's two positions"
