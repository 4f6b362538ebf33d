"""The app run's declared graph (seed 003's 三层架构): the analysis agents in their fixed order (the UI and UX
experts, who do not read each other's documents, write theirs at once: `ANALYSIS_WAVES`), the planner and
its one repair round, the execution waves, the quality gate with its repair rounds, and the end. Served as
Mermaid at `/v1/workflows/AppBuilderWorkflow/graph`; every transition a run records is checked against it."""

import itertools

from temporalio import workflow

from workflows.common.graph import START, Edge, Graph

with workflow.unsafe.imports_passed_through():
    from models.app_builder.documents import ANALYSIS_ORDER, ANALYSIS_TITLES, ANALYSIS_WAVES, AnalysisAgentID

PLANNER = "planner"
PLAN_REPAIR = "plan_repair"
WAVE = "wave"
QUALITY_GATE = "quality_gate"
REPAIR = "repair"
FINALIZE = "finalize"
ERROR_HANDLER = "error_handler"
END = "done"


def analysis_node(agent: AnalysisAgentID) -> str:
    """`product_manager`, `frontend_architect`, `ui_expert`, `ux_expert`."""
    return agent.value.replace("-", "_")


def _edges() -> tuple[Edge, ...]:
    nodes = [analysis_node(agent) for agent in ANALYSIS_ORDER]
    edges = [Edge(START, nodes[0], "用户需求")]
    wave = {analysis_node(agent): index for index, agents in enumerate(ANALYSIS_WAVES) for agent in agents}
    edges += [
        Edge(source, target, "Session_Document" if wave[source] != wave[target] else "同一波次：同时写出")
        for source, target in itertools.pairwise(nodes)
    ]
    edges += [Edge(node, ERROR_HANDLER, "文档无效 / 失败：中止分析层") for node in nodes]
    edges += [
        Edge(nodes[-1], PLANNER, "4 份 Session_Document"),
        Edge(PLANNER, WAVE, "Execution_Plan 通过校验"),
        Edge(PLANNER, PLAN_REPAIR, "校验失败：带错误修复一轮"),
        Edge(PLANNER, ERROR_HANDLER, "规划失败"),
        Edge(PLAN_REPAIR, WAVE, "修复后通过校验"),
        Edge(PLAN_REPAIR, ERROR_HANDLER, "仍未通过校验"),
        Edge(WAVE, WAVE, "下一波次"),
        Edge(WAVE, QUALITY_GATE, "quality-agent 的波次 / 最后一波"),
        Edge(WAVE, FINALIZE, "全部波次完成"),
        Edge(WAVE, ERROR_HANDLER, "合并失败"),
        Edge(QUALITY_GATE, REPAIR, "未通过且修复轮次 < 2"),
        Edge(REPAIR, QUALITY_GATE, "修复后重新检查"),
        Edge(QUALITY_GATE, WAVE, "通过 / 降级：后续波次"),
        Edge(QUALITY_GATE, FINALIZE, "通过 / 降级完成"),
        Edge(QUALITY_GATE, ERROR_HANDLER, "检查失败"),
        Edge(REPAIR, ERROR_HANDLER, "合并失败"),
        Edge(FINALIZE, END, "app_ready"),
        Edge(ERROR_HANDLER, END, "推送错误"),
    ]
    return tuple(edges)


GRAPH = Graph(
    name="AppBuilderWorkflow",
    nodes={
        START: "用户需求",
        **{analysis_node(agent): f"{agent.value}<br/>{ANALYSIS_TITLES[agent]}" for agent in ANALYSIS_ORDER},
        PLANNER: "Planning_Layer<br/>主Agent",
        PLAN_REPAIR: "计划修复一轮",
        WAVE: "Execution_Layer<br/>波次（并行任务）",
        QUALITY_GATE: "quality-agent<br/>质量门",
        REPAIR: "repair-agent<br/>修复（最多 2 轮）",
        FINALIZE: "工作区完成",
        ERROR_HANDLER: "错误处理",
        END: "done",
    },
    edges=_edges(),
    end=END,
    decisions=frozenset({QUALITY_GATE}),
    together=tuple(tuple(analysis_node(agent) for agent in wave) for wave in ANALYSIS_WAVES if len(wave) > 1),
)
