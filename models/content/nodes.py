"""The content run's activities: the typed `ActivitySpec` that names each one `supervisor.<node>` for the worker
and the workflow alike. Agents without tools are one activity each; each tool loop has a turn and a tool call."""

from models.content.agents import AgentName, AgentOutcome, AgentRequest
from models.content.edits import SectionRewrite, SectionRewriteRequest
from models.content.turns import HostedImageFetch, ToolCallRequest, ToolCallResult, Turn, TurnRequest
from models.hosted_tasks import Cancelled, PollRequest, SubmittedTask, TaskPoll
from models.nodes import ActivitySpec

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
    agent: ActivitySpec(f"content.{agent.value.removesuffix('_agent')}", AgentRequest, AgentOutcome)
    for agent in TOOLLESS_AGENTS
}
"""`supervisor.brief_compiler`, `supervisor.writer`, ..."""

SUPERVISOR_TURN = ActivitySpec("content.supervisor_turn", TurnRequest, Turn)
SUPERVISOR_TOOL = ActivitySpec("content.supervisor_tool", ToolCallRequest, ToolCallResult)
RESEARCH_TURN = ActivitySpec("content.research_turn", TurnRequest, Turn)
RESEARCH_TOOL = ActivitySpec("content.research_tool", ToolCallRequest, ToolCallResult)
IMAGE_TURN = ActivitySpec("content.image_turn", TurnRequest, Turn)
IMAGE_TOOL = ActivitySpec("content.image_tool", ToolCallRequest, ToolCallResult)
"""`generate_image` on the local renderer or a synchronous image API: the image in one call."""
IMAGE_SUBMIT = ActivitySpec("content.image_submit", ToolCallRequest, SubmittedTask)
"""`generate_image` on a task-based image API, first step: create the provider's task (then `image.poll`)."""
IMAGE_POLL = ActivitySpec("content.image_poll", PollRequest, TaskPoll)
IMAGE_CANCEL = ActivitySpec("content.image_cancel", PollRequest, Cancelled)
IMAGE_FETCH = ActivitySpec("content.image_fetch", HostedImageFetch, ToolCallResult)
"""`generate_image` on a task-based image API, last step: copy the finished image into the blob store."""
EDIT_REWRITE = ActivitySpec("content.edit_rewrite", SectionRewriteRequest, SectionRewrite)
"""An edit of a finished post: one text section rewritten by the user's instruction (model, or offline)."""
