"""The writing family's activities over the writers' projects under `DATA_DIR` (its `Family` names this factory)."""

from collections.abc import Callable
from typing import Any

from activities.common.dependencies import WorkerDependencies
from activities.writing.agents import WritingAgents
from activities.writing.consistency_check import ConsistencyChecker
from activities.writing.preprocess import Preprocessor
from activities.writing.project_access import ProjectReader
from activities.writing.project_updates import ProjectUpdater
from activities.writing.router import Router
from stores.writing_projects import ProjectStore


def build_activities(deps: WorkerDependencies) -> list[Callable[..., Any]]:
    """The router, the preprocessing tasks, the agents, the draft check and the project updates."""
    reader = ProjectReader(ProjectStore.under(deps.settings.data_dir), deps.project_index)
    preprocessor = Preprocessor(reader, deps.embedder)
    agents = WritingAgents(reader, deps.llm)
    updater = ProjectUpdater(reader)
    return [
        Router(deps.llm).route,
        preprocessor.rag,
        preprocessor.character_states,
        preprocessor.style_samples,
        preprocessor.archetypes,
        preprocessor.plot_loops,
        preprocessor.preflight,
        agents.writer,
        agents.character,
        agents.world_builder,
        agents.planner,
        agents.consistency,
        agents.brainstorm,
        agents.simple,
        ConsistencyChecker(reader, deps.llm).check,
        updater.update_relationships,
        updater.update_knowledge,
    ]
