"""A bounded Schemathesis run over the real stack's `/openapi.json`: generated requests (valid and invalid) for
every operation, and none may answer 5xx or a body that does not match the documented schema."""

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from tests.stack_process import Stack, running_stack

pytestmark = pytest.mark.e2e

EXAMPLES_PER_OPERATION = 25
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data = tmp_path_factory.mktemp("data")
    # generated app runs stream to their end within a case's 60 s: no npm install for them
    env = {"APP_TOOLCHAIN_CHECKS": "off"}
    with running_stack(data, tmp_path_factory.mktemp("logs") / "stack.log", env=env) as running:
        yield running


def test_no_generated_request_gets_a_5xx_or_an_undocumented_body(stack: Stack) -> None:
    schema = schemathesis.openapi.from_url(f"{stack.gateway}/openapi.json")
    results = list(schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in results)  # every operation's schema could be read
    operations = [result.ok() for result in results if isinstance(result, Ok)]
    assert len(operations) >= 10
    failures: list[str] = []
    statuses: list[int] = []

    def examples_of(operation: Any) -> Callable[[], None]:
        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            database=None,
            derandomize=True,  # the same requests on every run: a failure in CI is one to reproduce
        )
        def check(case: Any) -> None:
            if case.path.endswith("/events") and case.headers is not None:
                case.headers["Last-Event-ID"] = "999999"  # a stream past its end ends at once
            if case.path == "/v1/content/runs" and isinstance(case.body, dict):
                case.body["platform"] = "weibo"  # else a valid run asks which platform, and its stream waits a day
            try:
                response = case.call(base_url=stack.gateway, timeout=60)
                statuses.append(response.status_code)
                case.validate_response(response, checks=CHECKS)
            except (AssertionError, FailureGroup) as failure:
                failures.append(f"{operation.label}: {failure}"[:2000])
                raise

        return check

    for operation in operations:
        with suppress(AssertionError, FailureGroup):  # collected in `failures`; the next operation still runs
            examples_of(operation)()

    assert not failures, "\n\n".join(failures)
    assert len(statuses) >= len(operations) * 5, Counter(statuses)  # the run really asked
    assert any(200 <= s < 300 for s in statuses) and any(400 <= s < 500 for s in statuses)
