"""The console against a gateway that wants API keys: the first 401 opens a labelled dialog asking for one, a key
the gateway refuses brings the dialog back saying so, the right key is kept for the tab only (sessionStorage, not
localStorage; a reload keeps it, a new tab asks again) and lets an image turn run and its signed image load."""

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.conftest import TIMEOUT_MS, VIEWPORT, missing_browser, screenshot
from tests.browser.test_image_studio import CAT, run_turn, shown_image
from tests.stack_process import Stack, running_stack

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

KEY = "alice-console-key-7f3a"
KEY_STORE = "console.apiKey"
REFUSED = "That key was not accepted; enter it again."


@pytest.fixture(scope="module")
def console_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The real stack with one API key, for alice (app runs checked without npm, as in conftest's stack)."""
    reason = missing_browser()
    if reason:
        pytest.skip(reason)
    data, log = tmp_path_factory.mktemp("data"), tmp_path_factory.mktemp("logs") / "stack.log"
    with running_stack(data, log, env={"API_KEYS": f"alice={KEY}", "APP_TOOLCHAIN_CHECKS": "off"}) as running:
        yield running


def key_dialog(page: Page) -> Locator:
    return page.get_by_role("dialog", name="API key needed")


def enter_key(page: Page, key: str) -> None:
    dialog = key_dialog(page)
    dialog.get_by_label("API key", exact=True).fill(key)
    dialog.get_by_role("button", name="Use key").click()


def test_the_console_asks_for_a_key_and_keeps_it_for_the_tab(
    page: Page, browser: Browser, console_stack: Stack
) -> None:
    page.add_init_script("localStorage.setItem('console.lang', 'en')")
    page.goto("/#/image")
    dialog = key_dialog(page)
    expect(dialog).to_be_visible()
    field = dialog.get_by_label("API key", exact=True)
    expect(field).to_be_focused()
    expect(field).to_have_attribute("type", "password")
    expect(dialog).not_to_contain_text(REFUSED)
    screenshot(page, "console-api-key-dialog")

    enter_key(page, "not-the-key")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("alert")).to_have_text(REFUSED)
    expect(dialog.get_by_label("API key", exact=True)).to_have_value("")
    screenshot(page, "console-api-key-refused")

    enter_key(page, KEY)
    expect(dialog).to_have_count(0)
    expect(page.locator(".history li.muted")).to_have_text("No earlier turns in this session.")
    expect(page.locator(".error-banner")).to_have_count(0)

    run_id = run_turn(page, CAT)
    url = shown_image(page)
    query = parse_qs(urlsplit(url).query)
    assert query["owner"] == ["alice"] and query["exp"] and query["sig"], f"the image URL is signed for alice: {url}"
    with httpx.Client(base_url=console_stack.gateway, timeout=30) as http:
        view = http.get(f"/v1/runs/{run_id}", headers={"Authorization": f"Bearer {KEY}"}).json()
        assert http.get(url).status_code == 200, "the signed URL is enough to read the image"
        assert http.get(url.split("?", 1)[0]).status_code != 200, "without its signature the image is not served"
    read = view["state"]["executionResult"]["imageUrl"]  # minted again for this read: the same image, for alice
    assert view["status"] == "completed" and read.split("?", 1)[0] == url.split("?", 1)[0]
    assert parse_qs(urlsplit(read).query)["owner"] == ["alice"]

    assert page.evaluate(f"sessionStorage.getItem('{KEY_STORE}')") == KEY
    local = page.evaluate("Object.fromEntries(Object.entries(localStorage))")
    assert KEY_STORE not in local and all(KEY not in value for value in local.values()), local

    page.reload()  # the same tab: its sessionStorage, so no question
    expect(page.locator(".history li[data-run-id]")).to_have_count(1)
    expect(key_dialog(page)).to_have_count(0)

    other = browser.new_context(viewport=VIEWPORT, base_url=console_stack.gateway)
    try:
        other.set_default_timeout(TIMEOUT_MS)
        tab = other.new_page()
        tab.add_init_script("localStorage.setItem('console.lang', 'en')")
        tab.goto("/#/image")
        expect(key_dialog(tab)).to_be_visible()
        assert tab.evaluate(f"sessionStorage.getItem('{KEY_STORE}')") is None
        key_dialog(tab).get_by_role("button", name="Cancel").click()
        expect(key_dialog(tab)).to_have_count(0)
        expect(tab.locator(".error-banner")).to_contain_text("UNAUTHORIZED")
    finally:
        other.close()
