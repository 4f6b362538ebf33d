"""Fixtures for the browser tests: the real stack, one for the session (`console_stack`), Debian's Chromium driven by
Playwright's sync API (`browser`, per module), a fresh page per test at 1280×800 whose screenshot is saved to
`test-artifacts/<test name>.png` when the test ends (`page`), and `screenshot` for more. Every test here is marked
`browser` and `e2e`; without Chromium at `/usr/bin/chromium` or without Playwright they are skipped."""

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.simulator.server import Simulator
from tests.stack_process import REPO, Stack, running_stack

try:
    from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright
except ImportError:  # the dev extras are not installed
    sync_playwright = None  # type: ignore[assignment]

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT: "ViewportSize" = {"width": 1280, "height": 800}
TIMEOUT_MS = 60_000
"""Longest a page action or expectation waits (a run on the offline stack takes a few seconds, more while other
test processes share the cores). Playwright's `expect` has a default of its own (5 s), set to this one too."""
if sync_playwright is not None:
    expect.set_options(timeout=TIMEOUT_MS)
HOW_TO_ENABLE = (
    "install Debian's Chromium (`apt-get install -y chromium`) and the dev extras (`pip install -e '.[dev]'`)"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.e2e)


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if sync_playwright is None:
        return f"Playwright is not installed: {HOW_TO_ENABLE}"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM}: {HOW_TO_ENABLE}"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator["Browser"]:
    """Chromium, for one test module. Not for the whole session: Playwright's sync API runs its own event loop in
    this thread while it is started, and pytest-asyncio cannot run an async test in a thread with a running loop."""
    reason = missing_browser()
    if reason:
        pytest.skip(reason)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def console_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The real stack, shared by the browser modules that do not start one of their own (their tests run on one
    test worker: tests/conftest.py), so each test makes its own runs and items and looks only at those. Its app runs
    are checked without npm (`APP_TOOLCHAIN_CHECKS=off`: with npm on the PATH the quality agent would install a
    generated project's dependencies from the registry)."""
    reason = missing_browser()
    if reason:  # skip before starting a stack no test could use
        pytest.skip(reason)
    data, log = tmp_path_factory.mktemp("data"), tmp_path_factory.mktemp("logs") / "stack.log"
    with running_stack(data, log, env={"APP_TOOLCHAIN_CHECKS": "off"}) as running:
        yield running


@contextmanager
def app_builder_stack(
    tmp_path_factory: pytest.TempPathFactory, *, toolchain: bool, simulator: Simulator | None = None
) -> Iterator[Stack]:
    """The real stack for an app builder module: with `toolchain` its worker type-checks and builds the projects
    (npm installs in the session's one cache, as the toolchain tests'; skipped without npm), and with `simulator`
    its model is that simulator (started here, stopped afterwards). Skipped without the browser."""
    reason = missing_browser() or (None if not toolchain or shutil.which("npm") else "npm is not installed")
    if reason:
        pytest.skip(reason)
    env = {"APP_TOOLCHAIN_CHECKS": "on" if toolchain else "off"}
    data, log = tmp_path_factory.mktemp("data"), tmp_path_factory.mktemp("logs") / "stack.log"
    if toolchain:
        shared = tmp_path_factory.getbasetemp() / "app-builder-work" / "npm-cache"
        shared.mkdir(parents=True, exist_ok=True)
        (data / "app_builder").mkdir()
        (data / "app_builder" / "npm-cache").symlink_to(shared, target_is_directory=True)
    if simulator is not None:
        simulator.start()
        env |= {
            "LLM_PROVIDER": "openai",
            "LLM_PROTOCOL": "chat",
            "OPENAI_API_KEY": "test-key",
            "LLM_BASE_URL": f"{simulator.base_url}/v1",
        }
    try:
        with running_stack(data, log, env=env) as running:
            yield running
    finally:
        if simulator is not None:
            simulator.stop()


def build_app(page: "Page", request: str) -> None:
    """On the app builder page, in English, ask for `request` and press Build."""
    page.add_init_script("localStorage.setItem('console.lang', 'en')")
    page.goto("/#/apps")
    page.get_by_label("What app shall we build?").fill(request)
    page.get_by_role("button", name="Build").click()


def screenshot(page: "Page", name: str, *, full_page: bool = False) -> Path:
    """Save what the page shows now (the whole page with `full_page`) as `test-artifacts/<name>.png`."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture
def page(browser: "Browser", console_stack: Stack, request: pytest.FixtureRequest) -> Iterator["Page"]:
    """A page in a fresh browser context (its own sessionStorage) whose relative URLs go to the stack's gateway.
    An uncaught script error on the page fails the test when it ends."""
    context = browser.new_context(viewport=VIEWPORT, base_url=console_stack.gateway)
    context.set_default_timeout(TIMEOUT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    try:
        screenshot(opened, request.node.name)
    finally:
        context.close()
    assert not errors, f"uncaught errors on the page: {errors}"
