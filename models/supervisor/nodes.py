"""The content run's activities: the typed `ActivitySpec` that names each one `supervisor.<node>` for the worker
and the workflow alike. Agents without tools are one activity each; each tool loop has a turn and a tool call."""

from models.hosted_tasks import Cancelled, PollRequest, SubmittedTask, TaskPoll
from models.nodes import ActivitySpec
from models.supervisor.agents import AgentName, AgentOutcome, AgentRequest
from models.supervisor.turns import HostedImageFetch, ToolCallRequest, ToolCallResult, Turn, TurnRequest

TOOLLESS_AGENTS = (
    AgentName.BRIEF_COMPILER,
    AgentName.REFERENCE_INTELLIGENCE,
    AgentName.LAYOUT_PLANNER,
    AgentName.IMAGE_PLANNER,
    AgentName.WRITER,
    AgentName.REVIEW,
)
"""Agents that are one activity; research_evidence_agent and image_agent are tool loops."""

AGENTS: dict[AgentName, ActivitySpec[AgentRequest, AgentOutcome]] = {
    agent: ActivitySpec(f"supervisor.{agent.value.removesuffix('_agent')}", AgentRequest, AgentOutcome)
    for agent in TOOLLESS_AGENTS
}
"""`supervisor.brief_compiler`, `supervisor.writer`, ..."""

SUPERVISOR_TURN = ActivitySpec("supervisor.supervisor_turn", TurnRequest, Turn)
SUPERVISOR_TOOL = ActivitySpec("supervisor.supervisor_tool", ToolCallRequest, ToolCallResult)
RESEARCH_TURN = ActivitySpec("supervisor.research_turn", TurnRequest, Turn)
RESEARCH_TOOL = ActivitySpec("supervisor.research_tool", ToolCallRequest, ToolCallResult)
IMAGE_TURN = ActivitySpec("supervisor.image_turn", TurnRequest, Turn)
IMAGE_TOOL = ActivitySpec("supervisor.image_tool", ToolCallRequest, ToolCallResult)
"""`generate_image` on the local renderer or a synchronous image API: the image in one call."""
IMAGE_SUBMIT = ActivitySpec("supervisor.image_submit", ToolCallRequest, SubmittedTask)
"""`generate_image` on a task-based image API, first step: create the provider's task (then `image.poll`)."""
IMAGE_POLL = ActivitySpec("supervisor.image_poll", PollRequest, TaskPoll)
IMAGE_CANCEL = ActivitySpec("supervisor.image_cancel", PollRequest, Cancelled)
IMAGE_FETCH = ActivitySpec("supervisor.image_fetch", HostedImageFetch, ToolCallResult)
"""`generate_image` on a task-based image API, last step: copy the finished image into the blob store."""
