"""The writing run's declared graph (seed 002's 整体执行流程, its workflow tables and chains) and its routing.

Routing functions are pure: they read the plan and the run's progress and name the next node, so tests can check
them directly and every transition a run records is checked against `GRAPH` (ARCHITECTURE rule 7).
"""

from temporalio import workflow

from workflows.common.graph import START, Edge, Graph

with workflow.unsafe.imports_passed_through():
    from models.writing.agents import ChainContext
    from models.writing.plans import WorkflowPlan

ROUTER = "router"
PREPROCESSING = "preprocessing"
AGENT = "agent"
CHAIN_STEP = "chain_step"
USER_SELECTION = "user_selection"
POSTPROCESSING = "postprocessing"
CHAIN_SUMMARY = "chain_summary"
ERROR_HANDLER = "error_handler"
END = "done"

GRAPH = Graph(
    name="WritingWorkflow",
    nodes={
        START: "作者请求",
        ROUTER: "AgentRouter<br/>意图识别",
        PREPROCESSING: "Phase 1<br/>并行预处理",
        AGENT: "Phase 2<br/>Agent 执行",
        CHAIN_STEP: "链式 Agent 步骤",
        USER_SELECTION: "等待作者选择",
        POSTPROCESSING: "Phase 3<br/>后处理",
        CHAIN_SUMMARY: "链式汇总",
        ERROR_HANDLER: "错误处理",
        END: "done",
    },
    edges=(
        Edge(START, ROUTER, "新请求"),
        Edge(START, PREPROCESSING, "带 chainContext：继续链"),
        Edge(ROUTER, PREPROCESSING, "有预处理的工作流或链"),
        Edge(ROUTER, AGENT, "SimpleAgent：不预处理"),
        Edge(ROUTER, ERROR_HANDLER, "路由失败"),
        Edge(PREPROCESSING, AGENT, "单 Agent 工作流"),
        Edge(PREPROCESSING, CHAIN_STEP, "链式工作流"),
        Edge(AGENT, POSTPROCESSING, "有后处理"),
        Edge(AGENT, END, "无后处理"),
        Edge(AGENT, ERROR_HANDLER, "Agent 失败（离线降级也失败）"),
        Edge(CHAIN_STEP, CHAIN_STEP, "下一个 Agent"),
        Edge(CHAIN_STEP, USER_SELECTION, "需要作者选择"),
        Edge(CHAIN_STEP, POSTPROCESSING, "链完成，检查草稿"),
        Edge(CHAIN_STEP, CHAIN_SUMMARY, "链完成"),
        Edge(CHAIN_STEP, ERROR_HANDLER, "步骤失败：中止链"),
        Edge(USER_SELECTION, CHAIN_STEP, "作者已选择"),
        Edge(USER_SELECTION, ERROR_HANDLER, "截止前无人选择"),
        Edge(POSTPROCESSING, END, "后处理完成"),
        Edge(POSTPROCESSING, CHAIN_SUMMARY, "链的后处理完成"),
        Edge(CHAIN_SUMMARY, END, "汇总所有步骤"),
        Edge(ERROR_HANDLER, END, "推送错误"),
    ),
    end=END,
    decisions=frozenset({ROUTER}),
)


def route_after_router(plan: WorkflowPlan) -> str:
    """Req 1.3, 7.2: SimpleAgent goes straight to its agent; every other workflow preprocesses first."""
    return PREPROCESSING if plan.tasks else AGENT


def route_after_preprocessing(plan: WorkflowPlan) -> str:
    return CHAIN_STEP if plan.is_chain else AGENT


def route_after_agent(plan: WorkflowPlan) -> str:
    """Req 7.3: no post-processing where the table has none."""
    return POSTPROCESSING if plan.post is not None else END


def route_after_postprocessing(plan: WorkflowPlan) -> str:
    return CHAIN_SUMMARY if plan.is_chain else END


def route_in_chain(plan: WorkflowPlan, chain: ChainContext) -> str:
    """After a chain step: the writer's choice where the chain asks for one (Req 13.5), the next agent, or the
    end of the chain."""
    done = len(chain.steps)
    if plan.ask_after is not None and done == plan.ask_after + 1 and chain.selection is None:
        return USER_SELECTION
    if done < len(plan.agents):
        return CHAIN_STEP
    return POSTPROCESSING if plan.post is not None else CHAIN_SUMMARY
