"""The web console's static route on the real gateway app: `/` is the page, `/console/...` its files with the
right content types, no API key needed for them (while the API itself still wants one), and no path that leads
outside `api/console` is served."""

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from api.routes.console import CONSOLE_DIR
from api.server import create_app
from tests.workflows.harness import settings_for

KEYS = "alice=alice-key"


@pytest.fixture
async def http(env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(tmp_path, api_keys=KEYS, temporal_ui_port=18233)
    app = create_app(settings, client=env.client)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as client,
    ):
        yield client


async def test_the_page_and_its_files_are_served_without_a_key(http: httpx.AsyncClient) -> None:
    page = await http.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.text == (CONSOLE_DIR / "index.html").read_text()
    assert 'src="/console/js/app.js"' in page.text
    for path, kind in [
        ("/console/js/app.js", "text/javascript"),
        ("/console/js/api.js", "text/javascript"),
        ("/console/js/pages/image.js", "text/javascript"),
        ("/console/css/console.css", "text/css"),
    ]:
        response = await http.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].split(";")[0] == kind, path
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.content == (CONSOLE_DIR / path.removeprefix("/console/")).read_bytes()
    assert (await http.get("/v1/runs")).status_code == 401  # the API itself still needs the key


async def test_the_config_names_the_temporal_web_ui_and_each_familys_page(http: httpx.AsyncClient) -> None:
    config = (await http.get("/console/config.json")).json()
    assert config["temporalUi"] == {"host": None, "port": 18233, "namespace": "default"}
    assert config["pages"] == [
        {"page": "image", "label": {"zh": "图像工作室", "en": "Image studio"}},
        {"page": "writing", "label": {"zh": "写作", "en": "Writing"}},
        {"page": "content", "label": {"zh": "内容创作", "en": "Content"}},
        {"page": "apps", "label": {"zh": "应用构建", "en": "App builder"}},
    ], "the families with a console page, in FAMILIES' order (echo has none)"


@pytest.mark.parametrize(
    "path",
    [
        "/console/%2e%2e/server.py",
        "/console/..%2fserver.py",
        "/console/js/..%2F..%2Froutes%2Fconsole.py",
        "/console/%2e%2e/%2e%2e/pyproject.toml",
        "/console//etc/passwd",
        "/console/js",
        "/console/nothing-here.js",
    ],
)
async def test_nothing_outside_the_console_directory_is_served(http: httpx.AsyncClient, path: str) -> None:
    assert (CONSOLE_DIR / "../server.py").resolve().is_file()  # what the first paths would reach, unchecked
    response = await http.get(httpx.URL(path))
    assert response.status_code == 404, (path, response.text[:200])
    assert response.json()["error"]["code"] == "NOT_FOUND"


async def test_a_file_of_another_kind_is_not_served(http: httpx.AsyncClient, tmp_path: Path) -> None:
    stray = CONSOLE_DIR / f"{tmp_path.name}.py"  # a file in the directory, of a kind the console has none of
    stray.write_text("SECRET = 1\n")
    try:
        assert (await http.get(f"/console/{stray.name}")).status_code == 404
    finally:
        stray.unlink()


async def test_the_page_links_an_icon_that_is_served_as_is_the_conventional_path(http: httpx.AsyncClient) -> None:
    page = (await http.get("/")).text
    linked = re.search(r'<link rel="icon" href="([^"]+)" type="([^"]+)">', page)
    assert linked, "the page links an icon, so the browser does not ask for /favicon.ico"
    icon = await http.get(linked[1])
    conventional = await http.get("/favicon.ico")  # what a browser or tool asks for without reading the page

    for response in (icon, conventional):
        assert response.status_code == 200
        assert response.headers["content-type"] == linked[2] == "image/svg+xml"
        assert response.content == (CONSOLE_DIR / "favicon.svg").read_bytes()
        assert response.content.startswith(b"<svg ")
