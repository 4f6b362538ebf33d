"""The image family's workflows as the platform registers them."""

from models.image.events import IMAGE_EVENTS
from models.image.requests import ImageRunInput
from models.image.runs import SessionSnapshot
from models.image.state import ImageAgentState
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
