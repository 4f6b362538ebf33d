"""The app builder family's workflow as the platform registers it."""

from models.app_builder.events import APP_BUILDER_EVENTS
from models.app_builder.runs import AppRunRequest
from models.app_builder.state import AppBuilderState
from workflows.app_builder.graph import GRAPH
from workflows.app_builder.workflow import AppBuilderWorkflow
from workflows.common.registration import RegisteredWorkflow

APP_BUILDER = RegisteredWorkflow(
    workflow=AppBuilderWorkflow,
    family="app_builder",
    description=(
        "A front-end project from a description (seed 003): four analysis agents in order, an LLM Execution_Plan "
        "(validated, one repair round), waves of execution agents with three-way merging, a quality/repair loop; "
        "started by POST /v1/apps/runs, the project served as a zip"
    ),
    state_model=AppBuilderState,
    events=APP_BUILDER_EVENTS,
    input_model=AppRunRequest,
    graph=GRAPH,
)
