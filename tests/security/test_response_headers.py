"""Issue 50 #10: no other site may frame the console (its page says `frame-ancestors 'self'` and runs only its own
scripts), and no browser guesses the type of what the gateway serves: a book's export, a blob, an error and the
console's files all say `X-Content-Type-Options: nosniff`."""

import io

from PIL import Image

from tests.api.conftest import Gateway


async def test_the_console_may_be_framed_by_itself_only_and_runs_only_its_own_scripts(gateway: Gateway) -> None:
    page = await gateway.http.get("/")

    policy = {
        part.strip().split(" ", 1)[0]: part.strip() for part in page.headers["content-security-policy"].split(";")
    }
    assert page.status_code == 200 and "<script" in page.text
    assert policy["frame-ancestors"] == "frame-ancestors 'self'"
    assert policy["script-src"] == "script-src 'self'"
    assert (await gateway.http.get("/console/js/app.js")).headers["content-security-policy"] == page.headers[
        "content-security-policy"
    ]


async def test_exports_blobs_and_errors_are_never_sniffed(gateway: Gateway) -> None:
    project = (await gateway.http.post("/v1/writing/projects", json={"name": "长夜", "genre": "悬疑"})).json()
    chapter = {"title": "雨夜", "content": "林舟推开警局的门。"}
    assert (await gateway.http.post(f"/v1/writing/projects/{project['projectId']}/chapters", json=chapter)).is_success
    png = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(png, format="PNG")
    upload = await gateway.http.post("/v1/blobs", content=png.getvalue(), headers={"content-type": "image/png"})
    assert upload.status_code == 201, upload.text

    responses = {
        "export.md": await gateway.http.get(f"/v1/writing/projects/{project['projectId']}/export.md"),
        "export.epub": await gateway.http.get(f"/v1/writing/projects/{project['projectId']}/export.epub"),
        "404": await gateway.http.get("/v1/runs/nobody"),
        "upload": upload,
        "blob": await gateway.http.get(upload.json()["url"]),
    }

    assert {name: r.headers.get("x-content-type-options") for name, r in responses.items()} == dict.fromkeys(
        responses, "nosniff"
    ), {name: r.status_code for name, r in responses.items()}
