"""The supervisor family's workflow as the platform registers it."""

from models.supervisor.events import SUPERVISOR_EVENTS
from models.supervisor.runs import ContentRunRequest
from models.supervisor.state import ContentState
from workflows.common.registration import RegisteredWorkflow
from workflows.supervisor.graph import GRAPH
from workflows.supervisor.workflow import ContentSupervisorWorkflow

CONTENT_SUPERVISOR = RegisteredWorkflow(
    workflow=ContentSupervisorWorkflow,
    family="supervisor",
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
