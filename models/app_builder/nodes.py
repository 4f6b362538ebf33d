"""The app builder's activities: the typed `ActivitySpec` that names each one `app_builder.<node>` for the worker
and the workflow alike. Each analysis agent and each execution agent is its own activity (the Web UI shows it by
name); a writing agent with a model is a tool loop: one `task_turn` per LLM turn, one `task_tool` per call."""

from models.app_builder.agents import (
    AnalysisOutcome,
    AnalysisRequest,
    PlanDraft,
    PlanningRequest,
    TaskOutcome,
    TaskRequest,
    TaskToolRequest,
    TaskToolResult,
    TaskTurn,
    TaskTurnRequest,
)
from models.app_builder.documents import ANALYSIS_ORDER, AnalysisAgentID
from models.app_builder.plan import WRITING_AGENTS, ExecutionAgentID
from models.app_builder.quality import QualityReport, QualityRequest
from models.app_builder.rounds import ChangesRequest, RoundChanges
from models.app_builder.workspace import ApplyOutcome, ApplyRequest
from models.nodes import ActivitySpec


def _node(agent_id: str) -> str:
    return agent_id.replace("-", "_")


ANALYSIS: dict[AnalysisAgentID, ActivitySpec[AnalysisRequest, AnalysisOutcome]] = {
    agent: ActivitySpec(f"app_builder.{_node(agent)}", AnalysisRequest, AnalysisOutcome) for agent in ANALYSIS_ORDER
}
"""`app_builder.product_manager`, `app_builder.frontend_architect`, `app_builder.ui_expert`, `app_builder.ux_expert`."""

PLANNER = ActivitySpec("app_builder.planner", PlanningRequest, PlanDraft)

EXECUTION: dict[ExecutionAgentID, ActivitySpec[TaskRequest, TaskOutcome]] = {
    agent: ActivitySpec(f"app_builder.{_node(agent)}", TaskRequest, TaskOutcome)
    for agent in (*WRITING_AGENTS, ExecutionAgentID.REPAIR)
}
"""`app_builder.scaffold_agent`, ..., `app_builder.repair_agent`: one task, offline (no model configured)."""

TASK_TURN = ActivitySpec("app_builder.task_turn", TaskTurnRequest, TaskTurn)
TASK_TOOL = ActivitySpec("app_builder.task_tool", TaskToolRequest, TaskToolResult)

APPLY_PATCHES = ActivitySpec("app_builder.apply_patches", ApplyRequest, ApplyOutcome)
QUALITY_CHECKS = ActivitySpec("app_builder.quality_checks", QualityRequest, QualityReport)
"""The quality agent's parsers and import resolution."""
TOOLCHAIN_CHECKS = ActivitySpec("app_builder.toolchain_checks", QualityRequest, QualityReport)
"""The quality agent's `tsc --noEmit` and build, in a copy of the workspace with its dependencies installed."""
ROUND_CHANGES = ActivitySpec("app_builder.round_changes", ChangesRequest, RoundChanges)
"""A follow-up round's files added, modified and removed against its base (only runs with a base call it)."""
