"""The writing family as the platform knows it: its registered workflows and the `Family` that declares it."""

from models.writing.errors import WritingErrorCode
from models.writing.events import WRITING_EVENTS
from models.writing.runs import RelationshipRunState, WritingState
from workflows.common.family import ConsolePage, Family
from workflows.common.registration import RegisteredWorkflow
from workflows.writing.graph import GRAPH
from workflows.writing.relationships import RELATIONSHIP_GRAPH, RelationshipGraphWorkflow
from workflows.writing.workflow import WritingWorkflow

WRITING = RegisteredWorkflow(
    workflow=WritingWorkflow,
    family="writing",
    description=(
        "InkFlow writing assistant (seed 002): router → the intent's workflow (parallel preprocessing → agent or "
        "agent chain → post-processing); started by POST /v1/writing/projects/{projectId}/chat"
    ),
    state_model=WritingState,
    events=WRITING_EVENTS,
    graph=GRAPH,
    human_input=True,
)
RELATIONSHIP_UPDATE = RegisteredWorkflow(
    workflow=RelationshipGraphWorkflow,
    family="writing",
    description="A character design's relationship-graph update, which outlives the request that scheduled it",
    state_model=RelationshipRunState,
    events=WRITING_EVENTS,
    graph=RELATIONSHIP_GRAPH,
)

WRITING_FAMILY = Family(
    name="writing",
    workflows=(
        WRITING,
        RELATIONSHIP_UPDATE,
    ),
    activities="activities.writing.family:build_activities",
    error_codes=WritingErrorCode,
    gateway="api.routes.writing_chat:GATEWAY",
    console=ConsolePage(page="writing", label_zh="写作", label_en="Writing"),
    description="InkFlow, the writing assistant (seed 002): projects and a conversation about them",
)
