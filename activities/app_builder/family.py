"""The app builder's activities: its agents, merging and quality checks (its `Family` names this factory)."""

from collections.abc import Callable
from typing import Any

from activities.app_builder.analysis import AnalysisAgents
from activities.app_builder.execution import ExecutionAgents
from activities.app_builder.patches import PatchApplier
from activities.app_builder.planner import Planner
from activities.app_builder.quality import QualityAgent
from activities.app_builder.rounds import RoundCounter
from activities.app_builder.task_loop import TaskLoop
from activities.common.dependencies import WorkerDependencies


def build_activities(deps: WorkerDependencies) -> list[Callable[..., Any]]:
    """The analysis agents, the planner, the execution agents and their tool loop, the merge, the quality agent
    (its npm work under `DATA_DIR/app_builder`) and a follow-up round's change counts."""
    blobs, llm = deps.blobs, deps.llm
    analysis = AnalysisAgents(llm)
    execution = ExecutionAgents(blobs)
    loop = TaskLoop(blobs, llm)
    quality = QualityAgent(blobs, deps.settings.data_dir / "app_builder")
    return [
        analysis.product_manager,
        analysis.frontend_architect,
        analysis.ui_expert,
        analysis.ux_expert,
        Planner(blobs, llm).planner,
        execution.scaffold_agent,
        execution.page_agent,
        execution.state_agent,
        execution.style_agent,
        execution.interaction_agent,
        execution.repair_agent,
        loop.task_turn,
        loop.task_tool,
        PatchApplier(blobs).apply_patches,
        quality.quality_checks,
        quality.toolchain_checks,
        RoundCounter(blobs).round_changes,
    ]
