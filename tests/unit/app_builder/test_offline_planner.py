"""The offline planner: seed 003's execution graph, tools from the registry, goals naming what the documents ask
for."""

from activities.app_builder.offline.analysis import analysis_document
from activities.app_builder.offline.planner import offline_plan
from models.app_builder.agents import AppBrief
from models.app_builder.documents import ANALYSIS_ORDER, SessionDocument
from models.app_builder.plan import ExecutionAgentID, ExecutionPlan
from models.app_builder.tools import QUALITY_TOOLS, TOOL_REGISTRY, WORKSPACE_TOOLS


def plan_for(message: str) -> ExecutionPlan:
    documents: list[SessionDocument] = []
    for agent in ANALYSIS_ORDER:
        documents.append(
            analysis_document(agent, AppBrief(message=message), documents, document_id=f"doc-{agent}", created_at=1)
        )
    return offline_plan(documents, plan_id="plan-1", created_at=42)


def waves(plan: ExecutionPlan) -> list[list[str]]:
    """The tasks grouped by how many dependency steps lie before them."""
    depth: dict[str, int] = {}
    pending = list(plan.tasks)
    while pending:
        ready = [task for task in pending if all(dep in depth for dep in task.depends_on)]
        assert ready, f"a cycle among {[task.id for task in pending]}"
        for task in ready:
            depth[task.id] = 1 + max((depth[dep] for dep in task.depends_on), default=-1)
            pending.remove(task)
    return [sorted(task for task, level in depth.items() if level == wave) for wave in range(max(depth.values()) + 1)]


def test_the_plan_is_the_seeds_wave_graph() -> None:
    plan = plan_for("做一个待办应用")
    assert (plan.id, plan.created_at) == ("plan-1", 42)
    agents = {task.id: task.agent_id for task in plan.tasks}
    assert agents == {
        "scaffold": ExecutionAgentID.SCAFFOLD,
        "state": ExecutionAgentID.STATE,
        "style": ExecutionAgentID.STYLE,
        "pages": ExecutionAgentID.PAGE,
        "interaction": ExecutionAgentID.INTERACTION,
        "quality": ExecutionAgentID.QUALITY,
        "repair": ExecutionAgentID.REPAIR,
    }
    depends = {task.id: set(task.depends_on) for task in plan.tasks}
    assert depends["scaffold"] == set()
    assert depends["state"] == depends["style"] == depends["pages"] == {"scaffold"}
    assert depends["interaction"] == {"pages", "state"}
    assert "interaction" in depends["quality"]
    assert depends["repair"] == {"quality"}
    assert waves(plan) == [["scaffold"], ["pages", "state", "style"], ["interaction"], ["quality"], ["repair"]]


def test_every_task_gets_registered_tools_for_its_role() -> None:
    for task in plan_for("做一个计数器").tasks:
        assert set(task.tools) <= set(TOOL_REGISTRY)
        expected = QUALITY_TOOLS if task.agent_id == ExecutionAgentID.QUALITY else WORKSPACE_TOOLS
        assert tuple(task.tools) == expected


def test_goals_name_what_the_documents_ask_for() -> None:
    goals = {task.id: task.goal for task in plan_for("做一个购物清单，叫“家庭采购”").tasks}
    assert "家庭采购" in goals["scaffold"]
    assert "shoppingStore" in goals["state"]
    assert "ShoppingList" in goals["pages"]
    assert "添加商品" in goals["interaction"]
    assert "md" in goals["style"]
    counter_goals = {task.id: task.goal for task in plan_for("做一个计数器").tasks}
    assert "counterStore" in counter_goals["state"]
    assert "CounterControls" in counter_goals["pages"]
