"""The writing family's activities over the writers' projects (`stores.writing_stores`: under `DATA_DIR`, or in
PostgreSQL); its `Family` names this factory."""

from collections.abc import Callable
from typing import Any

from activities.common.dependencies import WorkerDependencies
from activities.writing.agents import WritingAgents
from activities.writing.consistency_check import ConsistencyChecker
from activities.writing.memory import ConversationMemory
from activities.writing.preprocess import Preprocessor
from activities.writing.project_access import ProjectReader
from activities.writing.project_updates import ProjectUpdater
from activities.writing.router import Router
from stores.writing_stores import open_project_store, open_session_store


def build_activities(deps: WorkerDependencies) -> list[Callable[..., Any]]:
    """The router, the preprocessing tasks, the agents, the draft check, the project updates and the
    conversations' memory."""
    settings = deps.settings
    projects = open_project_store(settings)
    reader = ProjectReader(projects, deps.project_index)
    sessions = open_session_store(settings)
    memory = ConversationMemory(sessions, settings.writing_memory_budget_tokens, projects)
    preprocessor = Preprocessor(reader, deps.embedder)
    agents = WritingAgents(reader, deps.llm, memory)
    updater = ProjectUpdater(reader)
    return [
        Router(deps.llm, memory).route,
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
        memory.record_turn,
    ]
