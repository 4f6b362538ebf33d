"""The content run's declared graph (seed 001's 完整流程图 and routing tables): the Supervisor in the middle, every
agent returning to it, the three tool loops, the clarification wait and the end. Served as Mermaid at
`/v1/workflows/ContentSupervisorWorkflow/graph`; every transition a run records is checked against it."""

from temporalio import workflow

from workflows.common.graph import START, Edge, Graph
from workflows.content.routing import IMAGE_TOOLS, RESEARCH_TOOLS, SUPERVISOR, SUPERVISOR_TOOLS

with workflow.unsafe.imports_passed_through():
    from models.content.agents import AGENT_LABELS, AgentName
    from models.content.nodes import TOOLLESS_AGENTS

CLARIFICATION = "clarification"
FINALIZE = "finalize"
ERROR_HANDLER = "error_handler"
END = "done"


def _edges() -> tuple[Edge, ...]:
    edges = [
        Edge(START, SUPERVISOR, "用户输入"),
        Edge(SUPERVISOR, SUPERVISOR_TOOLS, "有 tool_calls"),
        Edge(SUPERVISOR_TOOLS, SUPERVISOR, "工具结果"),
        Edge(SUPERVISOR, SUPERVISOR, "决策为空 / END 但还不能结束"),
        Edge(SUPERVISOR, FINALIZE, "END 且可以结束 / 达到 maxIterations"),
        Edge(SUPERVISOR, ERROR_HANDLER, "Supervisor 失败"),
        Edge(AgentName.RESEARCH_EVIDENCE, RESEARCH_TOOLS, "有 tool_calls"),
        Edge(RESEARCH_TOOLS, AgentName.RESEARCH_EVIDENCE, "工具结果"),
        Edge(AgentName.IMAGE, IMAGE_TOOLS, "有 tool_calls 且次数 < 10"),
        Edge(IMAGE_TOOLS, AgentName.IMAGE, "工具结果"),
        Edge(AgentName.REVIEW, FINALIZE, "approved && isQualityApproved()"),
        Edge(CLARIFICATION, FINALIZE, "截止前无人回答：按现有结果结束"),
        Edge(FINALIZE, END, "发布成品"),
        Edge(ERROR_HANDLER, END, "推送错误"),
    ]
    edges += [
        Edge(node, ERROR_HANDLER, "截止时间到 / 取消") for node in (SUPERVISOR_TOOLS, RESEARCH_TOOLS, IMAGE_TOOLS)
    ]
    for agent in AgentName:
        edges += [
            Edge(SUPERVISOR, agent, "next_agent / 前置条件纠正"),
            Edge(agent, SUPERVISOR, "完成后返回"),
            Edge(agent, ERROR_HANDLER, "失败"),
        ]
    for agent in TOOLLESS_AGENTS:
        edges += [Edge(agent, CLARIFICATION, "需要用户澄清"), Edge(CLARIFICATION, agent, "已回答 / 不再询问")]
    return tuple(edges)


GRAPH = Graph(
    name="ContentSupervisorWorkflow",
    nodes={
        START: "用户输入",
        SUPERVISOR: "Supervisor<br/>routeFromSupervisor()",
        SUPERVISOR_TOOLS: "supervisor_tools",
        **{agent.value: f"{agent.value}<br/>{AGENT_LABELS[agent]}" for agent in AgentName},
        RESEARCH_TOOLS: "research_evidence_tools",
        IMAGE_TOOLS: "image_tools",
        CLARIFICATION: "等待用户澄清",
        FINALIZE: "成品",
        ERROR_HANDLER: "错误处理",
        END: "done",
    },
    edges=_edges(),
    end=END,
    decisions=frozenset({SUPERVISOR}),
)
