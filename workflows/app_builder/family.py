"""The app builder family as the platform knows it: its registered workflows and the `Family` that declares it."""

from models.app_builder.errors import AppBuilderErrorCode
from models.app_builder.events import APP_BUILDER_EVENTS
from models.app_builder.runs import AppRunRequest
from models.app_builder.state import AppBuilderState
from workflows.app_builder.graph import GRAPH
from workflows.app_builder.workflow import AppBuilderWorkflow
from workflows.common.family import ConsolePage, Family
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

APP_BUILDER_FAMILY = Family(
    name="app_builder",
    workflows=(APP_BUILDER,),
    activities="activities.app_builder.family:build_activities",
    error_codes=AppBuilderErrorCode,
    gateway="api.routes.app_builder:GATEWAY",
    console=ConsolePage(page="apps", label_zh="应用构建", label_en="App builder"),
    description="The app builder (seed 003): a front-end project from a description",
)
