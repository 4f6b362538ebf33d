"""The supervisor family's workflow as the platform registers it."""

from models.content.events import SUPERVISOR_EVENTS
from models.content.runs import ContentRunRequest
from models.content.state import ContentState
from workflows.common.registration import RegisteredWorkflow
from workflows.content.graph import GRAPH
from workflows.content.workflow import ContentSupervisorWorkflow

CONTENT_SUPERVISOR = RegisteredWorkflow(
    workflow=ContentSupervisorWorkflow,
    family="content",
    description=(
        "Content creation under an LLM Supervisor (seed 001): the Supervisor picks next_agent, routing corrects "
        "missing preconditions, the review's low dimensions fall back; started by POST /v1/content/runs"
    ),
    state_model=ContentState,
    events=SUPERVISOR_EVENTS,
    input_model=ContentRunRequest,
    graph=GRAPH,
    human_input=True,
)
