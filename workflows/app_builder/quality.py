"""The quality layer's nodes: the quality agent's checks on the workspace (`quality_gate`: parsers and imports,
and where Node is there `tsc` and the build; the last check names the project's components,
`generatedComponents`); on findings the repair agent gets them (`repair`), at most
`APP_MAX_REPAIR_ROUNDS` rounds; after that the tasks whose files still have findings are degraded and the
findings listed in `unresolvedIssues`."""

from temporalio import workflow

from workflows import policies
from workflows.app_builder.context import AppRun
from workflows.app_builder.execution import ExecutionNodes
from workflows.app_builder.graph import QUALITY_GATE, REPAIR, WAVE
from workflows.app_builder.summaries import finding_line, merge_reports
from workflows.common.run import NodeFailed

with workflow.unsafe.imports_passed_through():
    from models.app_builder import nodes
    from models.app_builder.errors import AppBuilderErrorCode
    from models.app_builder.events import QualityResult, RepairRound, TaskFinished
    from models.app_builder.plan import ExecutionAgentID, ExecutionPlanTask
    from models.app_builder.quality import (
        PREVIEW_NOT_BUILT,
        PREVIEW_TOOLCHAIN_OFF,
        Finding,
        QualityReport,
        QualityRequest,
    )
    from models.app_builder.state import TaskRecord, TaskStatus
    from models.app_builder.tools import WORKSPACE_TOOLS

FINDINGS_IN_EVENT = 10


class QualityNodes:
    """The `quality_gate` and `repair` nodes."""

    def __init__(self, context: AppRun, execution: ExecutionNodes) -> None:
        self._context = context
        self._execution = execution

    async def quality_gate(self) -> str:
        context = self._context
        context.gate_ran = True
        checked = context.state.workspace
        report = await self._check()
        context.checked = checked
        context.last_report = report
        context.state.quality.append(report)
        context.state.generated_components = report.components
        result = QualityResult(
            round=context.round,
            passed=report.passed,
            files_checked=report.files_checked,
            checks_run=list(report.checks_run),
            counts=report.counts,
            findings=report.findings[:FINDINGS_IN_EVENT],
            notes=report.notes,
        )
        context.events.emit("quality_result", QUALITY_GATE, result)
        if report.passed:
            self._close_gate("completed")
        elif context.round < policies.APP_MAX_REPAIR_ROUNDS:
            return REPAIR
        else:
            self._degrade(report)
        return self._execution.after_waves() if context.waves_done else WAVE

    async def repair(self) -> str:
        context = self._context
        context.round += 1
        context.state.repair_rounds = context.round
        report = context.last_report
        assert report is not None, "a repair round follows a quality report"
        task = self._repair_task()
        found = RepairRound(
            round=context.round,
            max_rounds=policies.APP_MAX_REPAIR_ROUNDS,
            task_id=task.id,
            findings=sum(report.counts.values()),
        )
        context.events.emit("repair_round", REPAIR, found)
        outcome = await self._execution.execute(task, findings=report.findings, repair_round=context.round)
        if outcome is not None and outcome.intents:
            await self._execution.apply(outcome.intents, f"{context.gate_id}-repair-{context.round}")
        return QUALITY_GATE

    async def _check(self) -> QualityReport:
        context = self._context
        request = QualityRequest(
            run_id=context.run_id,
            workspace=context.state.workspace,
            round=context.round,
            toolchain=context.input.toolchain,
        )
        report = await context.run.call_or_fail(
            nodes.QUALITY_CHECKS,
            request,
            policies.APP_QUALITY_CHECKS,
            summary=f"quality round {context.round}: parse + imports",
            code=AppBuilderErrorCode.QUALITY_CHECK_FAILED,
            activity_id=f"{context.gate_id}-check-{context.round}",
        )
        if not report.passed or request.toolchain == "off":
            report.preview_note = PREVIEW_TOOLCHAIN_OFF if request.toolchain == "off" else PREVIEW_NOT_BUILT
            return report
        try:
            toolchain = await context.run.call(
                nodes.TOOLCHAIN_CHECKS,
                request,
                policies.APP_TOOLCHAIN_CHECKS,
                summary=f"quality round {context.round}: tsc --noEmit + build",
                activity_id=f"{context.gate_id}-toolchain-{context.round}",
            )
        except NodeFailed as err:
            finding = Finding(check="build", message=f"tsc / build 未能运行：{err.cause}"[:500])
            toolchain = QualityReport(
                passed=False,
                files_checked=0,
                checks_run=["build"],
                findings=[finding],
                counts={"build": 1},
                preview_note="the build could not run: no preview",
            )
        return merge_reports(report, toolchain)

    def _repair_task(self) -> ExecutionPlanTask:
        """The plan's repair task that follows a gate of this wave, else the plan's first, else one made here (and
        for the check after the last wave, `final-repair`: the plan's repair rounds are over)."""
        context = self._context
        gates = {gate.id for gate in context.gates}
        repairs = [task for task in context.plan_tasks if task.agent_id == ExecutionAgentID.REPAIR]
        following = [task for task in repairs if gates & set(task.depends_on)]
        if (following or repairs) and not context.final_pass:
            return (following or repairs)[0]
        task = ExecutionPlanTask(
            id="final-repair" if context.final_pass else "repair",
            agent_id=ExecutionAgentID.REPAIR,
            goal="修复质量检查发现的问题",
            depends_on=sorted(gates),
            tools=list(WORKSPACE_TOOLS),
        )
        context.state.tasks.setdefault(task.id, TaskRecord(task_id=task.id, agent_id=task.agent_id, goal=task.goal))
        return task

    def _close_gate(self, status: TaskStatus) -> None:
        """The gate's tasks end with `status`; when it passed, a repair task that was not used is not needed, and
        when it degraded, the repair task that worked on it is degraded too."""
        context = self._context
        for gate in context.gates:
            context.finished(gate, status, summary=f"质量检查（修复 {context.round} 轮）后：{status}")
        for record in context.state.tasks.values():
            if record.agent_id != ExecutionAgentID.REPAIR:
                continue
            if status == "completed" and record.status == "pending":
                context.finished(context.task(record.task_id), "not_needed", summary="质量检查通过：无需修复")
            elif status == "degraded" and record.status == "completed":
                task = context.task(record.task_id)
                context.finished(task, "degraded", summary=record.summary, files=record.files)
        context.round = 0

    def _degrade(self, report: QualityReport) -> None:
        context = self._context
        state = context.state
        paths = {finding.path for finding in report.findings if finding.path}
        for record in state.tasks.values():
            if record.status == "completed" and paths & set(record.files):
                record.status = "degraded"
                finished = TaskFinished(
                    task_id=record.task_id,
                    agent_id=record.agent_id,
                    status="degraded",
                    files=record.files,
                    offline=record.offline,
                )
                context.events.emit("task_finished", QUALITY_GATE, finished)
        self._close_gate("degraded")
        state.degraded_tasks = sorted(r.task_id for r in state.tasks.values() if r.status == "degraded")
        lines = [finding_line(finding) for finding in report.findings]
        hidden = sum(report.counts.values()) - len(lines)
        state.unresolved_issues = lines + ([f"……另有 {hidden} 处问题"] if hidden > 0 else [])
        rounds = policies.APP_MAX_REPAIR_ROUNDS
        context.thought(f"修复 {rounds} 轮后仍有 {sum(report.counts.values())} 处问题：标记为降级完成", "warning")
