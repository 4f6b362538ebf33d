"""The offline planner: seed 003's execution graph as a plan, each task's goal naming what it produces from the
four documents.

scaffold → state, style, pages (one wave); state and pages → interaction; interaction → quality (which also waits
for style, whose stylesheet it checks); quality → repair, which the workflow runs only when quality fails.
Writing agents and the repair agent get the workspace tools, the quality agent the quality tools.
"""

from activities.app_builder.offline.conventions import capabilities_of, documents_title, find_document, kind_of
from models.app_builder.documents import (
    FrontendArchitectDocument,
    ProductManagerDocument,
    SessionDocument,
    UIExpertDocument,
    UXExpertDocument,
)
from models.app_builder.plan import ExecutionAgentID, ExecutionPlan, ExecutionPlanTask
from models.app_builder.tools import QUALITY_TOOLS, WORKSPACE_TOOLS

GRAPH: tuple[tuple[str, ExecutionAgentID, tuple[str, ...]], ...] = (
    ("scaffold", ExecutionAgentID.SCAFFOLD, ()),
    ("state", ExecutionAgentID.STATE, ("scaffold",)),
    ("style", ExecutionAgentID.STYLE, ("scaffold",)),
    ("pages", ExecutionAgentID.PAGE, ("scaffold",)),
    ("interaction", ExecutionAgentID.INTERACTION, ("pages", "state")),
    ("quality", ExecutionAgentID.QUALITY, ("interaction", "style")),
    ("repair", ExecutionAgentID.REPAIR, ("quality",)),
)
"""Task id, agent and the tasks it waits for."""


def _goals(documents: list[SessionDocument]) -> dict[str, str]:
    product = find_document(documents, ProductManagerDocument)
    architect = find_document(documents, FrontendArchitectDocument)
    ui = find_document(documents, UIExpertDocument)
    ux = find_document(documents, UXExpertDocument)
    kind = kind_of(documents)
    features = "、".join(c.title for c in capabilities_of(product, kind)) if product else kind.noun
    tree = architect.content.component_tree if architect else []
    stores = architect.content.state_management.stores if architect else []
    store_text = "；".join(f"{store.name}（{'、'.join(store.fields)}）" for store in stores) or "无"
    styled = len(ui.content.component_styles) if ui else 0
    breakpoints = "、".join(ui.content.responsive_layout.breakpoints) if ui else "默认"
    flows = "、".join(flow.name for flow in ux.content.interaction_flows) if ux else "基本交互"
    return {
        "scaffold": f"生成「{documents_title(documents)}」的 React 18 + TypeScript + Vite 工程骨架：package.json、"
        "tsconfig.json、vite.config.ts、index.html、src/main.tsx、src/App.tsx（留出 store 与页面的位置）、README.md",
        "state": f"按架构文档实现状态（React Context + useReducer，类型完整）：{store_text}；"
        "在 App.tsx 接入 StoreProvider",
        "style": f"按 UI 规范生成 src/styles.css：配色与字体的 CSS 变量、{styled} 个组件样式、断点 {breakpoints}",
        "pages": f"按组件树生成 {len(tree)} 个组件（{'、'.join(node.name for node in tree)}），路由 / 渲染页面，"
        "在 App.tsx 接入根组件；功能：" + features,
        "interaction": f"按 UX 流程接入交互：{flows}；键盘操作与空状态提示",
        "quality": "检查工程：逐个解析文件、解析导入与依赖、tsc 类型检查与构建",
        "repair": "修复质量检查发现的问题（缺失的模块、缺失的依赖），再交回质量检查",
    }


def offline_plan(documents: list[SessionDocument], *, plan_id: str, created_at: int) -> ExecutionPlan:
    goals = _goals(documents)
    tasks = [
        ExecutionPlanTask(
            id=task_id,
            agent_id=agent.value,
            goal=goals[task_id],
            depends_on=list(depends_on),
            tools=list(QUALITY_TOOLS if agent == ExecutionAgentID.QUALITY else WORKSPACE_TOOLS),
        )
        for task_id, agent, depends_on in GRAPH
    ]
    return ExecutionPlan(id=plan_id, created_at=created_at, tasks=tasks)
