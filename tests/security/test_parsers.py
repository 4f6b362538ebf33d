"""Parser edges: every number a request carries in a header or the query string is bounded before it is parsed
(a 5000-digit `Last-Event-ID` or `Content-Length` is a 4xx with a code, never a 500 and a traceback), a
malformed resume point is refused, not replayed from the start in silence, and every route reads JSON by one
policy: an object with a key twice is refused the same way wherever the body is parsed."""

import logging
import re
from typing import Any

import pytest

from tests.api.conftest import Gateway
from tests.api.image.test_chat import chat
from tests.sse import parse_sse

HUGE = "9" * 5000
"""More digits than Python's `int()` takes from a string (4300)."""


@pytest.mark.parametrize(
    ("header", "query"),
    [
        (HUGE, ""),
        ("", f"?after={HUGE}"),
        (str(2**53), ""),
        ("", f"?after={2**53}"),
        ("-1", ""),
        ("٣", ""),  # an Arabic-Indic 3 (str.isdigit() says yes), sent as UTF-8
        ("abc", ""),
    ],
)
async def test_a_resume_point_that_is_not_an_event_id_is_refused_with_a_code(
    gateway: Gateway, caplog: pytest.LogCaptureFixture, header: str, query: str
) -> None:
    run_id, _, _ = await chat(gateway, {"text": "画一只猫"})
    headers = {b"Last-Event-ID": header.encode()} if header else {}

    with caplog.at_level(logging.ERROR, logger="api"):
        response = await gateway.http.get(f"/v1/runs/{run_id}/events{query}", headers=headers)

    assert response.status_code == 422, response.text[:300]
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"][0]["loc"] == (["header", "last-event-id"] if header else ["query", "after"])
    assert not caplog.records, "no traceback in the log"


async def test_the_largest_event_id_is_a_resume_point_past_the_end(gateway: Gateway) -> None:
    run_id, _, events = await chat(gateway, {"text": "画一只猫"})

    resumed = await gateway.http.get(f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": str(2**53 - 1)})
    from_start = await gateway.http.get(f"/v1/runs/{run_id}/events?after=-1")

    assert resumed.status_code == 200, resumed.text
    assert all(e.id is not None for e in parse_sse(resumed.text)), "an empty or terminal stream, not an error"
    assert [e.id for e in parse_sse(from_start.text)] == [e.id for e in events]


async def test_a_content_length_of_thousands_of_digits_is_too_large_not_a_crash(gateway: Gateway) -> None:
    headers = {"content-type": "application/json", "content-length": HUGE}

    response = await gateway.http.post("/v1/runs/image-x-1-0/input", content=b"{}", headers=headers)

    assert response.status_code == 413 and response.json()["error"]["code"] == "INPUT_TOO_LARGE"


DUPLICATE_TEXT = b'{"text": "x", "text": "y"}'
JSON = {"content-type": "application/json"}


def assert_duplicate_key_refused(response: Any, key: str) -> None:
    assert response.status_code == 422, response.text[:300]
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"][0]["type"] == "json_invalid"
    assert f"duplicate key '{key}'" in error["details"][0]["msg"]
    assert error["message"].startswith("请求格式不正确：Invalid JSON"), error["message"]


async def test_a_key_twice_is_refused_alike_where_fastapi_and_where_the_intake_parses_the_body(
    gateway: Gateway,
) -> None:
    project = (await gateway.http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]

    writing = await gateway.http.post(f"/v1/writing/projects/{project}/chat", content=DUPLICATE_TEXT, headers=JSON)
    image = await gateway.http.post("/api/agent/chat", content=DUPLICATE_TEXT, headers=JSON)

    assert_duplicate_key_refused(writing, "text")
    assert_duplicate_key_refused(image, "text")
    assert writing.json()["error"]["details"] == image.json()["error"]["details"]


def first_property(schema: dict[str, Any], components: dict[str, Any]) -> str:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    return str(next(iter(schema["properties"])))


async def test_every_json_body_route_refuses_a_key_twice(gateway: Gateway) -> None:
    document = (await gateway.http.get("/openapi.json")).json()
    components = document["components"]["schemas"]
    checked = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            key = first_property(content["application/json"]["schema"], components)
            url = re.sub(r"\{[^}]+\}", "p1", path)
            body = f'{{"{key}": "a", "{key}": "b"}}'.encode()

            response = await gateway.http.request(method.upper(), url, content=body, headers=JSON)

            assert_duplicate_key_refused(response, key)
            checked.append(f"{method.upper()} {path}")
    assert {"POST /v1/runs", "POST /api/agent/chat", "POST /v1/writing/projects/{project_id}/chat"} <= set(checked)
    assert len(checked) >= 19, checked
