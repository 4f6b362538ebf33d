"""AppBuilderWorkflow: a front-end project from a user's description, in seed 003's three layers, as one durable
run.

- Analysis: product manager → front-end architect → UI expert → UX expert, strictly in order; each reads every
  document before it; a document that does not fit its schema stops the layer and names the agent.
- Planning: the Execution_Plan from the four documents, validated (`plan_checks`); a refused plan gets one
  repair round with the issues, then the run fails naming them. The plan and its waves are on the blackboard.
- Execution: waves from the dependencies; a wave's tasks run side by side, one activity each (or, with a model,
  one tool loop each: a turn per LLM call, a call per tool, ARCHITECTURE rule 11); each emits patch intents on
  the wave's snapshot, which are applied together (`app_builder.apply_patches`: a real three-way merge when two
  tasks changed one file, else a conflict with both versions kept). A failed task skips its dependents only.
- Quality: the quality agent's checks on the workspace (parsers, imports, and where Node is there `tsc` and the
  build); on findings the repair agent gets them, at most `APP_MAX_REPAIR_ROUNDS` rounds; after that the tasks
  whose files still have findings are degraded and the findings listed in `unresolvedIssues`.

The blackboard is the `state` query; the event bus is the run's event stream. Every finished task is an
activity completion in the history, so a worker that dies resumes at the next unfinished task.
"""

import asyncio
from datetime import timedelta
from functools import partial

from temporalio import workflow

from workflows import policies
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
from workflows.app_builder.plan_checks import plan_issues, schedule_waves
from workflows.app_builder.summaries import document_summary, finding_line, merge_reports
from workflows.common.event_log import EventLog
from workflows.common.run import GraphRun, NodeFailed, NodeStep

with workflow.unsafe.imports_passed_through():
    from llm.types import Message, ToolCall, ToolResultPart
    from models.app_builder import nodes
    from models.app_builder.agents import (
        AnalysisRequest,
        PlanDraft,
        PlanningRequest,
        TaskOutcome,
        TaskRequest,
        TaskToolRequest,
        TaskToolResult,
        TaskTurnRequest,
    )
    from models.app_builder.documents import ANALYSIS_ORDER, AnalysisAgentID
    from models.app_builder.events import (
        APP_BUILDER_EVENTS,
        AppReady,
        AppThought,
        ConflictFound,
        DocumentReady,
        LayerStarted,
        PlannedTask,
        PlanReady,
        QualityResult,
        RepairRound,
        TaskFinished,
        TaskStarted,
        WaveStarted,
    )
    from models.app_builder.plan import ExecutionAgentID, ExecutionPlan, ExecutionPlanTask, PlanIssue
    from models.app_builder.quality import Finding, QualityReport, QualityRequest
    from models.app_builder.runs import AppRunInput, AppRunResult
    from models.app_builder.state import AppBuilderState, FailedTask, Layer, TaskRecord, TaskStatus
    from models.app_builder.tools import WORKSPACE_TOOLS
    from models.app_builder.workspace import ApplyRequest, PatchIntent
    from models.errors import ErrorCode, ErrorInfo
    from models.events import RunStatus

SUMMARY_CHARS = 60
FINDINGS_IN_EVENT = 10
BLOCKING = ("failed", "skipped")
"""A task whose dependency ended like this is skipped."""


@workflow.defn
class AppBuilderWorkflow:
    """One app run: its blackboard is queryable as `state`, its events stream until `done`."""

    @workflow.init
    def __init__(self, input: AppRunInput) -> None:
        self._input = input
        self._state = AppBuilderState(brief=input.brief, started_at=workflow.now())
        self._events = EventLog(APP_BUILDER_EVENTS)
        self._run = GraphRun(GRAPH, self._events, self._state, error_node=ERROR_HANDLER)
        self._rejected: ExecutionPlan | None = None
        self._wave_index = 0
        self._gates: list[ExecutionPlanTask] = []
        self._gate_ran = False
        self._round = 0
        self._last_report: QualityReport | None = None

    @workflow.query(name="state")
    def state(self) -> AppBuilderState:
        return self._state

    @workflow.run
    async def run(self, input: AppRunInput) -> AppRunResult:
        steps: dict[str, NodeStep] = {
            PLANNER: self._plan,
            PLAN_REPAIR: self._plan_repair,
            WAVE: self._wave,
            QUALITY_GATE: self._quality_gate,
            REPAIR: self._repair,
            FINALIZE: self._finalize,
            ERROR_HANDLER: self._error_handler,
        }
        for agent in ANALYSIS_ORDER:
            steps[analysis_node(agent)] = partial(self._analysis, agent)
        first = analysis_node(ANALYSIS_ORDER[0])
        status = await self._run.execute(steps, first=first, deadline=timedelta(seconds=input.deadline_seconds))
        return self._result(status)

    # ---- analysis ----

    async def _analysis(self, agent: AnalysisAgentID) -> str:
        state = self._state
        if agent == ANALYSIS_ORDER[0]:
            self._layer("analysis")
        request = AnalysisRequest(
            agent_id=agent,
            brief=state.brief,
            previous_documents=list(state.documents),
            use_llm=self._input.llm_configured,
            run_id=self._run_id,
        )
        options = policies.APP_ANALYSIS_AGENT if request.use_llm else policies.APP_ANALYSIS_OFFLINE
        try:
            outcome = await self._run.call(
                nodes.ANALYSIS[agent], request, options, summary=f"{agent.value}: Session_Document"
            )
        except NodeFailed as err:
            return self._run.fail(err, ErrorCode.ANALYSIS_FAILED)
        document = outcome.document
        if document.agent_id != agent:
            message = f"{agent.value} 返回了 {document.agent_id} 的文档（分析层中止）"
            return self._run.fail_with(ErrorInfo(code=ErrorCode.DOCUMENT_INVALID, message=message, node=self._run.node))
        state.documents.append(document)
        ready = DocumentReady(
            agent_id=agent, document_id=document.id, summary=document_summary(document), offline=outcome.offline
        )
        self._events.emit("document_ready", self._run.node, ready)
        position = ANALYSIS_ORDER.index(agent)
        return analysis_node(ANALYSIS_ORDER[position + 1]) if position + 1 < len(ANALYSIS_ORDER) else PLANNER

    # ---- planning ----

    async def _plan(self) -> str:
        self._layer("planning")
        draft = await self._draft(None, [])
        if draft is None:
            return ERROR_HANDLER
        issues = self._issues(draft)
        if not issues:
            return self._accept(draft, repaired=False)
        self._state.plan_issues = issues
        self._rejected = draft.plan
        self._thought(f"执行计划未通过校验（{len(issues)} 处）：{issues[0].message}；带着错误修复一轮", "warning")
        return PLAN_REPAIR

    async def _plan_repair(self) -> str:
        draft = await self._draft(self._rejected, self._state.plan_issues)
        if draft is None:
            return ERROR_HANDLER
        issues = self._issues(draft)
        if issues:
            self._state.plan_issues = issues
            message = "执行计划修复一轮后仍未通过校验：" + "；".join(issue.message for issue in issues)
            return self._run.fail_with(ErrorInfo(code=ErrorCode.PLAN_INVALID, message=message[:2000], node=PLAN_REPAIR))
        return self._accept(draft, repaired=True)

    async def _draft(self, rejected: ExecutionPlan | None, issues: list[PlanIssue]) -> PlanDraft | None:
        state = self._state
        request = PlanningRequest(
            brief=state.brief,
            documents=list(state.documents),
            rejected_plan=rejected,
            issues=issues,
            use_llm=self._input.llm_configured,
            run_id=self._run_id,
        )
        options = policies.APP_PLANNER if request.use_llm else policies.APP_PLANNER_OFFLINE
        summary = "Execution_Plan (repair round)" if rejected or issues else "Execution_Plan"
        try:
            draft = await self._run.call(nodes.PLANNER, request, options, summary=summary)
        except NodeFailed as err:
            self._run.fail(err, ErrorCode.PLANNING_FAILED)
            return None
        state.documents_ref = draft.documents_ref
        return draft

    def _issues(self, draft: PlanDraft) -> list[PlanIssue]:
        if draft.plan is None:
            return draft.issues or [PlanIssue(code="schema", message="the planner returned no plan")]
        return plan_issues(draft.plan)

    def _accept(self, draft: PlanDraft, *, repaired: bool) -> str:
        state = self._state
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
        self._events.emit("plan_ready", self._run.node, ready)
        return WAVE

    # ---- execution ----

    async def _wave(self) -> str:
        state = self._state
        if self._wave_index == 0:
            self._layer("execution")
        if self._wave_index >= len(state.waves):
            return self._after_waves()
        number = self._wave_index + 1
        ids = state.waves[self._wave_index]
        self._wave_index += 1
        self._events.emit("wave_started", WAVE, WaveStarted(wave=number, task_ids=ids))
        writers: list[ExecutionPlanTask] = []
        self._gates = []
        for task in (self._task(task_id) for task_id in ids):
            blocker = self._blocker(task)
            if blocker is not None:
                self._skip(task, f"依赖的任务 {blocker} 未完成（{state.tasks[blocker].status}）")
            elif task.agent_id == ExecutionAgentID.QUALITY:
                self._gates.append(task)
            else:
                writers.append(task)
        outcomes = await asyncio.gather(*(self._execute(task) for task in writers))
        intents = [intent for outcome in outcomes if outcome is not None for intent in outcome.intents]
        if intents and not await self._apply(intents, f"wave-{number}"):
            return ERROR_HANDLER
        if self._gates:
            for gate in self._gates:
                self._started(gate)
            return QUALITY_GATE
        return self._after_waves() if self._wave_index >= len(state.waves) else WAVE

    def _after_waves(self) -> str:
        """After the last wave: the quality gate when the plan had no quality task (every project is checked),
        else the end."""
        planned_gate = any(task.agent_id == ExecutionAgentID.QUALITY for task in self._plan_tasks)
        if not planned_gate and not self._gate_ran:
            self._thought("计划中没有 quality-agent 任务：最后一波之后仍检查整个项目")
            return QUALITY_GATE
        return FINALIZE

    async def _execute(
        self, task: ExecutionPlanTask, *, findings: list[Finding] | None = None, repair_round: int = 0
    ) -> TaskOutcome | None:
        """One task on the current snapshot: its outcome, or None when it failed for good (recorded)."""
        state = self._state
        assert state.documents_ref is not None, "the planner stored the documents"
        self._started(task)
        request = TaskRequest(
            run_id=self._run_id,
            task=task,
            brief=state.brief,
            documents_ref=state.documents_ref,
            workspace=state.workspace,
            findings=findings or [],
            repair_round=repair_round,
        )
        agent = ExecutionAgentID(task.agent_id)
        try:
            if self._input.llm_configured:
                outcome = await self._tool_loop(request)
            else:
                outcome = await self._run.call(
                    nodes.EXECUTION[agent],
                    request,
                    policies.APP_TASK_OFFLINE,
                    summary=f"{task.id} · {agent.value}: {task.goal[:SUMMARY_CHARS]}",
                    activity_id=_activity_id(request),
                )
        except NodeFailed as err:
            message = str(err.cause)[:500]
            state.failed_tasks.append(FailedTask(task_id=task.id, error=message))
            self._finished(task, "failed", error=message)
            return None
        record = state.tasks[task.id]
        record.files = sorted({intent.path for intent in outcome.intents} | set(record.files))
        record.offline = outcome.offline
        record.summary = outcome.summary
        state.generated_components += [c for c in outcome.components if c not in state.generated_components]
        self._finished(task, "completed", summary=outcome.summary, files=sorted({i.path for i in outcome.intents}))
        return outcome

    async def _tool_loop(self, request: TaskRequest) -> TaskOutcome:
        """A writing agent with a model: one activity per LLM turn, one per tool call; its `write_file` calls become
        the task's patch intents (a later write to the same path replaces an earlier one)."""
        task = request.task
        conversation: list[Message] = []
        intents: list[PatchIntent] = []
        calls = 0
        turns = 0
        while True:
            turns += 1
            turn = await self._run.call(
                nodes.TASK_TURN,
                TaskTurnRequest(
                    request=request,
                    conversation=list(conversation),
                    intents=list(intents),
                    tool_calls_made=calls,
                    tools_allowed=calls < policies.APP_TASK_TOOL_CALLS,
                ),
                policies.APP_TASK_TURN,
                summary=f"{task.id} · {task.agent_id} turn {turns}",
                activity_id=f"{_activity_id(request)}-turn-{turns}",
            )
            if not turn.tool_calls or calls >= policies.APP_TASK_TOOL_CALLS:
                summary = turn.text.strip()[:300] or f"{task.agent_id} 写了 {len(intents)} 个文件"
                return TaskOutcome(task_id=task.id, intents=intents, summary=summary, offline=False)
            conversation.append(turn.as_message())
            parts: list[ToolResultPart] = []
            for call in turn.tool_calls:
                calls += 1
                result = await self._tool(request, call, intents, f"{_activity_id(request)}-tool-{calls}")
                if result.intent is not None:
                    intents = [i for i in intents if i.path != result.intent.path] + [result.intent]
                parts.append(
                    ToolResultPart(call_id=call.id, name=call.name, content=result.content, is_error=result.is_error)
                )
            conversation.append(Message.tool_results(parts))

    async def _tool(
        self, request: TaskRequest, call: ToolCall, intents: list[PatchIntent], activity_id: str
    ) -> TaskToolResult:
        path = str(call.arguments.get("path", ""))[:SUMMARY_CHARS]
        try:
            return await self._run.call(
                nodes.TASK_TOOL,
                TaskToolRequest(request=request, call=call, intents=list(intents)),
                policies.APP_TASK_TOOL,
                summary=f"{request.task.id} · {call.name}({path})",
                activity_id=activity_id,
            )
        except NodeFailed as err:
            return TaskToolResult(
                call_id=call.id, tool=call.name, content=f"工具失败：{err.cause}"[:300], is_error=True
            )

    async def _apply(self, intents: list[PatchIntent], what: str) -> bool:
        """Apply patch intents to the workspace; False when that failed (the run's error is set)."""
        state = self._state
        node = self._run.node
        request = ApplyRequest(run_id=self._run_id, workspace=state.workspace, intents=intents)
        try:
            outcome = await self._run.call(
                nodes.APPLY_PATCHES,
                request,
                policies.APP_APPLY_PATCHES,
                summary=f"merge {what}: {len(intents)} patch intents",
                activity_id=f"merge-{what}",
            )
        except NodeFailed as err:
            self._run.fail(err, ErrorCode.INVALID_PATCH)
            return False
        state.workspace = outcome.workspace
        state.patch_intents += intents
        state.touched_files = sorted(set(state.touched_files) | set(outcome.changed))
        for merged in outcome.merged:
            state.merged_files.append(merged)
            self._events.emit("conflict", node, ConflictFound(path=merged.path, task_ids=merged.task_ids, merged=True))
        for conflict in outcome.conflicts:
            state.conflicts.append(conflict)
            found = ConflictFound(
                path=conflict.path,
                task_ids=conflict.task_ids,
                merged=False,
                kept_task_id=conflict.kept_task_id,
                regions=conflict.regions,
            )
            self._events.emit("conflict", node, found)
            kept = conflict.kept_task_id
            self._thought(
                f"{conflict.path} 冲突：{'、'.join(conflict.task_ids)} 的改动重叠，保留 {kept} 的版本", "warning"
            )
        return True

    # ---- quality and repair ----

    async def _quality_gate(self) -> str:
        self._gate_ran = True
        report = await self._check()
        if report is None:
            return ERROR_HANDLER
        self._last_report = report
        self._state.quality.append(report)
        result = QualityResult(
            round=self._round,
            passed=report.passed,
            files_checked=report.files_checked,
            checks_run=list(report.checks_run),
            counts=report.counts,
            findings=report.findings[:FINDINGS_IN_EVENT],
            notes=report.notes,
        )
        self._events.emit("quality_result", QUALITY_GATE, result)
        if report.passed:
            self._close_gate("completed")
        elif self._round < policies.APP_MAX_REPAIR_ROUNDS:
            return REPAIR
        else:
            self._degrade(report)
        return self._after_waves() if self._wave_index >= len(self._state.waves) else WAVE

    async def _check(self) -> QualityReport | None:
        request = QualityRequest(
            run_id=self._run_id, workspace=self._state.workspace, round=self._round, toolchain=self._input.toolchain
        )
        try:
            report = await self._run.call(
                nodes.QUALITY_CHECKS,
                request,
                policies.APP_QUALITY_CHECKS,
                summary=f"quality round {self._round}: parse + imports",
                activity_id=f"{self._gate_id}-check-{self._round}",
            )
        except NodeFailed as err:
            self._run.fail(err, ErrorCode.QUALITY_CHECK_FAILED)
            return None
        if not report.passed or request.toolchain == "off":
            return report
        try:
            toolchain = await self._run.call(
                nodes.TOOLCHAIN_CHECKS,
                request,
                policies.APP_TOOLCHAIN_CHECKS,
                summary=f"quality round {self._round}: tsc --noEmit + build",
                activity_id=f"{self._gate_id}-toolchain-{self._round}",
            )
        except NodeFailed as err:
            finding = Finding(check="build", message=f"tsc / build 未能运行：{err.cause}"[:500])
            toolchain = QualityReport(
                passed=False, files_checked=0, checks_run=["build"], findings=[finding], counts={"build": 1}
            )
        return merge_reports(report, toolchain)

    async def _repair(self) -> str:
        self._round += 1
        self._state.repair_rounds = self._round
        report = self._last_report
        assert report is not None, "a repair round follows a quality report"
        task = self._repair_task()
        found = RepairRound(
            round=self._round,
            max_rounds=policies.APP_MAX_REPAIR_ROUNDS,
            task_id=task.id,
            findings=sum(report.counts.values()),
        )
        self._events.emit("repair_round", REPAIR, found)
        outcome = await self._execute(task, findings=report.findings, repair_round=self._round)
        what = f"{self._gate_id}-repair-{self._round}"
        if outcome is not None and outcome.intents and not await self._apply(outcome.intents, what):
            return ERROR_HANDLER
        return QUALITY_GATE

    def _repair_task(self) -> ExecutionPlanTask:
        """The plan's repair task that follows a gate of this wave, else the plan's first, else one made here."""
        gates = {gate.id for gate in self._gates}
        repairs = [task for task in self._plan_tasks if task.agent_id == ExecutionAgentID.REPAIR]
        following = [task for task in repairs if gates & set(task.depends_on)]
        if following or repairs:
            return (following or repairs)[0]
        task = ExecutionPlanTask(
            id="repair",
            agent_id=ExecutionAgentID.REPAIR,
            goal="修复质量检查发现的问题",
            depends_on=sorted(gates),
            tools=list(WORKSPACE_TOOLS),
        )
        self._state.tasks.setdefault(task.id, TaskRecord(task_id=task.id, agent_id=task.agent_id, goal=task.goal))
        return task

    def _close_gate(self, status: TaskStatus) -> None:
        """The gate's tasks end with `status`; when it passed, a repair task that was not used is not needed, and
        when it degraded, the repair task that worked on it is degraded too."""
        for gate in self._gates:
            self._finished(gate, status, summary=f"质量检查（修复 {self._round} 轮）后：{status}")
        for record in self._state.tasks.values():
            if record.agent_id != ExecutionAgentID.REPAIR:
                continue
            if status == "completed" and record.status == "pending":
                self._finished(self._task(record.task_id), "not_needed", summary="质量检查通过：无需修复")
            elif status == "degraded" and record.status == "completed":
                self._finished(self._task(record.task_id), "degraded", summary=record.summary, files=record.files)
        self._round = 0

    def _degrade(self, report: QualityReport) -> None:
        state = self._state
        paths = {finding.path for finding in report.findings if finding.path}
        for record in state.tasks.values():
            if record.status == "completed" and paths & set(record.files):
                record.status = "degraded"
                self._events.emit(
                    "task_finished",
                    QUALITY_GATE,
                    TaskFinished(
                        task_id=record.task_id, agent_id=record.agent_id, status="degraded", files=record.files
                    ),
                )
        self._close_gate("degraded")
        state.degraded_tasks = sorted(r.task_id for r in state.tasks.values() if r.status == "degraded")
        lines = [finding_line(finding) for finding in report.findings]
        hidden = sum(report.counts.values()) - len(lines)
        state.unresolved_issues = lines + ([f"……另有 {hidden} 处问题"] if hidden > 0 else [])
        rounds = policies.APP_MAX_REPAIR_ROUNDS
        self._thought(f"修复 {rounds} 轮后仍有 {sum(report.counts.values())} 处问题：标记为降级完成", "warning")

    # ---- the end ----

    async def _finalize(self) -> str:
        state = self._state
        for record in list(state.tasks.values()):
            if record.status in ("pending", "running"):
                self._skip(self._task(record.task_id), "运行结束时仍未执行")
        failed = sorted(r.task_id for r in state.tasks.values() if r.status == "failed")
        skipped = sorted(r.task_id for r in state.tasks.values() if r.status == "skipped")
        checked = state.quality[-1].passed if state.quality else False
        state.success = checked and not failed and not skipped and not state.degraded_tasks
        state.finished_at = workflow.now()
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
        )
        self._events.emit("app_ready", FINALIZE, ready)
        return GRAPH.end

    async def _error_handler(self) -> str:
        state = self._state
        error = state.error or ErrorInfo(code=ErrorCode.UNKNOWN_ERROR, message="未知错误", node="unknown")
        state.success = False
        state.finished_at = workflow.now()
        self._events.emit("error", ERROR_HANDLER, error)
        return GRAPH.end

    # ---- helpers ----

    @property
    def _run_id(self) -> str:
        return workflow.info().workflow_id

    @property
    def _gate_id(self) -> str:
        """The quality gate's name for its activities: its plan task's id (`quality` when the plan has none)."""
        return self._gates[0].id if self._gates else "quality"

    @property
    def _plan_tasks(self) -> list[ExecutionPlanTask]:
        return self._state.plan.tasks if self._state.plan else []

    def _task(self, task_id: str) -> ExecutionPlanTask:
        for task in self._plan_tasks:
            if task.id == task_id:
                return task
        record = self._state.tasks[task_id]
        return ExecutionPlanTask(id=record.task_id, agent_id=record.agent_id, goal=record.goal)

    def _blocker(self, task: ExecutionPlanTask) -> str | None:
        for dependency in task.depends_on:
            record = self._state.tasks.get(dependency)
            if record is not None and record.status in BLOCKING:
                return dependency
        return None

    def _skip(self, task: ExecutionPlanTask, reason: str) -> None:
        self._finished(task, "skipped", error=reason)

    def _started(self, task: ExecutionPlanTask) -> None:
        record = self._state.tasks[task.id]
        if record.status == "running":
            return
        record.status = "running"
        record.started_at = workflow.now()
        started = TaskStarted(task_id=task.id, agent_id=task.agent_id, goal=task.goal, wave=record.wave)
        self._events.emit("task_started", self._run.node, started)

    def _finished(
        self,
        task: ExecutionPlanTask,
        status: TaskStatus,
        *,
        summary: str = "",
        files: list[str] | None = None,
        error: str | None = None,
    ) -> None:
        record = self._state.tasks[task.id]
        record.status = status
        record.error = error
        if status != "running":
            record.finished_at = workflow.now()
        finished = TaskFinished(
            task_id=task.id, agent_id=task.agent_id, status=status, summary=summary, files=files or [], error=error
        )
        self._events.emit("task_finished", self._run.node, finished)

    def _layer(self, layer: Layer) -> None:
        self._state.layer = layer
        self._events.emit("layer_started", self._run.node, LayerStarted(layer=layer))

    def _thought(self, message: str, level: str = "info") -> None:
        self._events.emit(
            "thought_log", self._run.node, AppThought.model_validate({"message": message, "level": level})
        )

    def _result(self, status: RunStatus) -> AppRunResult:
        state = self._state
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


def _activity_id(request: TaskRequest) -> str:
    """A task's activities are named after it in the Web UI: `pages`, `pages-turn-2`, `pages-tool-3`; a repair
    round's carry the round: `repair-round-2`."""
    task_id = request.task.id
    return f"{task_id}-round-{request.repair_round}" if request.repair_round else task_id
