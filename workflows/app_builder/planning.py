"""The planning layer's nodes: the Execution_Plan from the four documents, validated (`plan_checks`; a plan of
only repair tasks is refused too, behind `ONLY_REPAIR_TASKS_REFUSED`); a refused
plan gets one repair round with its issues (`plan_repair`), then the run fails naming them. An accepted plan and
its waves go on the blackboard. The planner with a model streams its tasks' readable text to the run (`content`
events, behind the analysis layer's `patched(AGENTS_STREAM_TEXT)`)."""

from temporalio import workflow

from workflows import policies
from workflows.app_builder.analysis import stream_target
from workflows.app_builder.context import AppRun
from workflows.app_builder.graph import PLAN_REPAIR, WAVE
from workflows.app_builder.plan_checks import nothing_to_build, plan_issues, schedule_waves
from workflows.common.patches import patched

with workflow.unsafe.imports_passed_through():
    from models.app_builder import nodes
    from models.app_builder.agents import PlanDraft, PlanningRequest
    from models.app_builder.errors import AppBuilderErrorCode
    from models.app_builder.events import PlannedTask, PlanReady
    from models.app_builder.plan import ExecutionPlan, PlanIssue
    from models.app_builder.state import TaskRecord
    from models.errors import ErrorInfo

ONLY_REPAIR_TASKS_REFUSED = "app-plan-of-only-repair-tasks-refused"
"""`workflow.patched` id: a plan whose every task is a repair task (nothing to build) goes to the repair round."""


class PlanningNodes:
    """The `planner` and `plan_repair` nodes."""

    def __init__(self, context: AppRun) -> None:
        self._context = context
        self._rejected: ExecutionPlan | None = None

    async def plan(self) -> str:
        self._context.layer("planning")
        draft = await self._draft(None, [])
        issues = _issues(draft)
        if not issues:
            return self._accept(draft, repaired=False)
        self._context.state.plan_issues = issues
        self._rejected = draft.plan
        self._context.thought(
            f"执行计划未通过校验（{len(issues)} 处）：{issues[0].message}；带着错误修复一轮", "warning"
        )
        return PLAN_REPAIR

    async def plan_repair(self) -> str:
        state = self._context.state
        draft = await self._draft(self._rejected, state.plan_issues)
        issues = _issues(draft)
        if issues:
            state.plan_issues = issues
            message = "执行计划修复一轮后仍未通过校验：" + "；".join(issue.message for issue in issues)
            error = ErrorInfo(code=AppBuilderErrorCode.PLAN_INVALID, message=message[:2000], node=PLAN_REPAIR)
            return self._context.run.fail_with(error)
        return self._accept(draft, repaired=True)

    async def _draft(self, rejected: ExecutionPlan | None, issues: list[PlanIssue]) -> PlanDraft:
        context = self._context
        request = PlanningRequest(
            brief=context.state.brief,
            documents=list(context.state.documents),
            rejected_plan=rejected,
            issues=issues,
            project=context.input.base.workspace if context.input.base is not None else None,
            use_llm=context.input.llm_configured,
            run_id=context.run_id,
            stream=stream_target(context.input.llm_configured),
        )
        options = policies.APP_PLANNER if request.use_llm else policies.APP_PLANNER_OFFLINE
        summary = "Execution_Plan (repair round)" if rejected or issues else "Execution_Plan"
        with context.stream.taking(nodes.PLANNER.node):
            draft = await context.run.call_or_fail(
                nodes.PLANNER, request, options, summary=summary, code=AppBuilderErrorCode.PLANNING_FAILED
            )
        context.state.documents_ref = draft.documents_ref
        return draft

    def _accept(self, draft: PlanDraft, *, repaired: bool) -> str:
        state = self._context.state
        plan = draft.plan
        assert plan is not None, "only a plan that passed is accepted"
        state.plan = plan
        if not repaired:
            state.plan_issues = []  # a repaired plan keeps the issues that sent it to the repair round
        state.plan_repaired = repaired
        state.waves = schedule_waves(plan.tasks)
        wave_of = {task_id: index + 1 for index, ids in enumerate(state.waves) for task_id in ids}
        state.tasks = {
            task.id: TaskRecord(task_id=task.id, agent_id=task.agent_id, goal=task.goal, wave=wave_of.get(task.id))
            for task in plan.tasks
        }
        planned = [
            PlannedTask(id=t.id, agent_id=t.agent_id, goal=t.goal, depends_on=t.depends_on, tools=t.tools)
            for t in plan.tasks
        ]
        ready = PlanReady(plan_id=plan.id, tasks=planned, waves=state.waves, repaired=repaired, offline=draft.offline)
        self._context.events.emit("plan_ready", self._context.run.node, ready)
        return WAVE


def _issues(draft: PlanDraft) -> list[PlanIssue]:
    if draft.plan is None:
        return draft.issues or [PlanIssue(code="schema", message="the planner returned no plan")]
    issues = plan_issues(draft.plan)
    empty = nothing_to_build(draft.plan) if not issues else None
    if empty is not None and patched(ONLY_REPAIR_TASKS_REFUSED):
        return [empty]
    return issues
