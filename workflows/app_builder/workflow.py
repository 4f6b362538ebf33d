"""AppBuilderWorkflow: a front-end project from a user's description, in seed 003's three layers, as one durable
run.

- Analysis (`analysis`): product manager → front-end architect → UI expert → UX expert; each reads the documents
  it depends on, and the UI and UX experts, who do not read each other, write at once (`ANALYSIS_WAVES`); a
  document that does not fit its schema stops the layer and names the agent.
- Planning (`planning`): the Execution_Plan from the four documents, validated (`plan_checks`); a refused plan
  gets one repair round with the issues, then the run fails naming them. The plan and its waves are on the
  blackboard.
- Execution (`execution`): waves from the dependencies; a wave's tasks run side by side, one activity each (or,
  with a model, one tool loop each, `task_loop`: a turn per LLM call, a call per tool, ARCHITECTURE rule 11);
  each emits patch intents on the wave's snapshot, which are applied together (`app_builder.apply_patches`: a
  real three-way merge when two tasks changed one file, else a conflict with both versions kept). A failed task
  skips its dependents only.
- Quality (`quality`): the quality agent's checks on the workspace (parsers, imports, and where Node is there
  `tsc` and the build), after a wave with a quality task and after the last wave whenever a file changed since
  the last check (a quality task in the plan does not end the checking); on findings the repair agent gets them,
  at most `APP_MAX_REPAIR_ROUNDS` rounds; after that the tasks whose files still have findings are degraded and
  the findings listed in `unresolvedIssues`.
- Finalize: a success only when the last check passed, no task failed, was skipped or degraded, and the project
  has files (a run whose tasks wrote none says so with a warning); a follow-up round also counts what it changed
  against its base (`app_builder.round_changes`) and is no success when it changed nothing.
- Follow-up rounds (`input.base`, issue 27): the workspace starts as the base run's final one, each analysis agent
  updates its own earlier document, the planner sees the existing files and plans only the change, and quality
  checks the whole result after the last wave. A run without a base issues the commands it always did.

The blackboard is the `state` query; the event bus is the run's event stream. Every finished task is an
activity completion in the history, so a worker that dies resumes at the next unfinished task. This module holds
the workflow class, its step map and its two last nodes; what the phases share is `context.AppRun`.
"""

from datetime import timedelta
from functools import partial

from temporalio import workflow

from workflows import policies
from workflows.app_builder.analysis import AnalysisNodes
from workflows.app_builder.context import AppRun
from workflows.app_builder.execution import ExecutionNodes
from workflows.app_builder.graph import (
    ERROR_HANDLER,
    FINALIZE,
    GRAPH,
    PLAN_REPAIR,
    PLANNER,
    QUALITY_GATE,
    REPAIR,
    WAVE,
    analysis_node,
)
from workflows.app_builder.planning import PlanningNodes
from workflows.app_builder.quality import QualityNodes
from workflows.common.patches import decide_at_start
from workflows.common.run import NodeFailed, NodeStep

with workflow.unsafe.imports_passed_through():
    from models.app_builder import nodes
    from models.app_builder.documents import ANALYSIS_ORDER
    from models.app_builder.events import AppReady
    from models.app_builder.quality import PREVIEW_NOT_FINAL
    from models.app_builder.rounds import ChangesRequest, RoundChanges
    from models.app_builder.runs import AppRunInput, AppRunResult
    from models.app_builder.state import AppBuilderState
    from models.events import RunStatus
    from models.streaming import CONTENT_SIGNAL, ContentDelta


@workflow.defn
class AppBuilderWorkflow:
    """One app run: its blackboard is queryable as `state`, its events stream until `done`."""

    @workflow.init
    def __init__(self, input: AppRunInput) -> None:
        context = AppRun(input)
        self._context = context
        self._analysis = AnalysisNodes(context)
        self._planning = PlanningNodes(context)
        self._execution = ExecutionNodes(context)
        self._quality = QualityNodes(context, self._execution)

    @workflow.query(name="state")
    def state(self) -> AppBuilderState:
        return self._context.state

    @workflow.signal(name=CONTENT_SIGNAL)
    def content_delta(self, delta: ContentDelta) -> None:
        """A batch of an agent's answer text: shown as `content`, once, in order (`workflows.common.agent_stream`)."""
        self._context.stream.receive(delta)

    @workflow.run
    async def run(self, input: AppRunInput) -> AppRunResult:
        decide_at_start()  # before anything else: workflows/common/patches.py
        steps: dict[str, NodeStep] = {
            PLANNER: self._planning.plan,
            PLAN_REPAIR: self._planning.plan_repair,
            WAVE: self._execution.wave,
            QUALITY_GATE: self._quality.quality_gate,
            REPAIR: self._quality.repair,
            FINALIZE: self._finalize,
            ERROR_HANDLER: self._error_handler,
        }
        for agent in ANALYSIS_ORDER:
            steps[analysis_node(agent)] = partial(self._analysis.analysis, agent)
        first = analysis_node(ANALYSIS_ORDER[0])
        deadline = timedelta(seconds=input.deadline_seconds)
        status = await self._context.run.execute(steps, first=first, deadline=deadline)
        return self._result(status)

    async def _finalize(self) -> str:
        context = self._context
        state = context.state
        for record in list(state.tasks.values()):
            if record.status in ("pending", "running"):
                context.skip(context.task(record.task_id), "运行结束时仍未执行")
        failed = sorted(r.task_id for r in state.tasks.values() if r.status == "failed")
        skipped = sorted(r.task_id for r in state.tasks.values() if r.status == "skipped")
        checked = state.quality[-1].passed if state.quality else False
        empty = state.workspace.files == 0
        if empty:
            context.thought("执行层没有写出任何文件：项目为空，运行不算成功", "warning")
        state.changes = await self._changes()
        unchanged = context.input.base is not None and state.changes == RoundChanges()
        if unchanged:
            context.thought("这一轮修改没有改动任何文件：运行不算成功", "warning")
        state.success = (
            checked and not failed and not skipped and not state.degraded_tasks and not empty and not unchanged
        )
        state.finished_at = workflow.now()
        self._keep_preview()
        ready = AppReady(
            files=state.workspace.files,
            bytes=state.workspace.bytes,
            success=state.success,
            degraded_tasks=state.degraded_tasks,
            unresolved_issues=state.unresolved_issues,
            failed_tasks=failed,
            skipped_tasks=skipped,
            conflicts=len(state.conflicts),
            merged_files=len(state.merged_files),
            offline=not context.input.llm_configured or any(r.offline for r in state.tasks.values()),
            preview=state.preview is not None,
            round=state.round,
            base_run_id=state.base_run_id,
            changes=state.changes,
        )
        context.events.emit("app_ready", FINALIZE, ready)
        return GRAPH.end

    def _keep_preview(self) -> None:
        """The last check's build is the run's preview when that check was of the final workspace; else the
        reason there is none."""
        state = self._context.state
        last = state.quality[-1] if state.quality else None
        if last is None or (last.preview is not None and last.preview.workspace_ref != state.workspace.manifest_ref):
            state.preview_note = PREVIEW_NOT_FINAL
        elif last.preview is None:
            state.preview_note = last.preview_note or PREVIEW_NOT_FINAL
        else:
            state.preview = last.preview

    async def _changes(self) -> RoundChanges | None:
        """What this round changed against its base (an activity compares the manifests); round 1 added every
        file. None when the count failed: the round's files are final either way."""
        context = self._context
        base = context.input.base
        if base is None:
            return RoundChanges(added=context.state.workspace.files)
        request = ChangesRequest(run_id=context.run_id, base=base.workspace, workspace=context.state.workspace)
        try:
            return await context.run.call(
                nodes.ROUND_CHANGES, request, policies.APP_ROUND_CHANGES, summary="round changes against the base"
            )
        except NodeFailed as err:
            context.thought(f"未能统计这一轮的改动：{err.cause}"[:500], "warning")
            return None

    async def _error_handler(self) -> str:
        state = self._context.state
        state.success = False
        state.finished_at = workflow.now()
        self._context.run.report_error(ERROR_HANDLER)
        return GRAPH.end

    def _result(self, status: RunStatus) -> AppRunResult:
        state = self._context.state
        return AppRunResult(
            status=status,
            success=bool(state.success),
            files=state.workspace.files,
            degraded_tasks=state.degraded_tasks,
            unresolved_issues=state.unresolved_issues,
            failed_tasks=sorted(r.task_id for r in state.tasks.values() if r.status == "failed"),
            skipped_tasks=sorted(r.task_id for r in state.tasks.values() if r.status == "skipped"),
            conflicts=len(state.conflicts),
        )
