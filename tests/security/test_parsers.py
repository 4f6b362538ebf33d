"""Parser edges: every number a request carries in a header or the query string is bounded before it is parsed
(a 5000-digit `Last-Event-ID` or `Content-Length` is a 4xx with a code, never a 500 and a traceback), and a
malformed resume point is refused, not replayed from the start in silence."""

import logging

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
