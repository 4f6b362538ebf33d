"""Validation of an Execution_Plan (seed 003 §2) and its waves, as pure functions the workflow applies.

A plan passes when it has tasks, every task id is unique, every `agentId` is one of the seven execution agents,
every tool is in the tool registry, every `dependsOn` names a task of the plan, and the dependencies have no
cycle, and (`nothing_to_build`) some task is not a repair task; each refusal is a `PlanIssue` that names the
task (and, for a cycle, the cycle: `a → b → a`), so the planner's repair round knows what to change.

Waves: a task runs in the first wave after all its dependencies' waves. Repair tasks are not scheduled in waves:
they are the quality gate's repair rounds (seed 003: quality-agent -.->|失败时| repair-agent).
"""

from collections.abc import Collection

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.app_builder.plan import ExecutionAgentID, ExecutionPlan, ExecutionPlanTask, PlanIssue
    from models.app_builder.tools import TOOL_REGISTRY

AGENT_IDS = frozenset(agent.value for agent in ExecutionAgentID)


def plan_issues(plan: ExecutionPlan, tools: Collection[str] = TOOL_REGISTRY.keys()) -> list[PlanIssue]:
    """Every reason to refuse `plan` (none: it may run)."""
    if not plan.tasks:
        return [PlanIssue(code="no_tasks", message="the plan has no tasks")]
    issues: list[PlanIssue] = []
    seen: set[str] = set()
    for task in plan.tasks:
        if task.id in seen:
            issues.append(
                PlanIssue(code="duplicate_task", task_id=task.id, message=f"task id {task.id!r} is used twice")
            )
        seen.add(task.id)
        if task.agent_id not in AGENT_IDS:
            message = f"task {task.id!r}: unknown agentId {task.agent_id!r}; use one of {', '.join(sorted(AGENT_IDS))}"
            issues.append(PlanIssue(code="unknown_agent", task_id=task.id, message=message))
        for tool in task.tools:
            if tool not in tools:
                message = f"task {task.id!r}: unknown tool {tool!r}; the registry has {', '.join(sorted(tools))}"
                issues.append(PlanIssue(code="unknown_tool", task_id=task.id, message=message))
    ids = {task.id for task in plan.tasks}
    for task in plan.tasks:
        for dependency in task.depends_on:
            if dependency not in ids:
                message = f"task {task.id!r} depends on {dependency!r}, which is not a task of this plan"
                issues.append(PlanIssue(code="unknown_dependency", task_id=task.id, message=message))
    cycle = find_cycle(plan.tasks)
    if cycle:
        message = "dependency cycle: " + " → ".join(cycle)
        issues.append(PlanIssue(code="cycle", task_id=cycle[0], message=message))
    return issues


def nothing_to_build(plan: ExecutionPlan) -> PlanIssue | None:
    """The refusal of a plan whose every task is a repair task: its waves are empty, so nothing would be built."""
    if plan.tasks and all(task.agent_id == ExecutionAgentID.REPAIR for task in plan.tasks):
        return PlanIssue(code="no_tasks", message="the plan has only repair-agent tasks: no task builds the project")
    return None


def find_cycle(tasks: list[ExecutionPlanTask]) -> list[str]:
    """One dependency cycle as the task ids along it, first id repeated at the end (`[a, b, a]`); [] for none.
    A task that depends on itself is the cycle `[a, a]`; dependencies on unknown tasks are ignored here."""
    depends = {task.id: list(task.depends_on) for task in tasks}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for dependency in depends.get(node, []):
            if dependency not in depends:
                continue
            if state.get(dependency) == 1:
                start = path.index(dependency)
                return [*path[start:], dependency]
            if dependency not in state:
                found = visit(dependency)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for task in tasks:
        if task.id not in state:
            found = visit(task.id)
            if found:
                return found
    return []


def schedule_waves(tasks: list[ExecutionPlanTask]) -> list[list[str]]:
    """The waves of a valid plan's non-repair tasks, in plan order within a wave. A task that depends on a repair
    task waits only for that task's own dependencies (the repair task runs inside the quality gate)."""
    by_id = {task.id: task for task in tasks}
    wave_of: dict[str, int] = {}

    def wave(task_id: str) -> int:
        if task_id not in wave_of:
            task = by_id[task_id]
            wave_of[task_id] = 1 + max((wave(d) for d in task.depends_on), default=0)
        return wave_of[task_id]

    scheduled = [task for task in tasks if task.agent_id != ExecutionAgentID.REPAIR]
    waves: list[list[str]] = [[] for _ in range(max((wave(task.id) for task in scheduled), default=0))]
    for task in scheduled:
        waves[wave(task.id) - 1].append(task.id)
    return [ids for ids in waves if ids]
