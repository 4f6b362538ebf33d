"""A post's exports stay with their owner (issue 29 item 4): with API keys configured, another principal asking for
the text, Markdown or zip of a finished post gets the 404 of a run that does not exist."""

from tests.api.conftest import ALICE, BOB, Gateway
from tests.sse import parse_sse


async def test_another_principal_gets_404_from_every_export_of_a_post(keyed: Gateway) -> None:
    response = await keyed.http.post(
        "/v1/content/runs", json={"topic": "打工人的咖啡续命指南", "platform": "weibo"}, headers=ALICE
    )
    assert parse_sse(response.text)[-1].event == "done"
    run_id = response.headers["x-run-id"]

    for kind in ("txt", "md", "zip"):
        path = f"/v1/content/runs/{run_id}/export.{kind}"
        assert (await keyed.http.get(path, headers=ALICE)).status_code == 200
        theirs = await keyed.http.get(path, headers=BOB)
        assert theirs.status_code == 404 and theirs.json()["error"]["code"] == "RUN_NOT_FOUND", theirs.text
