"""Phase 3, the PostProcessing node: what the plan's 后处理 column asks for once the agent has answered.

CONSISTENCY checks the draft before `done` (Req 3.4–3.5): when the model's review failed for good the rules check
alone (their findings kept, the result `degraded`, an `error` event says so); RELATIONSHIPS starts
`RelationshipGraphWorkflow` as an abandoned child that outlives the request (Req 4.3); KNOWLEDGE proposes the
setting as a world note, which the writer accepts or rejects (issue 28 item 2). Each step ends with its
`check_result` (Req 9.5). A check or a proposal that fails for good is reported (`WritingRequest.degraded`) and
the run still ends with its answer.

The relationship update signals its result back (`receive_relationships`); the request waits for it up to
`RELATIONSHIP_WAIT` and shows it as its own `relationship_update` (Req 4.4), or says it was scheduled.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.workflow import ParentClosePolicy

from workflows import policies
from workflows.common.patches import patched
from workflows.common.run import NodeFailed
from workflows.writing.graph import POSTPROCESSING, route_after_postprocessing
from workflows.writing.relationships import RelationshipGraphWorkflow
from workflows.writing.request import WritingRequest

with workflow.unsafe.imports_passed_through():
    from models.search_attributes import OWNER, SESSION_ID
    from models.writing import nodes
    from models.writing.agents import AgentResult
    from models.writing.checks import CheckResult, ConsistencyCheckRequest
    from models.writing.errors import WritingErrorCode
    from models.writing.events import KnowledgeUpdate, ProcessingCheck, RelationshipUpdate
    from models.writing.nodes import KnowledgeUpdateRequest, RelationshipUpdateRequest
    from models.writing.plans import PostProcessing
    from models.writing.run_messages import PostprocessingMessages as Say
    from models.writing.runs import RelationshipRunInput

RULES_AFTER_FAILED_REVIEW = "writing-check-rules-after-failed-review"
"""`workflow.patched` id: a check whose model review failed for good runs again with the rules alone."""
RELATIONSHIPS_IN_REQUEST_STREAM = "writing-relationship-update-in-request-stream"
"""`workflow.patched` id: the request waits (bounded) for the relationship update's result and shows it."""

RELATIONSHIP_WAIT = timedelta(seconds=30)
"""How long a character design's request waits for its relationship update before `done` (workflow clock). The
update is one activity with a 10 s budget (`policies.WRITING_POSTPROCESS`), so its result, failed or not, arrives
well within 30 s whenever a worker serves it; past that the workers are busy or down, and the request ends with
`scheduled` (the run's own stream keeps the result) rather than keep the writer's answer from its `done`."""


class Postprocessing:
    """The postprocessing node."""

    def __init__(self, request: WritingRequest) -> None:
        self._request = request
        self._relationships: RelationshipUpdate | None = None

    def receive_relationships(self, update: RelationshipUpdate) -> None:
        """The relationship update's result, signalled by the run this request starts (any other is ignored; the
        signal may come in the same workflow task as the child's start)."""
        if update.run_id == _relationship_run_id():
            self._relationships = update

    async def postprocessing(self) -> str:
        plan = self._request.plan()
        post = plan.post
        if post is PostProcessing.CONSISTENCY:
            await self._check_consistency()
        elif post is PostProcessing.RELATIONSHIPS:
            self._checked(await self._schedule_relationship_update())
        elif post is PostProcessing.KNOWLEDGE:
            self._checked(await self._update_knowledge())
        return route_after_postprocessing(plan)

    def _checked(self, result: CheckResult) -> None:
        """Req 9.5: every post-processing step ends with its `check_result`."""
        self._request.events.emit("check_result", POSTPROCESSING, result)

    def _answer(self) -> AgentResult:
        result = self._request.state.result
        assert result is not None, "post-processing runs after an agent answered"
        return result

    def _starting(self, check: str, message: str) -> None:
        self._request.events.emit("processing_check", POSTPROCESSING, ProcessingCheck(checks=[check], message=message))

    def _english(self) -> bool:
        return self._request.english()

    async def _check_consistency(self) -> None:
        """Req 3.4–3.5: the draft is checked before `done`; a check that cannot run says so and the run ends."""
        request = self._request
        result = self._answer()
        self._starting("consistency", Say.CONSISTENCY_STARTED.say(self._english()))
        check_request = ConsistencyCheckRequest(
            owner=request.input.owner,
            project_id=request.input.project_id,
            text=result.text,
            context=request.state.preprocessing_context,
            use_llm=request.input.llm_configured,
            english=self._english(),
        )
        try:
            check = await request.run.call(
                nodes.CONSISTENCY_CHECK, check_request, policies.WRITING_CHECK, summary="check the draft's consistency"
            )
            if check.degraded:
                unreadable = Say.REVIEW_UNREADABLE.say(self._english())
                request.reported(POSTPROCESSING, WritingErrorCode.CHECK_FAILED, unreadable, check.message)
        except NodeFailed as err:
            check = await self._check_after_failure(check_request, err)
        request.state.check_result = check
        self._checked(check)

    async def _check_after_failure(self, check_request: ConsistencyCheckRequest, err: NodeFailed) -> CheckResult:
        """The rules alone when the model's review was what failed; nothing checked when they fail too."""
        request = self._request
        if check_request.use_llm and patched(RULES_AFTER_FAILED_REVIEW):
            request.degraded(POSTPROCESSING, err, WritingErrorCode.CHECK_FAILED, Say.REVIEW_FAILED.say(self._english()))
            rules = check_request.model_copy(update={"use_llm": False})
            try:
                found = await request.run.call(
                    nodes.CONSISTENCY_CHECK,
                    rules,
                    policies.WRITING_CHECK,
                    summary="check the draft's consistency (rules)",
                )
                return found.model_copy(update={"degraded": True})
            except NodeFailed as again:
                err = again
        english = self._english()
        request.degraded(POSTPROCESSING, err, WritingErrorCode.CHECK_FAILED, Say.CHECK_FAILED.say(english))
        return CheckResult(passed=True, degraded=True, message=Say.CHECK_NOT_DONE.say(english))

    async def _schedule_relationship_update(self) -> CheckResult:
        """Req 4.3–4.4: the relationship graph is updated by a run of its own, which outlives this request; the
        request waits for its result up to `RELATIONSHIP_WAIT` (runs recorded before the patch did not)."""
        request = self._request
        result = self._answer()
        waits = patched(RELATIONSHIPS_IN_REQUEST_STREAM)
        wait = int(RELATIONSHIP_WAIT.total_seconds())
        english = self._english()
        starting = (
            Say.RELATIONSHIPS_WAITING.say(english, wait=wait) if waits else Say.RELATIONSHIPS_BACKGROUND.say(english)
        )
        self._starting("relationships", starting)
        child_id = _relationship_run_id()
        attributes = [SearchAttributePair(OWNER, request.input.owner)]
        if request.input.session_id is not None:
            attributes.append(SearchAttributePair(SESSION_ID, request.input.session_id))
        update_request = RelationshipUpdateRequest(
            owner=request.input.owner,
            project_id=request.input.project_id,
            characters=result.characters,
            relationships=result.relationships,
            text=result.text,
        )
        await workflow.start_child_workflow(
            RelationshipGraphWorkflow.run,
            RelationshipRunInput(request=update_request, requested_by=workflow.info().workflow_id, english=english),
            id=child_id,
            parent_close_policy=ParentClosePolicy.ABANDON,
            search_attributes=TypedSearchAttributes(attributes),
            static_summary=f"relationship graph update for {request.input.project_id}",
        )
        request.state.relationship_run_id = child_id
        done = await self._relationship_result() if waits else None
        if done is not None:
            return self._relationships_done(done)
        update = RelationshipUpdate(
            status="scheduled",
            run_id=child_id,
            added=result.relationships,
            message=Say.RELATIONSHIPS_SCHEDULED.say(english, run_id=child_id),
        )
        request.events.emit("relationship_update", POSTPROCESSING, update)
        return CheckResult(check="relationships", passed=True, message=update.message)

    async def _relationship_result(self) -> RelationshipUpdate | None:
        """The update's result, or None when it did not arrive within `RELATIONSHIP_WAIT`."""
        try:
            await workflow.wait_condition(
                lambda: self._relationships is not None,
                timeout=RELATIONSHIP_WAIT,
                timeout_summary="wait for the relationship update",
            )
        except TimeoutError:
            return None
        return self._relationships

    def _relationships_done(self, update: RelationshipUpdate) -> CheckResult:
        """Req 4.4: what changed (or that the update failed) in this request's stream; the design stays the answer."""
        request = self._request
        request.events.emit("relationship_update", POSTPROCESSING, update)
        if update.status != "failed":
            return CheckResult(check="relationships", passed=True, message=update.message)
        english = self._english()
        failed = Say.RELATIONSHIPS_FAILED_BECAUSE.say(english, cause=update.message)
        code = WritingErrorCode.RELATIONSHIP_UPDATE_FAILED
        request.reported(POSTPROCESSING, code, Say.RELATIONSHIPS_FAILED.say(english), failed)
        return CheckResult(check="relationships", passed=False, degraded=True, message=failed)

    async def _update_knowledge(self) -> CheckResult:
        """The setting becomes a proposed world note (the project and its index get it once the writer accepts it)."""
        request = self._request
        result = self._answer()
        english = self._english()
        self._starting("knowledge", Say.KNOWLEDGE_STARTED.say(english))
        note = KnowledgeUpdateRequest(
            owner=request.input.owner,
            project_id=request.input.project_id,
            title=Say.KNOWLEDGE_TITLE.say(english, request=request.input.text[:40]),
            content=result.text,
        )
        try:
            saved = await request.run.call(
                nodes.UPDATE_KNOWLEDGE, note, policies.WRITING_POSTPROCESS, summary="save the setting"
            )
        except NodeFailed as err:
            failed = Say.KNOWLEDGE_FAILED.say(english)
            request.degraded(POSTPROCESSING, err, WritingErrorCode.KNOWLEDGE_UPDATE_FAILED, failed)
            return CheckResult(check="knowledge", passed=False, degraded=True, message=failed)
        update = KnowledgeUpdate(
            note_id=saved.note_id,
            proposal_id=saved.proposal_id,
            already_there=saved.already_there,
            title=saved.title,
            chars=saved.chars,
        )
        request.events.emit("knowledge_update", POSTPROCESSING, update)
        if saved.already_there is not None:
            existing = saved.already_there.existing_id
            where = (Say.WHERE_PROPOSAL if existing.startswith("prop_") else Say.WHERE_WORLD_NOTE).say(english)
            return CheckResult(
                check="knowledge",
                passed=True,
                message=Say.KNOWLEDGE_ALREADY_THERE.say(english, where=where, id=existing),
            )
        return CheckResult(check="knowledge", passed=True, message=Say.KNOWLEDGE_FILED.say(english, title=saved.title))


def _relationship_run_id() -> str:
    """The id of the relationship update a character design's request starts."""
    return f"{workflow.info().workflow_id}-relationships"
