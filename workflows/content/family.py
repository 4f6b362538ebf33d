"""The content family as the platform knows it: its registered workflows (a post's run, an edit of a finished
post) and the `Family` that declares it."""

from models.content.edits import EDIT_EVENTS, ContentEditState
from models.content.errors import ContentErrorCode
from models.content.events import SUPERVISOR_EVENTS
from models.content.runs import ContentRunRequest
from models.content.state import ContentState
from workflows.common.family import ConsolePage, Family
from workflows.common.registration import RegisteredWorkflow
from workflows.content.edit import ContentEditWorkflow
from workflows.content.edit_graph import EDIT_GRAPH
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

CONTENT_EDIT = RegisteredWorkflow(
    workflow=ContentEditWorkflow,
    family="content",
    description=(
        "One edit of a finished post as its own short run (rewrite a section, redraw an image): the post's next "
        "version, under the same creativeId; started by POST /v1/content/runs/{id}/edits"
    ),
    state_model=ContentEditState,
    events=EDIT_EVENTS,
    graph=EDIT_GRAPH,
)

CONTENT = Family(
    name="content",
    workflows=(CONTENT_SUPERVISOR, CONTENT_EDIT),
    activities="activities.content.family:build_activities",
    error_codes=ContentErrorCode,
    gateway="api.routes.content:GATEWAY",
    console=ConsolePage(page="content", label_zh="内容创作", label_en="Content"),
    description="Content creation under an LLM Supervisor (seed 001): a post with text and images",
)
