"""The content family's activities: the Supervisor, its agents and their tools, and the post editor (its `Family`
names this factory)."""

from collections.abc import Callable
from typing import Any

from activities.common.dependencies import WorkerDependencies
from activities.content.agents import ContentAgents
from activities.content.edits import PostEditor
from activities.content.images import ImageAgent
from activities.content.research import ResearchAgent
from activities.content.supervisor import SupervisorAgent


def build_activities(deps: WorkerDependencies) -> list[Callable[..., Any]]:
    """Each agent over the blob store and the model; images through the worker's shared image providers."""
    blobs, llm = deps.blobs, deps.llm
    agents = ContentAgents(blobs, llm)
    supervisor = SupervisorAgent(blobs, llm)
    research = ResearchAgent(blobs, llm)
    editor = PostEditor(llm)
    images = ImageAgent(deps.image_provider, blobs, llm, direct=deps.direct_images, hosted=deps.hosted_images)
    return [
        supervisor.supervisor_turn,
        supervisor.supervisor_tool,
        agents.brief_compiler,
        research.research_turn,
        research.research_tool,
        agents.reference_intelligence,
        agents.layout_planner,
        agents.image_planner,
        agents.writer,
        images.image_turn,
        images.image_tool,
        images.image_submit,
        images.image_poll,
        images.image_fetch,
        images.image_cancel,
        agents.review,
        editor.edit_rewrite,
    ]
