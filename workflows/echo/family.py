"""The echo family as the platform knows it: its registered workflow and the `Family` that declares it."""

from models.echo.errors import EchoErrorCode
from models.echo.events import ECHO_EVENTS
from models.echo.runs import EchoRequest, EchoState
from workflows.common.family import Family
from workflows.common.registration import RegisteredWorkflow
from workflows.echo.graph import GRAPH
from workflows.echo.workflow import EchoWorkflow

ECHO_WORKFLOW = RegisteredWorkflow(
    workflow=EchoWorkflow,
    family="echo",
    description="The template family: a reply (the model, else an offline rule), one tool call, one question",
    state_model=EchoState,
    events=ECHO_EVENTS,
    input_model=EchoRequest,
    graph=GRAPH,
    human_input=True,
)

ECHO = Family(
    name="echo",
    workflows=(ECHO_WORKFLOW,),
    activities="activities.echo.family:build_activities",
    gateway="api.routes.echo:GATEWAY",
    error_codes=EchoErrorCode,
    description="The template family (docs/adding-a-family.md)",
)
