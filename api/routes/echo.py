"""The echo family's part of the gateway: no routes of its own (`POST /v1/runs` starts it, `/v1/runs/{id}/input`
answers its question), only how a run starts: the request plus what the gateway knows (whether a model is
configured, how long a question waits)."""

from pydantic import BaseModel

from api.families import FamilyGateway
from api.launch import LaunchContext, Launcher, PrepareContext, start_run
from models.echo.runs import EchoRequest, EchoRunInput
from models.runs import RunTicket
from workflows.echo.family import ECHO_WORKFLOW

INPUT_TIMEOUT_SECONDS = 3600.0
"""How long an echo run waits for the person's choice before it keeps the reply."""


def prepare_echo(run_input: BaseModel, context: PrepareContext) -> BaseModel:
    """The workflow's input from the request (a module-level function: it runs in the intake process)."""
    assert isinstance(run_input, EchoRequest)
    return EchoRunInput(
        text=run_input.text,
        llm_configured=context.settings.llm_provider is not None,
        input_timeout_seconds=INPUT_TIMEOUT_SECONDS,
    )


async def start_echo(context: LaunchContext, prepared: BaseModel, session_id: str | None) -> RunTicket:
    assert isinstance(prepared, EchoRunInput)
    return await start_run(context, prepared, session_id, summary=f"echo: {prepared.text[:60]}")


GATEWAY = FamilyGateway(launchers={ECHO_WORKFLOW.name: Launcher(prepare=prepare_echo, start=start_echo)})
"""How an echo run starts from `POST /v1/runs`."""
