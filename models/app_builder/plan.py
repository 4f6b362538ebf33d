"""Seed 003's Execution_Plan: tasks for the seven execution agents, each with its dependencies and tools.

A task's `agentId` and `tools` are plain strings here so that a plan naming an unknown agent or tool still
parses and is refused by the plan validation (`workflows.app_builder.plan_checks`) with an issue that names it,
which is what the planner's repair round needs to read. The schema a model is asked to answer in is narrowed for
each request to the registries' names (`activities.app_builder.planner.plan_answer_model`).
"""

from enum import StrEnum
from typing import Literal

from pydantic import Field

from models.base import CamelModel


class ExecutionAgentID(StrEnum):
    """The seven execution agents (seed 003 `ExecutionAgentID`)."""

    SCAFFOLD = "scaffold-agent"
    PAGE = "page-agent"
    INTERACTION = "interaction-agent"
    STATE = "state-agent"
    STYLE = "style-agent"
    QUALITY = "quality-agent"
    REPAIR = "repair-agent"


WRITING_AGENTS = (
    ExecutionAgentID.SCAFFOLD,
    ExecutionAgentID.PAGE,
    ExecutionAgentID.INTERACTION,
    ExecutionAgentID.STATE,
    ExecutionAgentID.STYLE,
)
"""Agents that write the project's files in the waves; the quality agent checks them and the repair agent fixes
what it found."""


class ExecutionPlanTask(CamelModel):
    """One task: an execution agent, its goal, the tasks it waits for and the tools it may use."""

    id: str = Field(min_length=1, max_length=64)
    agent_id: str
    goal: str
    depends_on: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)


class ExecutionPlan(CamelModel):
    """The planning layer's plan (seed 003 `ExecutionPlan`)."""

    id: str
    created_at: int
    """Milliseconds since the epoch."""
    tasks: list[ExecutionPlanTask]


PlanIssueCode = Literal[
    "schema", "no_tasks", "duplicate_task", "unknown_agent", "unknown_tool", "unknown_dependency", "cycle"
]


class PlanIssue(CamelModel):
    """One reason a plan is refused, written so the planner's repair round (and a person) can act on it."""

    code: PlanIssueCode
    message: str
    task_id: str | None = None
