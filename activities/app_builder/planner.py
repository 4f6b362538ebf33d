"""The planning layer, one activity (`app_builder.planner`): stores the four documents for the execution agents
and writes the Execution_Plan.

With a model, the model writes the plan's tasks as JSON (the repair round also reads the refused plan and the
issues); an answer that does not parse as tasks is returned as a `schema` issue, so the workflow's one repair
round covers it like any other refusal. Without a model the offline planner writes the seed's wave graph. The
workflow validates every plan (`workflows.app_builder.plan_checks`); this activity does not judge its own plan.
"""

import time
import uuid

from pydantic import BaseModel, Field

from activities.app_builder.documents_store import store_documents
from activities.app_builder.offline.planner import offline_plan
from activities.app_builder.prompts import PLANNER_SYSTEM, planning_input
from activities.common.llm_calls import JsonQuestion, json_answer_or_invalid
from llm import LLMClient, Message
from llm.errors import OutputValidationError
from models.app_builder import nodes
from models.app_builder.agents import PlanDraft, PlanningRequest
from models.app_builder.plan import ExecutionPlan, ExecutionPlanTask, PlanIssue
from stores.blob_store import LocalBlobStore

LLM_TEMPERATURE = 0.2
MAX_TASKS = 24


class PlanAnswer(BaseModel):
    """The planner's JSON: the plan's tasks."""

    tasks: list[ExecutionPlanTask] = Field(min_length=1, max_length=MAX_TASKS)


class Planner:
    """The planning layer's main agent over the blob store and the LLM (None: offline only)."""

    def __init__(self, blobs: LocalBlobStore, llm: LLMClient | None = None) -> None:
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
        question = JsonQuestion(
            node=nodes.PLANNER.node,
            schema=PlanAnswer,
            messages=[
                Message.user(planning_input(request.brief, request.documents, request.rejected_plan, request.issues))
            ],
            system=PLANNER_SYSTEM,
            temperature=LLM_TEMPERATURE,
        )
        answer = await json_answer_or_invalid(self._llm, question)
        if isinstance(answer, OutputValidationError):
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', ())) or '(root)'}: {e.get('msg', '')}"
                for e in answer.errors[:8]
            )
            issue = PlanIssue(code="schema", message=f"the plan is not valid JSON in the plan's schema: {problems}")
            return PlanDraft(plan=None, issues=[issue], documents_ref=documents_ref, offline=False)
        plan = ExecutionPlan(id=plan_id, created_at=created_at, tasks=answer.tasks)
        return PlanDraft(plan=plan, documents_ref=documents_ref, offline=False)
