"""What every phase of an app run shares (`AppRun`): its input, blackboard (state; a follow-up round's starts with
its round, its base and the base's final workspace), event log, `GraphRun` and its agents' streamed text,
where execution stands (the wave, the quality gate of that wave, its repair round and the workspace it last
checked), and the steps every phase
takes on a plan task's record (started, finished, skipped) and on the timeline (a layer starts, a thought)."""

from temporalio import workflow

from workflows.app_builder.graph import ERROR_HANDLER, GRAPH
from workflows.common.agent_stream import AgentStream
from workflows.common.event_log import EventLog
from workflows.common.run import GraphRun

with workflow.unsafe.imports_passed_through():
    from models.app_builder.events import APP_BUILDER_EVENTS, AppThought, LayerStarted, TaskFinished, TaskStarted
    from models.app_builder.plan import ExecutionPlanTask
    from models.app_builder.quality import QualityReport
    from models.app_builder.runs import AppRunInput
    from models.app_builder.state import AppBuilderState, Layer, TaskStatus
    from models.app_builder.workspace import WorkspaceRef

BLOCKING = ("failed", "skipped")
"""A task whose dependency ended like this is skipped."""


class AppRun:
    """One app run's shared context, held by each of its phases."""

    def __init__(self, input: AppRunInput) -> None:
        self.input = input
        self.state = AppBuilderState(brief=input.brief, started_at=workflow.now())
        base = input.base
        if base is not None:  # a follow-up round starts from its base's final workspace
            self.state.round = base.round + 1
            self.state.base_run_id = base.run_id
            self.state.earlier_messages = list(base.messages)
            self.state.workspace = base.workspace
        self.events = EventLog(APP_BUILDER_EVENTS)
        self.run = GraphRun(GRAPH, self.events, self.state, error_node=ERROR_HANDLER)
        self.stream = AgentStream(self.events, self.run, one_text=False)
        """The analysis agents' and the planner's text as they write it (`content` events)."""
        self.wave_index = 0
        """Waves started so far."""
        self.gates: list[ExecutionPlanTask] = []
        """The current wave's quality tasks."""
        self.gate_ran = False
        self.checked: WorkspaceRef | None = None
        """The workspace the quality gate last checked."""
        self.final_pass = False
        """The gate is the whole project's check after the last wave (files changed after the plan's own gate)."""
        self.round = 0
        """The quality gate's repair round."""
        self.last_report: QualityReport | None = None

    @property
    def run_id(self) -> str:
        return workflow.info().workflow_id

    @property
    def gate_id(self) -> str:
        """The quality gate's name for its activities: its plan task's id (`quality` when the plan has none,
        `final-quality` for the check after the last wave that follows the plan's own)."""
        if self.final_pass:
            return "final-quality"
        return self.gates[0].id if self.gates else "quality"

    @property
    def plan_tasks(self) -> list[ExecutionPlanTask]:
        return self.state.plan.tasks if self.state.plan else []

    @property
    def waves_done(self) -> bool:
        return self.wave_index >= len(self.state.waves)

    def task(self, task_id: str) -> ExecutionPlanTask:
        """A plan task by id (or, for a task the run added, one made from its record)."""
        for task in self.plan_tasks:
            if task.id == task_id:
                return task
        record = self.state.tasks[task_id]
        return ExecutionPlanTask(id=record.task_id, agent_id=record.agent_id, goal=record.goal)

    def blocker(self, task: ExecutionPlanTask) -> str | None:
        """A dependency of `task` that failed or was skipped."""
        for dependency in task.depends_on:
            record = self.state.tasks.get(dependency)
            if record is not None and record.status in BLOCKING:
                return dependency
        return None

    def skip(self, task: ExecutionPlanTask, reason: str) -> None:
        self.finished(task, "skipped", error=reason)

    def started(self, task: ExecutionPlanTask) -> None:
        record = self.state.tasks[task.id]
        if record.status == "running":
            return
        record.status = "running"
        record.started_at = workflow.now()
        started = TaskStarted(task_id=task.id, agent_id=task.agent_id, goal=task.goal, wave=record.wave)
        self.events.emit("task_started", self.run.node, started)

    def finished(
        self,
        task: ExecutionPlanTask,
        status: TaskStatus,
        *,
        summary: str = "",
        files: list[str] | None = None,
        error: str | None = None,
    ) -> None:
        record = self.state.tasks[task.id]
        record.status = status
        record.error = error
        if status != "running":
            record.finished_at = workflow.now()
        finished = TaskFinished(
            task_id=task.id,
            agent_id=task.agent_id,
            status=status,
            summary=summary,
            files=files or [],
            error=error,
            offline=record.offline,
        )
        self.events.emit("task_finished", self.run.node, finished)

    def layer(self, layer: Layer) -> None:
        self.state.layer = layer
        self.events.emit("layer_started", self.run.node, LayerStarted(layer=layer))

    def thought(self, message: str, level: str = "info") -> None:
        self.events.emit("thought_log", self.run.node, AppThought.model_validate({"message": message, "level": level}))
