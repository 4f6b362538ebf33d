"""Execution_Plan validation and waves (`workflows.app_builder.plan_checks`): only the seven agents, tools from the
registry, dependencies on tasks of the plan, no cycle (the error names it), unique ids, something to build; waves
from the dependencies, repair tasks left to the quality gate."""

from models.app_builder.plan import ExecutionPlan, ExecutionPlanTask
from workflows.app_builder.plan_checks import find_cycle, nothing_to_build, plan_issues, schedule_waves


def task(
    task_id: str, agent: str = "page-agent", depends_on: tuple[str, ...] = (), tools: tuple[str, ...] = ()
) -> ExecutionPlanTask:
    return ExecutionPlanTask(id=task_id, agent_id=agent, goal="g", depends_on=list(depends_on), tools=list(tools))


def plan(*tasks: ExecutionPlanTask) -> ExecutionPlan:
    return ExecutionPlan(id="p", created_at=0, tasks=list(tasks))


SEED = plan(
    task("scaffold", "scaffold-agent", tools=("write_file",)),
    task("state", "state-agent", ("scaffold",)),
    task("style", "style-agent", ("scaffold",)),
    task("pages", "page-agent", ("scaffold",)),
    task("wiring", "interaction-agent", ("pages", "state")),
    task("quality", "quality-agent", ("wiring", "style"), ("parse_files", "typecheck")),
    task("repair", "repair-agent", ("quality",)),
)


def test_the_seeds_plan_passes_and_its_waves_follow_the_dependencies() -> None:
    assert plan_issues(SEED) == []
    assert schedule_waves(SEED.tasks) == [["scaffold"], ["state", "style", "pages"], ["wiring"], ["quality"]]


def test_each_refusal_names_the_task_and_what_is_wrong() -> None:
    bad = plan(
        task("a", "designer-agent"),
        task("b", tools=("rm_rf",)),
        task("c", depends_on=("ghost",)),
        task("c"),
    )

    issues = {(issue.code, issue.task_id): issue.message for issue in plan_issues(bad)}

    assert set(issues) == {
        ("unknown_agent", "a"),
        ("unknown_tool", "b"),
        ("unknown_dependency", "c"),
        ("duplicate_task", "c"),
    }
    assert "'designer-agent'" in issues["unknown_agent", "a"] and "scaffold-agent" in issues["unknown_agent", "a"]
    assert "'rm_rf'" in issues["unknown_tool", "b"]
    assert "'ghost'" in issues["unknown_dependency", "c"]


def test_a_cycle_is_refused_and_named() -> None:
    cyclic = plan(task("a", depends_on=("c",)), task("b", depends_on=("a",)), task("c", depends_on=("b",)), task("d"))

    [issue] = plan_issues(cyclic)

    assert issue.code == "cycle"
    assert issue.message == "dependency cycle: a → c → b → a"
    assert find_cycle(plan(task("x", depends_on=("x",))).tasks) == ["x", "x"]
    assert find_cycle(SEED.tasks) == []


def test_an_empty_plan_is_refused() -> None:
    assert [issue.code for issue in plan_issues(plan())] == ["no_tasks"]


def test_a_plan_of_only_repair_tasks_builds_nothing_and_is_refused() -> None:
    only_repairs = plan(task("fix", "repair-agent"), task("fix-again", "repair-agent", ("fix",)))

    issue = nothing_to_build(only_repairs)
    assert issue is not None and issue.code == "no_tasks" and "only repair-agent tasks" in issue.message
    assert schedule_waves(only_repairs.tasks) == []
    assert nothing_to_build(SEED) is None


def test_a_task_after_the_repair_task_waits_for_the_quality_wave_only() -> None:
    tasks = [*SEED.tasks, task("docs", depends_on=("repair",))]

    assert schedule_waves(tasks)[-1] == ["docs"]
    assert "repair" not in {task_id for wave in schedule_waves(tasks) for task_id in wave}
