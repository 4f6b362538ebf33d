"""The planning layer, one activity (`app_builder.planner`): stores the four documents for the execution agents
and writes the Execution_Plan.

With a model, the model writes the plan's tasks as JSON (the repair round also reads the refused plan and the
issues) in a schema built for the request from the registries (`plan_answer_model`): a writing agent's task (the
repair agent's too) names one of those agents and tools of the registry including `write_file`, a quality task
the quality agent; a task outside them goes back to the model in the client's repair round, with the reason. An
answer that still does not parse as tasks is returned as a `schema` issue, so the workflow's one repair round
covers it like any other refusal. Each task's id and goal stream to the run as the model writes them, when the
request says where (`activities.app_builder.answer_text`). In a follow-up round the prompt also lists the
existing project's files (path, size) and asks for only the tasks the change needs. Without a model the offline
planner writes the seed's wave graph. The workflow validates every plan (`workflows.app_builder.plan_checks`);
this activity does not judge its own plan.
"""

import asyncio
import time
import uuid
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

from activities.app_builder.answer_text import PLAN_LAYOUT
from activities.app_builder.documents_store import store_documents
from activities.app_builder.offline.planner import offline_plan
from activities.app_builder.prompts import PLANNER_SYSTEM, planning_input
from activities.common.answer_text import shown_answer
from activities.common.llm_calls import JsonQuestion, choice, choices, json_answer_or_invalid, narrowed
from llm import LLMClient, Message
from llm.errors import OutputValidationError
from models.app_builder import nodes
from models.app_builder.agents import PlanDraft, PlanningRequest
from models.app_builder.plan import WRITING_AGENTS, ExecutionAgentID, ExecutionPlan, ExecutionPlanTask, PlanIssue
from models.app_builder.tools import TOOL_REGISTRY, WRITE_TOOL
from stores.app_workspace import workspace_listing
from stores.blob_store import BlobStore

LLM_TEMPERATURE = 0.2
MAX_TASKS = 24


class PlanAnswer(BaseModel):
    """The planner's JSON: the plan's tasks."""

    tasks: list[ExecutionPlanTask] = Field(min_length=1, max_length=MAX_TASKS)


def _writes(tools: list[str]) -> list[str]:
    if WRITE_TOOL not in tools:
        raise ValueError(f"a task of a writing agent needs the {WRITE_TOOL} tool to write its files")
    return tools


def plan_answer_model() -> type[PlanAnswer]:
    """The plan's schema for a request: each task a writing one (a writing agent or the repair agent, with tools
    of the registry including `write_file`, which its JSON Schema says with `contains`) or a quality one (the
    quality agent, tools of the registry), told apart by `agentId`."""
    tools = list(TOOL_REGISTRY)
    writers = [agent.value for agent in (*WRITING_AGENTS, ExecutionAgentID.REPAIR)]
    writing_tools: Any = Annotated[
        choices(tools),
        AfterValidator(_writes),
        Field(validate_default=True, json_schema_extra={"contains": {"const": WRITE_TOOL}}),
    ]
    writing = narrowed(ExecutionPlanTask, "WritingTask", agent_id=choice(writers), tools=writing_tools)
    quality = narrowed(
        ExecutionPlanTask, "QualityTask", agent_id=choice([ExecutionAgentID.QUALITY.value]), tools=choices(tools)
    )
    task: Any = Annotated[writing | quality, Field(discriminator="agent_id")]
    return narrowed(PlanAnswer, tasks=list[task])


class Planner:
    """The planning layer's main agent over the blob store and the LLM (None: offline only)."""

    def __init__(self, blobs: BlobStore, llm: LLMClient | None = None) -> None:
        self._blobs = blobs
        self._llm = llm

    @nodes.PLANNER.defn
    async def planner(self, request: PlanningRequest) -> PlanDraft:
        documents_ref = await store_documents(self._blobs, request.documents)
        plan_id = f"plan-{uuid.uuid4().hex[:12]}"
        created_at = int(time.time() * 1000)
        if self._llm is None or not request.use_llm:
            plan = offline_plan(request.documents, plan_id=plan_id, created_at=created_at)
            return PlanDraft(plan=plan, documents_ref=documents_ref, offline=True)
        project = None
        if request.project is not None:
            project = await asyncio.to_thread(workspace_listing, self._blobs, request.project)
        prompt = planning_input(request.brief, request.documents, request.rejected_plan, request.issues, project)
        shown = shown_answer(request.stream, nodes.PLANNER.node, PLAN_LAYOUT)
        question = JsonQuestion(
            node=nodes.PLANNER.node,
            schema=plan_answer_model(),
            messages=[Message.user(prompt)],
            system=PLANNER_SYSTEM,
            temperature=LLM_TEMPERATURE,
            shown=shown,
        )
        answer = await json_answer_or_invalid(self._llm, question)
        if isinstance(answer, OutputValidationError):
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', ())) or '(root)'}: {e.get('msg', '')}"
                for e in answer.errors[:8]
            )
            issue = PlanIssue(code="schema", message=f"the plan is not valid JSON in the plan's schema: {problems}")
            return PlanDraft(plan=None, issues=[issue], documents_ref=documents_ref, offline=False)
        if shown is not None:
            await shown.finish(answer)
        tasks = [ExecutionPlanTask.model_validate(task.model_dump()) for task in answer.tasks]
        plan = ExecutionPlan(id=plan_id, created_at=created_at, tasks=tasks)
        return PlanDraft(plan=plan, documents_ref=documents_ref, offline=False)
