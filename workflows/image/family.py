"""The image family as the platform knows it: its registered workflows and the `Family` that declares it."""

from models.image.errors import ImageErrorCode
from models.image.events import IMAGE_EVENTS
from models.image.requests import ImageRunInput
from models.image.runs import SessionSnapshot
from models.image.state import ImageAgentState
from workflows.common.family import ConsolePage, Family
from workflows.common.registration import RegisteredWorkflow
from workflows.image.graph import GRAPH
from workflows.image.session import ImageSessionWorkflow
from workflows.image.workflow import ImageAgentWorkflow

IMAGE_AGENT = RegisteredWorkflow(
    workflow=ImageAgentWorkflow,
    family="image",
    description="AiVista image agent (seeds 000, 004): one turn, Validate → Planner → RAG → Executor → Critic → GenUI",
    state_model=ImageAgentState,
    events=IMAGE_EVENTS,
    input_model=ImageRunInput,
    graph=GRAPH,
)
IMAGE_SESSION = RegisteredWorkflow(
    workflow=ImageSessionWorkflow,
    family="image",
    description="An image-agent session: its turns one at a time, its last 50 messages and last image",
    state_model=SessionSnapshot,
    events=None,
)

IMAGE = Family(
    name="image",
    workflows=(
        IMAGE_AGENT,
        IMAGE_SESSION,
    ),
    activities="activities.image.family:build_activities",
    error_codes=ImageErrorCode,
    gateway="api.routes.image:GATEWAY",
    console=ConsolePage(page="image", label_zh="图像工作室", label_en="Image studio"),
    description="The AiVista image agent (seeds 000, 004): a turn per message, one session per conversation",
)
