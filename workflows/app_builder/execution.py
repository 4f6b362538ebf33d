"""The execution layer's nodes: waves from the plan's dependencies; a wave's tasks run side by side, one activity
each (or, with a model, one tool loop each: `task_loop`), and emit patch intents on the wave's snapshot, which
are applied together (`app_builder.apply_patches`: a real three-way merge when two tasks changed one file, else a
conflict with both versions kept). A failed task skips its dependents only; a wave with quality tasks goes to the
quality gate, and so does the last wave whenever the workspace changed since the gate last checked it."""

import asyncio

from temporalio import workflow

from workflows import policies
from workflows.app_builder.context import AppRun
from workflows.app_builder.graph import FINALIZE, QUALITY_GATE, WAVE
from workflows.app_builder.task_loop import SUMMARY_CHARS, run_task_loop, task_activity_id
from workflows.common.patches import patched
from workflows.common.run import NodeFailed

with workflow.unsafe.imports_passed_through():
    from models.app_builder import nodes
    from models.app_builder.agents import TaskOutcome, TaskRequest
    from models.app_builder.errors import AppBuilderErrorCode
    from models.app_builder.events import ConflictFound, WaveStarted
    from models.app_builder.plan import ExecutionAgentID, ExecutionPlanTask
    from models.app_builder.quality import Finding
    from models.app_builder.state import FailedTask
    from models.app_builder.workspace import ApplyRequest, PatchIntent

FINAL_QUALITY_PATCH = "app-quality-after-last-wave"
"""Issue 27: a run whose plan had a quality task is checked again after the last wave when files changed since
(runs recorded before it ended after the last wave: docs/durable-changes.md)."""


class ExecutionNodes:
    """The `wave` node, and the task and merge steps the repair rounds use too."""

    def __init__(self, context: AppRun) -> None:
        self._context = context

    async def wave(self) -> str:
        context = self._context
        state = context.state
        if context.wave_index == 0:
            context.layer("execution")
        if context.waves_done:
            return self.after_waves()
        number = context.wave_index + 1
        ids = state.waves[context.wave_index]
        context.wave_index += 1
        context.events.emit("wave_started", WAVE, WaveStarted(wave=number, task_ids=ids))
        writers: list[ExecutionPlanTask] = []
        context.gates = []
        for task in (context.task(task_id) for task_id in ids):
            blocker = context.blocker(task)
            if blocker is not None:
                context.skip(task, f"依赖的任务 {blocker} 未完成（{state.tasks[blocker].status}）")
            elif task.agent_id == ExecutionAgentID.QUALITY:
                context.gates.append(task)
            else:
                writers.append(task)
        outcomes = await asyncio.gather(*(self.execute(task) for task in writers))
        intents = [intent for outcome in outcomes if outcome is not None for intent in outcome.intents]
        if intents:
            await self.apply(intents, f"wave-{number}")
        if context.gates:
            for gate in context.gates:
                context.started(gate)
            return QUALITY_GATE
        return self.after_waves() if context.waves_done else WAVE

    def after_waves(self) -> str:
        """After the last wave the quality gate checks the whole project unless it already checked this
        workspace: when the plan had no quality task, and (issue 27) when files changed after the plan's own
        quality task (or that task never ran); else the end."""
        context = self._context
        if context.checked == context.state.workspace:
            return FINALIZE
        planned_gate = any(task.agent_id == ExecutionAgentID.QUALITY for task in context.plan_tasks)
        if not planned_gate and not context.gate_ran:
            context.thought("计划中没有 quality-agent 任务：最后一波之后仍检查整个项目")
            return QUALITY_GATE
        if patched(FINAL_QUALITY_PATCH):
            context.final_pass = True
            context.thought("计划中的质量检查之后又有文件改动：最后一波之后再检查整个项目")
            return QUALITY_GATE
        return FINALIZE

    async def execute(
        self, task: ExecutionPlanTask, *, findings: list[Finding] | None = None, repair_round: int = 0
    ) -> TaskOutcome | None:
        """One task on the current snapshot: its outcome, or None when it failed for good (recorded)."""
        context = self._context
        state = context.state
        assert state.documents_ref is not None, "the planner stored the documents"
        context.started(task)
        request = TaskRequest(
            run_id=context.run_id,
            task=task,
            brief=state.brief,
            documents_ref=state.documents_ref,
            workspace=state.workspace,
            findings=findings or [],
            repair_round=repair_round,
        )
        agent = ExecutionAgentID(task.agent_id)
        try:
            if context.input.llm_configured:
                outcome = await run_task_loop(context.run, request)
            else:
                outcome = await context.run.call(
                    nodes.EXECUTION[agent],
                    request,
                    policies.APP_TASK_OFFLINE,
                    summary=f"{task.id} · {agent.value}: {task.goal[:SUMMARY_CHARS]}",
                    activity_id=task_activity_id(request),
                )
        except NodeFailed as err:
            message = str(err.cause)[:500]
            state.failed_tasks.append(FailedTask(task_id=task.id, error=message))
            context.finished(task, "failed", error=message)
            return None
        record = state.tasks[task.id]
        record.files = sorted({intent.path for intent in outcome.intents} | set(record.files))
        record.offline = outcome.offline
        record.summary = outcome.summary
        context.finished(task, "completed", summary=outcome.summary, files=sorted({i.path for i in outcome.intents}))
        return outcome

    async def apply(self, intents: list[PatchIntent], what: str) -> None:
        """Apply patch intents to the workspace; when that failed for good the run ends (INVALID_PATCH)."""
        context = self._context
        state = context.state
        node = context.run.node
        request = ApplyRequest(run_id=context.run_id, workspace=state.workspace, intents=intents)
        outcome = await context.run.call_or_fail(
            nodes.APPLY_PATCHES,
            request,
            policies.APP_APPLY_PATCHES,
            summary=f"merge {what}: {len(intents)} patch intents",
            code=AppBuilderErrorCode.INVALID_PATCH,
            activity_id=f"merge-{what}",
        )
        state.workspace = outcome.workspace
        state.patch_intents += intents
        state.touched_files = sorted(set(state.touched_files) | set(outcome.changed))
        for merged in outcome.merged:
            state.merged_files.append(merged)
            context.events.emit(
                "conflict", node, ConflictFound(path=merged.path, task_ids=merged.task_ids, merged=True)
            )
        for conflict in outcome.conflicts:
            state.conflicts.append(conflict)
            found = ConflictFound(
                path=conflict.path,
                task_ids=conflict.task_ids,
                merged=False,
                kept_task_id=conflict.kept_task_id,
                regions=conflict.regions,
            )
            context.events.emit("conflict", node, found)
            kept = conflict.kept_task_id
            context.thought(
                f"{conflict.path} 冲突：{'、'.join(conflict.task_ids)} 的改动重叠，保留 {kept} 的版本", "warning"
            )
