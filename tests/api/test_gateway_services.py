"""A family's gateway services (`FamilyGateway.services`) live as long as the gateway: built at start-up, on
`app.state` by name while it serves, and each one with a `close()` closed at shutdown (a database pool, a vector
store's connection), every one even when another fails to close."""

from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from api.families import FamilyGateway
from api.server import create_app
from models.settings import Settings
from tests.workflows.harness import settings_for
from workflows.common.family import Family
from workflows.registry import FAMILIES


class Pool:
    """A service holding something open."""

    def __init__(self, *, fails: bool = False) -> None:
        self.closed = False
        self.fails = fails

    def close(self) -> None:
        self.closed = True
        if self.fails:
            raise OSError("the connection was already gone")


OPENED: dict[str, object] = {}


def services(settings: Settings) -> dict[str, object]:
    OPENED.clear()
    OPENED.update({"first_pool": Pool(fails=True), "second_pool": Pool(), "limits": {"max": 3}})
    return dict(OPENED)


GATEWAY = FamilyGateway(services=services)
SERVICES_FAMILY = Family(name="services_probe", workflows=(), activities="", gateway=f"{__name__}:GATEWAY")


async def test_services_are_on_the_app_while_it_serves_and_closed_at_shutdown(
    env: WorkflowEnvironment, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(settings_for(tmp_path), client=env.client, families=(*FAMILIES, SERVICES_FAMILY))

    async with app.router.lifespan_context(app):
        first, second = app.state.first_pool, app.state.second_pool
        assert (first, second) == (OPENED["first_pool"], OPENED["second_pool"])
        assert not first.closed and not second.closed, "open while the gateway serves"
        assert app.state.limits == {"max": 3}

    assert first.closed and second.closed, "the second is closed although the first failed to"
    assert "closing Pool failed" in caplog.text
