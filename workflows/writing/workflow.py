"""WritingWorkflow: one request to the InkFlow writing assistant as a durable run (seed 002).

The router names the intent; the intent selects a workflow of seed 002's tables (`models.writing.plans`); the
run then goes through that workflow's phases: parallel preprocessing (one activity per task, started together),
the agent (or a chain of agents, pausing for the writer's choice where the chain asks for one), and
post-processing. `workflows.common.run.GraphRun` walks the nodes (deadline, cancellation, recorded transitions,
the terminal `done`), `workflows.common.human_input.HumanInput` asks the writer, and every activity's options come
from `workflows.policies`.

This module holds the workflow's surface (its input, the `state` query, the `content_delta` and
`relationship_update` signals, `run` and its result) and the ErrorHandler node; the other nodes live in the phase
modules, each given the request's shared `WritingRequest`:

| node | module |
|---|---|
| router | `workflows.writing.router` |
| preprocessing | `workflows.writing.preprocessing` |
| agent | `workflows.writing.agents` (the text it streams: `workflows.writing.streaming`) |
| chain_step, user_selection, chain_summary | `workflows.writing.chains` |
| postprocessing | `workflows.writing.postprocessing` |

A run in a conversation records its turn before `done` (`workflows.writing.memory`).
"""

from datetime import timedelta

from temporalio import workflow

from workflows.common.agent_stream import AgentStream
from workflows.common.event_log import EventLog
from workflows.common.graph import START
from workflows.common.human_input import HumanInput
from workflows.common.patches import decide_at_start
from workflows.common.run import GraphRun
from workflows.writing.agents import Agents
from workflows.writing.chains import Chains
from workflows.writing.graph import (
    AGENT,
    CHAIN_STEP,
    CHAIN_SUMMARY,
    ERROR_HANDLER,
    GRAPH,
    POSTPROCESSING,
    PREPROCESSING,
    ROUTER,
    USER_SELECTION,
)
from workflows.writing.memory import SessionMemory
from workflows.writing.postprocessing import Postprocessing
from workflows.writing.preprocessing import Preprocessing
from workflows.writing.request import WritingRequest
from workflows.writing.router import Router

with workflow.unsafe.imports_passed_through():
    from models.events import RunStatus
    from models.streaming import CONTENT_SIGNAL, ContentDelta
    from models.writing.events import RELATIONSHIP_SIGNAL, WRITING_EVENTS, RelationshipUpdate
    from models.writing.runs import WritingMetadata, WritingResult, WritingRunInput, WritingState


@workflow.defn
class WritingWorkflow:
    """One writing request: its state is queryable as `state`, its events stream until `done`."""

    @workflow.init
    def __init__(self, input: WritingRunInput) -> None:
        state = WritingState(
            project_id=input.project_id,
            text=input.text,
            metadata=WritingMetadata(current_node=START, start_time=workflow.now()),
        )
        events = EventLog(WRITING_EVENTS)
        run = GraphRun(GRAPH, events, state, error_node=ERROR_HANDLER)
        human = HumanInput(events)
        self._request = WritingRequest(input, state, events, run)
        self._stream = AgentStream(events, run)
        self._router = Router(self._request)
        self._preprocessing = Preprocessing(self._request)
        self._agents = Agents(self._request, self._stream)
        self._chains = Chains(self._request, self._agents, human)
        self._postprocessing = Postprocessing(self._request)
        self._memory = SessionMemory(self._request)

    @workflow.query(name="state")
    def state(self) -> WritingState:
        return self._request.state

    @workflow.signal(name=CONTENT_SIGNAL)
    def content_delta(self, delta: ContentDelta) -> None:
        """A batch of the agent's text: shown as `content`, once, in order; a new attempt voids the last one's."""
        self._stream.receive(delta)

    @workflow.signal(name=RELATIONSHIP_SIGNAL)
    def relationship_update(self, update: RelationshipUpdate) -> None:
        """Req 4.4: the result of the relationship update this request started, which post-processing waits for."""
        self._postprocessing.receive_relationships(update)

    @workflow.run
    async def run(self, input: WritingRunInput) -> WritingResult:
        decide_at_start()  # before anything else: workflows/common/patches.py
        first = ROUTER
        if input.chain_context is not None:  # checked once, at the gateway (422 CHAIN_CONTEXT_INVALID)
            first = PREPROCESSING
            self._chains.continue_chain(input.chain_context)
        remembering = self._memory.remembering
        status = await self._request.run.execute(
            {
                ROUTER: self._router.router,
                PREPROCESSING: self._preprocessing.preprocessing,
                AGENT: remembering(self._agents.agent),
                CHAIN_STEP: self._chains.chain_step,
                USER_SELECTION: self._chains.user_selection,
                POSTPROCESSING: remembering(self._postprocessing.postprocessing),
                CHAIN_SUMMARY: remembering(self._chains.chain_summary),
                ERROR_HANDLER: self._error_handler,
            },
            first=first,
            deadline=timedelta(seconds=input.deadline_seconds + input.input_timeout_seconds),
        )
        return self._result(status)

    async def _error_handler(self) -> str:
        """The `error` event, and where a chain that had begun got to (so a later request can continue it)."""
        self._request.run.report_error(ERROR_HANDLER)
        chain = self._request.state.chain
        if chain is not None and chain.steps:
            self._chains.summarise(completed=False)
        return GRAPH.end

    def _result(self, status: RunStatus) -> WritingResult:
        state = self._request.state
        return WritingResult(
            status=status,
            workflow=state.workflow,
            text=state.result.text if state.result else (state.error.message if state.error else ""),
            chain_context=state.chain,
        )
