"""Issue 27 item 3 in a real browser: an offline todo run on a stack whose worker has the toolchain
(`APP_TOOLCHAIN_CHECKS=on`) shows its built app in the app page's preview panel, in a frame sandboxed with
`allow-scripts allow-forms` (a form's submit event reaches the app; its CSP lets no form send anywhere); the
app works there (a todo is added), and it runs with an opaque origin: it cannot read
the console's localStorage (where the API key lives) or its cookies, nor reach into the console's page.
Screenshot: `test-artifacts/app_builder_preview.png`."""

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Frame, Page, expect

from tests.browser.conftest import app_builder_stack, screenshot
from tests.stack_process import Stack

TODO = "a todo list to plan my week"
PROBE = """() => {
  const attempt = (read) => { try { return String(read()); } catch (err) { return `blocked: ${err.name}`; } };
  return {
    origin: self.origin,
    storage: attempt(() => localStorage.getItem('console.marker')),
    cookie: attempt(() => document.cookie),
    parentStorage: attempt(() => parent.localStorage.getItem('console.marker')),
    parentBody: attempt(() => parent.document.body.innerHTML.length),
  };
}"""


@pytest.fixture(scope="module")
def console_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The real stack with the toolchain on."""
    with app_builder_stack(tmp_path_factory, toolchain=True) as running:
        yield running


def preview_frame(page: Page) -> Frame:
    frame = page.frame(url=re.compile(r"/v1/apps/previews/[^/]+/index\.html$"))
    assert frame is not None, [f.url for f in page.frames]
    return frame


@pytest.mark.toolchain
def test_issue_27_the_app_page_previews_the_built_app_in_an_opaque_origin_frame(
    page: Page, console_stack: Stack
) -> None:
    page.add_init_script(  # the console's page only: in the preview's frame storage is refused
        "if (self === top) { localStorage.setItem('console.lang', 'en'); localStorage.setItem('console.marker', 'k') }"
    )
    page.context.add_cookies([{"name": "console_session", "value": "secret", "url": console_stack.gateway}])
    page.goto("/#/apps")
    page.get_by_label("What app shall we build?").fill(TODO)
    page.get_by_role("button", name="Build").click()

    frame_element = page.locator("iframe.ab-preview-frame")
    expect(frame_element).to_be_visible(timeout=240_000)
    assert frame_element.get_attribute("sandbox") == "allow-scripts allow-forms", "never allow-same-origin"
    app = page.frame_locator("iframe.ab-preview-frame")
    expect(app.get_by_role("heading").first).to_be_visible()
    app.get_by_label("What needs to be done?").fill("Water the plants")
    app.get_by_role("button", name="Add").click()
    expect(app.get_by_text("Water the plants")).to_be_visible()
    expect(page.locator(".ab-preview-note")).to_have_text(re.compile(r"^\d+ files, \d+ bytes$"))

    probed = preview_frame(page).evaluate(PROBE)

    assert probed["origin"] == "null", probed
    for name in ("storage", "cookie", "parentStorage", "parentBody"):
        assert probed[name].startswith("blocked: SecurityError"), (name, probed)
    assert page.evaluate("localStorage.getItem('console.marker')") == "k", "the console's own storage is there"
    screenshot(page, "app_builder_preview", full_page=True)
