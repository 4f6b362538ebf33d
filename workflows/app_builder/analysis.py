"""The analysis layer's nodes: product manager → front-end architect → UI expert → UX expert, each reading the
documents of the agents it depends on (`ANALYSIS_READS`; in a follow-up round, each updates its own document of
the base run). A document that is not the agent's own stops the layer and names it.

The agents of one wave (`ANALYSIS_WAVES`: the UI and UX experts, who do not read each other) write at once: the
wave's first node schedules every agent's activity of the wave, and each node takes its own result in
`ANALYSIS_ORDER`, so the documents, the `document_ready` events and the recorded transitions keep their order
(behind `patched(ANALYSIS_WAVES_AT_ONCE)`; a run recorded before writes one after the other). An agent with
a model streams its document's readable text to the run while it writes (`content` events of its node, behind
`patched(AGENTS_STREAM_TEXT)`)."""

import asyncio

from temporalio import workflow

from workflows import policies
from workflows.app_builder.context import AppRun
from workflows.app_builder.graph import PLANNER, analysis_node
from workflows.app_builder.summaries import document_summary
from workflows.common.agent_stream import this_run
from workflows.common.patches import patched
from workflows.common.run import NodeFailed, RunFailed

with workflow.unsafe.imports_passed_through():
    from models.app_builder import nodes
    from models.app_builder.agents import AnalysisOutcome, AnalysisRequest
    from models.app_builder.documents import ANALYSIS_ORDER, ANALYSIS_WAVES, AnalysisAgentID, SessionDocument
    from models.app_builder.errors import AppBuilderErrorCode
    from models.app_builder.events import DocumentReady
    from models.errors import ErrorInfo
    from models.streaming import StreamTarget

ANALYSIS_WAVES_AT_ONCE = "app-analysis-waves-at-once"
"""`workflow.patched` id: the agents of one analysis wave write their documents at once."""
AGENTS_STREAM_TEXT = "app-agents-stream-text"
"""`workflow.patched` id: the analysis agents and the planner with a model stream their answers' text to the run."""


class AnalysisNodes:
    """One node per analysis agent (`analysis_node(agent)`)."""

    def __init__(self, context: AppRun) -> None:
        self._context = context
        self._started: dict[AnalysisAgentID, asyncio.Task[AnalysisOutcome]] = {}
        """The activities a wave's first node started for the wave's later agents, until their nodes take them."""

    async def analysis(self, agent: AnalysisAgentID) -> str:
        context = self._context
        state = context.state
        if agent == ANALYSIS_ORDER[0]:
            context.layer("analysis")
        try:
            outcome = await self._outcome(agent)
        except NodeFailed as err:
            self._drop_started()
            raise RunFailed(err.error_info(context.run.node, AppBuilderErrorCode.ANALYSIS_FAILED)) from err
        except BaseException:
            self._drop_started()
            raise
        document = outcome.document
        if document.agent_id != agent:
            self._drop_started()
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
            update=self._earlier(agent) is not None,
        )
        context.events.emit("document_ready", context.run.node, ready)
        position = ANALYSIS_ORDER.index(agent)
        return analysis_node(ANALYSIS_ORDER[position + 1]) if position + 1 < len(ANALYSIS_ORDER) else PLANNER

    async def _outcome(self, agent: AnalysisAgentID) -> AnalysisOutcome:
        """`agent`'s document: the activity its wave's first node started, or this node's own; the first node of a
        wave of several starts the others' too (on the documents of the waves before it)."""
        started = self._started.pop(agent, None)
        if started is not None:
            return await started
        documents = list(self._context.state.documents)
        wave = next(wave for wave in ANALYSIS_WAVES if agent in wave)
        if len(wave) > 1 and agent == wave[0] and patched(ANALYSIS_WAVES_AT_ONCE):
            for other in wave[1:]:
                self._started[other] = asyncio.create_task(self._write(other, documents))
        return await self._write(agent, documents)

    async def _write(self, agent: AnalysisAgentID, documents: list[SessionDocument]) -> AnalysisOutcome:
        context = self._context
        use_llm = context.input.llm_configured
        request = AnalysisRequest(
            agent_id=agent,
            brief=context.state.brief,
            previous_documents=documents,
            earlier=self._earlier(agent),
            use_llm=use_llm,
            run_id=context.run_id,
            stream=stream_target(use_llm),
        )
        options = policies.APP_ANALYSIS_AGENT if request.use_llm else policies.APP_ANALYSIS_OFFLINE
        with context.stream.taking(agent.value, analysis_node(agent)):
            return await context.run.call(
                nodes.ANALYSIS[agent], request, options, summary=f"{agent.value}: Session_Document"
            )

    def _earlier(self, agent: AnalysisAgentID) -> SessionDocument | None:
        """`agent`'s own document of the base run (a follow-up round updates it)."""
        base = self._context.input.base
        return next((d for d in base.documents if d.agent_id == agent), None) if base is not None else None

    def _drop_started(self) -> None:
        """The layer stops: the wave's activities no node will take are cancelled (a finished one's failure is
        read, so it is not reported as never retrieved)."""
        for task in self._started.values():
            if task.done() and not task.cancelled():
                task.exception()
            task.cancel()
        self._started.clear()


def stream_target(use_llm: bool) -> StreamTarget | None:
    """Where an agent with a model streams its text: this run, unless it was recorded before the agents streamed."""
    return this_run() if use_llm and patched(AGENTS_STREAM_TEXT) else None
