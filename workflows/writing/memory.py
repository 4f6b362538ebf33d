"""The conversation's memory on the workflow side (issue 28): a run in a session (`sessionId`) that reaches `done`
with an answer records its turn (the writer's words, the intent, the answer, the revision's target) through the
`writing.record_turn` activity, before `done`, so the writer's next request already reads it. The workflow never
touches the store itself. Runs recorded before this existed replay without the activity (`workflow.patched`)."""

from temporalio import workflow

from workflows import policies
from workflows.common.patches import patched
from workflows.common.run import NodeFailed, NodeStep
from workflows.writing.graph import END
from workflows.writing.request import WritingRequest

with workflow.unsafe.imports_passed_through():
    from models.writing import nodes
    from models.writing.run_messages import AgentMessages
    from models.writing.sessions import TurnIn

PATCH = "writing-session-turns"


class SessionMemory:
    """Records the run's turn when one of its nodes leads to the end."""

    def __init__(self, request: WritingRequest) -> None:
        self._request = request

    def remembering(self, step: NodeStep) -> NodeStep:
        """`step`, and the turn recorded when it leads to `done`."""

        async def remembered() -> str:
            following = await step()
            if following == END:
                await self._record()
            return following

        return remembered

    async def _record(self) -> None:
        request = self._request
        state, session = request.state, request.input.session_id
        if session is None or state.result is None or not patched(PATCH):
            return
        result = state.result
        turn = TurnIn(
            owner=request.input.owner,
            project_id=request.input.project_id,
            session_id=session,
            run_id=workflow.info().workflow_id,
            text=request.input.text,
            intent=state.intent.intent if state.intent else None,
            answer=result.text,
            target_chapter_id=result.target_chapter_id,
            target_chapter_position=result.target_chapter_position,
        )
        try:
            await request.run.call(nodes.RECORD_TURN, turn, policies.WRITING_POSTPROCESS, summary="record the turn")
        except NodeFailed as err:
            message = AgentMessages.TURN_NOT_KEPT.say(request.english(), cause=err.cause)
            request.thought(request.run.node, message, level="warning")
