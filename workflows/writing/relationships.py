"""RelationshipGraphWorkflow: the relationship-graph update a character design schedules (seed 002 Req 4.3–4.4):
its characters and relationships become proposals the writer accepts or rejects (issue 28 item 2), each
relationship change with its before and after in the run's `relationship_update`.

The design's request starts it as an abandoned child: the update outlives the request, survives worker restarts
like any run, and streams its own `relationship_update` and `done`, which a client follows at
`GET /v1/runs/{id}/events`. It also signals its `relationship_update` to the request (Req 4.4), which waits for it
a bounded while (`workflows.writing.postprocessing.RELATIONSHIP_WAIT`) and shows it in its own stream; a request
that stopped waiting and ended is not an error here.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import FailureError

from workflows import policies
from workflows.common.event_log import EventLog
from workflows.common.graph import START, Edge, Graph
from workflows.common.patches import decide_at_start, patched
from workflows.common.run import GraphRun

with workflow.unsafe.imports_passed_through():
    from models.events import RunStatus
    from models.writing import nodes
    from models.writing.errors import WritingErrorCode
    from models.writing.events import RELATIONSHIP_SIGNAL, WRITING_EVENTS, RelationshipUpdate
    from models.writing.nodes import RelationshipUpdateResult
    from models.writing.run_messages import RelationshipMessages, listed
    from models.writing.runs import RelationshipRunInput, RelationshipRunState, WritingMetadata

UPDATE = "update_relationships"
FAILED = "update_failed"
END = "done"

REPORTS_TO_REQUEST = "writing-relationships-report-to-request"
"""`workflow.patched` id: the update signals its `relationship_update` to the request that scheduled it."""

RELATIONSHIP_GRAPH = Graph(
    name="RelationshipGraphWorkflow",
    nodes={START: "角色设计完成", UPDATE: "关系图更新", FAILED: "更新失败", END: "done"},
    edges=(
        Edge(START, UPDATE, "后台开始"),
        Edge(UPDATE, END, "已合并到关系图"),
        Edge(UPDATE, FAILED, "写入失败"),
        Edge(FAILED, END, "推送失败事件"),
    ),
    end=END,
)


@workflow.defn
class RelationshipGraphWorkflow:
    """Merges a character design's relationships into the project's relationship graph."""

    @workflow.init
    def __init__(self, input: RelationshipRunInput) -> None:
        self._input = input
        self._state = RelationshipRunState(
            requested_by=input.requested_by,
            metadata=WritingMetadata(current_node=START, start_time=workflow.now()),
        )
        self._events = EventLog(WRITING_EVENTS)
        self._run = GraphRun(RELATIONSHIP_GRAPH, self._events, self._state, error_node=FAILED)

    @workflow.query(name="state")
    def state(self) -> RelationshipRunState:
        return self._state

    @workflow.run
    async def run(self, input: RelationshipRunInput) -> RunStatus:
        decide_at_start()  # before anything else: workflows/common/patches.py
        deadline = timedelta(minutes=5)
        return await self._run.execute({UPDATE: self._update, FAILED: self._failed}, first=UPDATE, deadline=deadline)

    async def _update(self) -> str:
        result = await self._run.call_or_fail(
            nodes.UPDATE_RELATIONSHIPS,
            self._input.request,
            policies.WRITING_POSTPROCESS,
            summary=f"merge {len(self._input.request.relationships)} relationships",
            code=WritingErrorCode.RELATIONSHIP_UPDATE_FAILED,
        )
        self._state.result = result
        run_id = workflow.info().workflow_id
        update = RelationshipUpdate(
            status="proposed"
            if result.changes or result.characters or result.unknown or result.already_there
            else "updated",
            run_id=run_id,
            added=result.added,
            changed=result.changed,
            changes=result.changes,
            unknown=result.unknown,
            already_there=result.already_there,
            total=result.total,
            message=_message(result, self._input.english),
        )
        self._events.emit("relationship_update", UPDATE, update)
        await self._report(update)
        return END

    async def _failed(self) -> str:
        """`relationship_update` says the update failed, then the `error` event (`GraphRun.report_error`)."""
        unknown = RelationshipMessages.UNKNOWN_ERROR.say(self._input.english)
        message = self._state.error.message if self._state.error else unknown
        update = RelationshipUpdate(status="failed", run_id=workflow.info().workflow_id, message=message)
        self._events.emit("relationship_update", FAILED, update)
        await self._report(update)
        self._run.report_error(FAILED)
        return END

    async def _report(self, update: RelationshipUpdate) -> None:
        """Req 4.4: the request that scheduled the update gets it; a request that has ended no longer waits."""
        if not patched(REPORTS_TO_REQUEST):
            return
        request = workflow.get_external_workflow_handle(self._input.requested_by)
        try:
            await request.signal(RELATIONSHIP_SIGNAL, update)
        except FailureError as err:
            workflow.logger.info("the request %s no longer waits: %s", self._input.requested_by, err)


def _message(result: RelationshipUpdateResult, english: bool) -> str:
    """What the update proposed, for the writer; a run recorded before proposals existed said what it wrote."""
    counts = {"added": len(result.added), "changed": len(result.changed)}
    if not (result.changes or result.characters or result.unknown or result.already_there):
        return RelationshipMessages.UPDATED.say(english, total=result.total, **counts)
    message = RelationshipMessages.PROPOSED.say(english, characters=len(result.characters), **counts)
    if result.unknown:
        pairs = [
            RelationshipMessages.PAIR.say(english, source=edge.source, target=edge.target) for edge in result.unknown
        ]
        message += RelationshipMessages.UNKNOWN.say(english, pairs=listed(pairs, english))
    if result.already_there:
        labels = listed([already.label for already in result.already_there], english)
        message += RelationshipMessages.ALREADY_THERE.say(english, labels=labels)
    return message
