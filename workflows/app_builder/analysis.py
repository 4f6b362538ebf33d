"""The analysis layer's nodes: product manager → front-end architect → UI expert → UX expert, strictly in order,
each reading every document before it (in a follow-up round, each updates its own document of the base run). A
document that is not the agent's own stops the layer and names it."""

from temporalio import workflow

from workflows import policies
from workflows.app_builder.context import AppRun
from workflows.app_builder.graph import PLANNER, analysis_node
from workflows.app_builder.summaries import document_summary

with workflow.unsafe.imports_passed_through():
    from models.app_builder import nodes
    from models.app_builder.agents import AnalysisRequest
    from models.app_builder.documents import ANALYSIS_ORDER, AnalysisAgentID
    from models.app_builder.errors import AppBuilderErrorCode
    from models.app_builder.events import DocumentReady
    from models.errors import ErrorInfo


class AnalysisNodes:
    """One node per analysis agent (`analysis_node(agent)`)."""

    def __init__(self, context: AppRun) -> None:
        self._context = context

    async def analysis(self, agent: AnalysisAgentID) -> str:
        context = self._context
        state = context.state
        if agent == ANALYSIS_ORDER[0]:
            context.layer("analysis")
        base = context.input.base
        earlier = next((d for d in base.documents if d.agent_id == agent), None) if base is not None else None
        request = AnalysisRequest(
            agent_id=agent,
            brief=state.brief,
            previous_documents=list(state.documents),
            earlier=earlier,
            use_llm=context.input.llm_configured,
            run_id=context.run_id,
        )
        options = policies.APP_ANALYSIS_AGENT if request.use_llm else policies.APP_ANALYSIS_OFFLINE
        outcome = await context.run.call_or_fail(
            nodes.ANALYSIS[agent],
            request,
            options,
            summary=f"{agent.value}: Session_Document",
            code=AppBuilderErrorCode.ANALYSIS_FAILED,
        )
        document = outcome.document
        if document.agent_id != agent:
            message = f"{agent.value} 返回了 {document.agent_id} 的文档（分析层中止）"
            error = ErrorInfo(code=AppBuilderErrorCode.DOCUMENT_INVALID, message=message, node=context.run.node)
            return context.run.fail_with(error)
        state.documents.append(document)
        ready = DocumentReady(
            agent_id=agent,
            document_id=document.id,
            summary=document_summary(document),
            offline=outcome.offline,
            version=document.version,
            update=earlier is not None,
        )
        context.events.emit("document_ready", context.run.node, ready)
        position = ANALYSIS_ORDER.index(agent)
        return analysis_node(ANALYSIS_ORDER[position + 1]) if position + 1 < len(ANALYSIS_ORDER) else PLANNER
