"""Issue 50 #9: wrong API keys are throttled per client address. 1,500 wrong keys from one client in 5 s all got 401;
now an address that has sent `FAILED_KEYS_PER_MINUTE` wrong (or missing) keys is refused 429
`TOO_MANY_FAILED_KEYS` with `Retry-After`, its right key too (else each answer would still tell a guesser whether it
guessed right), while other addresses go on; the minute refills."""

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from api.errors import ApiError
from api.key_throttle import FailedKeyThrottle
from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, KEYS, Gateway, running_gateway

LIMIT = 5


@pytest.fixture
async def guarded(env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore) -> AsyncIterator[Gateway]:
    async with running_gateway(env, tmp_path, api_style_store, api_keys=KEYS, failed_keys_per_minute=LIMIT) as gateway:
        yield gateway


async def test_an_address_that_sent_too_many_wrong_keys_is_refused_even_its_right_key(guarded: Gateway) -> None:
    wrong = {"authorization": "Bearer guess"}
    answers = [(await guarded.http.get("/v1/workflows", headers=wrong)).status_code for _ in range(LIMIT)]
    refused = await guarded.http.get("/v1/workflows", headers=wrong)
    right = await guarded.http.get("/v1/workflows", headers=ALICE)
    missing = await guarded.http.post("/v1/writing/projects", json={"name": "x"})

    assert answers == [401] * LIMIT
    assert refused.status_code == right.status_code == missing.status_code == 429
    assert refused.json()["error"]["code"] == right.json()["error"]["code"] == "TOO_MANY_FAILED_KEYS"
    assert 1 <= int(refused.headers["retry-after"]) <= 60 // LIMIT

    elsewhere = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=guarded.app, client=("10.0.0.2", 40000)), base_url="http://gateway"
    )
    async with elsewhere:
        assert (await elsewhere.get("/v1/workflows", headers=ALICE)).status_code == 200


def test_the_minute_refills_one_wrong_key_at_a_time() -> None:
    now = [0.0]
    throttle = FailedKeyThrottle(LIMIT, clock=lambda: now[0])
    for _ in range(LIMIT):
        throttle.check("10.0.0.1")
        throttle.failed("10.0.0.1")

    with pytest.raises(ApiError) as refused:
        throttle.check("10.0.0.1")
    now[0] += 60 / LIMIT  # one wrong key's worth
    throttle.check("10.0.0.1")
    throttle.failed("10.0.0.1")

    assert refused.value.status == 429 and refused.value.headers == {"Retry-After": str(60 // LIMIT)}
    with pytest.raises(ApiError):
        throttle.check("10.0.0.1")
    throttle.check("10.0.0.2")
