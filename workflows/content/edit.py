"""ContentEditWorkflow: one edit of a finished post as its own short run (issue 29 item 3), on the same post (the
base's `creativeId`). Its state starts as the base run's finished state; one node changes it, and the run ends with
the whole post's new version (`post_ready`) and `done`.

- `rewrite_section`: the user's own text is applied as it is; an instruction goes to `content.edit_rewrite` (the
  writer's model when one is configured, else the offline rewrite, which says when it could not apply it; a model
  that failed for good degrades to it, and the run says so). The body keeps the section's new text.
- `restyle`: the writer agent (`content.writer`, its model or its offline version) writes the whole text again in
  the new tone and/or length, from the post's brief (its tone replaced), outline and evidence; images stay.
- `regenerate_image`: the image's plan is drawn again through the image agent's own calls
  (`workflows.content.images`, local renderer or hosted model) with a new seed and the instruction added to its
  prompt; the new image replaces the old one in its slot (a `blob:` reference: no image bytes in history).

Then the review agent (`content.review`, its model or its offline version) reviews the new version, so the post's
`approved`, scores and findings are the new version's, never the base's: approved ends `approved`, else
`edit_not_approved` with the review's summary (patch `content-edit-reviewed`; edits started before it kept the
base's review).

The gateway resolved which block or plan the numbers name, and which version this is."""

from collections.abc import Callable

from temporalio import workflow

from workflows import policies
from workflows.common.event_log import EventLog
from workflows.common.graph import START
from workflows.common.patches import decide_at_start, patched
from workflows.common.run import GraphRun, NodeFailed, RunFailed
from workflows.content.context import state_view
from workflows.content.edit_graph import (
    EDIT_GRAPH,
    ERROR_HANDLER,
    FINALIZE,
    REGENERATE_IMAGE,
    RESTYLE,
    REVIEW,
    REWRITE_SECTION,
)
from workflows.content.images import ContentImages

with workflow.unsafe.imports_passed_through():
    from llm import ToolCall
    from models.content import nodes
    from models.content.agents import AgentName, AgentOutcome, AgentRequest, ContentView
    from models.content.artifacts import GeneratedContent, is_quality_approved
    from models.content.edits import (
        EDIT_EVENTS,
        ContentEditInput,
        ContentEditState,
        SectionRewrite,
        SectionRewriteRequest,
    )
    from models.content.events import ContentThought, ImageGenerated, ReviewResult
    from models.content.post import BODY, assemble_post
    from models.content.runs import ContentResult, ContentRunInput
    from models.content.state import ContentMetadata
    from models.content.turns import GENERATE_IMAGE, PROMPT_CHARS, ToolCallRequest
    from models.errors import ErrorCode, ErrorInfo
    from models.writing.language import written_in_english

REVIEWED = "content-edit-reviewed"
"""`workflow.patched` id: the new version is reviewed before it is published."""
SEED_STEP = 7919
"""How far a redrawn image's seed moves per version (a prime: versions never land on the same seed)."""
SEED_RANGE = 2**31


@workflow.defn
class ContentEditWorkflow:
    """One edit of a post: its state (the post's new version and the edit) is queryable as `state`."""

    @workflow.init
    def __init__(self, input: ContentEditInput) -> None:
        self._input = input
        base = input.base
        self.state = ContentEditState.model_validate(
            base.model_dump()
            | {
                "thread_id": workflow.info().workflow_id,
                "metadata": ContentMetadata(
                    current_node=START,
                    start_time=workflow.now(),
                    evidence_notes_ref=base.metadata.evidence_notes_ref,
                    started_from=base.metadata.started_from,
                ),
                "error": None,
                "edit": input.record,
            }
        )
        self.state.metadata.end_reason = base.metadata.end_reason
        self.state.metadata.end_message = base.metadata.end_message
        self.english = written_in_english(input.topic)
        """Whether the post is in English: what the run says is said in its language."""
        self.events = EventLog(EDIT_EVENTS)
        self.run_graph = GraphRun(EDIT_GRAPH, self.events, self.state, error_node=ERROR_HANDLER)
        images_input = ContentRunInput(
            owner=input.owner,
            topic=input.topic,
            image_gen_provider=base.image_gen_provider,
            hosted_models=input.hosted_models,
            direct_models=input.direct_models,
            allow_fallback=input.allow_fallback,
        )
        self.images = ContentImages(
            images_input,
            self.run_graph,
            self.run_graph.call,
            say=lambda message, level: self._thought(REGENERATE_IMAGE, message, level),
            report=lambda error: self.events.emit("error", REGENERATE_IMAGE, error),
        )

    @workflow.query(name="state")
    def query_state(self) -> ContentEditState:
        return self.state

    @workflow.run
    async def run(self, input: ContentEditInput) -> ContentResult:
        decide_at_start()  # before anything else: workflows/common/patches.py
        steps = {
            REWRITE_SECTION: self._rewrite,
            REGENERATE_IMAGE: self._regenerate,
            RESTYLE: self._restyle,
            REVIEW: self._review,
            FINALIZE: self._finalize,
            ERROR_HANDLER: self._error_handler,
        }
        status = await self.run_graph.execute(
            steps, first=input.record.edit.action, deadline=policies.CONTENT_EDIT_DEADLINE
        )
        post = assemble_post(self.state) if status == "completed" else None
        return ContentResult(status=status, post=post)

    async def _rewrite(self) -> str:
        edit = self.state.edit.edit
        block_id, number = edit.block_id or BODY, edit.section
        content = self.state.generated_content
        assert content is not None  # the gateway edits only a post with text
        old = section_text(content, block_id)
        if edit.text is not None:
            note = "replaced by your own text" if self.english else "换成了你给的文字"
            result = SectionRewrite(text=edit.text, applied=True, note=note, offline=False)
        else:
            result = await self._rewritten(old, edit.instruction or "")
        replace_text(content, block_id, old, result.text)
        self.state.edit.applied = result.applied
        where = f"Section {number}: " if self.english else f"第 {number} 段："
        self.state.edit.change = f"{where}{result.note}"[:300]
        self._thought(REWRITE_SECTION, self.state.edit.change, "info" if result.applied else "warning")
        return self._after_edit()

    async def _rewritten(self, old: str, instruction: str) -> SectionRewrite:
        content = self.state.generated_content
        block = next((b for b in content.blocks if b.id == self.state.edit.edit.block_id), None) if content else None
        request = SectionRewriteRequest(
            topic=self._input.topic,
            platform=self._input.platform,
            heading=block.heading if block else "",
            text=old,
            instruction=instruction,
            use_llm=True,
        )

        result: SectionRewrite = await self.run_graph.call_with_degrade(
            nodes.EDIT_REWRITE,
            request,
            policies.EDIT_REWRITE,
            summary="edit: rewrite a section (LLM)",
            offline=request.model_copy(update={"use_llm": False, "model_failed": self._input.llm_configured}),
            offline_options=policies.EDIT_REWRITE_OFFLINE,
            offline_summary="edit: rewrite a section (offline)",
            degraded=self._degraded(REWRITE_SECTION),
            code=ErrorCode.AGENT_FAILED,
            use_llm=self._input.llm_configured,
        )
        return result

    async def _restyle(self) -> str:
        edit, state = self.state.edit.edit, self.state
        if state.creative_brief is not None and edit.tone:
            state.creative_brief = state.creative_brief.model_copy(update={"tone": edit.tone[:100]})
        asked = [f"语气「{edit.tone}」" if edit.tone else "", f"篇幅 {edit.length_words}" if edit.length_words else ""]
        guidance = f"用户要求按新的风格重写全文：{'，'.join(filter(None, asked))}。保留事实、小标题的顺序和配图位置。"
        if self.english:
            asked = [
                f'tone "{edit.tone}"' if edit.tone else "",
                f"length {edit.length_words}" if edit.length_words else "",
            ]
        wanted = ("; " if self.english else "，").join(filter(None, asked))
        request = AgentRequest(
            agent=AgentName.WRITER,
            view=self._view().model_copy(update={"tone": edit.tone or self._input.tone, "length": edit.length}),
            guidance=guidance,
            may_ask=False,
            use_llm=True,
            run_id=workflow.info().workflow_id,
        )
        outcome = await self._agent(request, RESTYLE, "restyle the text")
        content = outcome.patch.generated_content
        if content is None or not content.body.strip():
            raise RunFailed(ErrorInfo(code=ErrorCode.AGENT_FAILED, message="writer_agent 没有写出正文", node=RESTYLE))
        state.generated_content = content
        self.state.edit.applied = True
        if self.english:
            offline = (
                "offline writer, the model failed"
                if self._input.llm_configured
                else "offline writer, no model configured"
            )
            how = offline if outcome.offline else "the writer's model"
            self.state.edit.change = f"Whole text rewritten ({how}): {wanted}; {len(content.body)} characters"
        else:
            offline = "离线写作，大模型调用失败" if self._input.llm_configured else "离线写作，未配置大模型"
            how = offline if outcome.offline else "写作模型"
            self.state.edit.change = f"全文已重写（{how}）：{wanted}；共 {len(content.body)} 字"
        self._thought(RESTYLE, self.state.edit.change, "info")
        return self._after_edit()

    def _after_edit(self) -> str:
        return REVIEW if patched(REVIEWED) else FINALIZE

    def _view(self) -> ContentView:
        """What an agent may read of the post's new version (not the base's review: the review is of the edit)."""
        view = state_view(self.state, topic=self._input.topic, platform=self._input.platform, tone=self._input.tone)
        return view.model_copy(update={"review_feedback": None, "quality_scores": None})

    async def _review(self) -> str:
        """The review agent on the new version: its verdict and scores replace the base's."""
        request = AgentRequest(
            agent=AgentName.REVIEW, view=self._view(), may_ask=False, use_llm=True, run_id=workflow.info().workflow_id
        )
        outcome = await self._agent(request, REVIEW, "review the new version")
        feedback, scores = outcome.patch.review_feedback, outcome.patch.quality_scores
        if feedback is None or scores is None:
            error = ErrorInfo(code=ErrorCode.AGENT_FAILED, message="review_agent 没有给出审核结果", node=REVIEW)
            raise RunFailed(error)
        state = self.state
        state.review_feedback, state.quality_scores = feedback, scores
        approved = feedback.approved and is_quality_approved(scores)
        result = ReviewResult(feedback=feedback, scores=scores, quality_approved=is_quality_approved(scores))
        self.events.emit("review_result", REVIEW, result)
        state.metadata.end_reason = "approved" if approved else "edit_not_approved"
        state.metadata.end_message = None if approved else feedback.summary[:1000]
        return FINALIZE

    async def _agent(self, request: AgentRequest, node: str, what: str) -> AgentOutcome:
        """`request.agent` on its model (when one is configured), else or after it failed for good, offline."""
        outcome: AgentOutcome = await self.run_graph.call_with_degrade(
            nodes.AGENTS[request.agent],
            request,
            policies.CONTENT_AGENT,
            summary=f"edit: {what} (LLM)",
            offline=request.model_copy(update={"use_llm": False}),
            offline_options=policies.CONTENT_AGENT_OFFLINE,
            offline_summary=f"edit: {what} (offline)",
            degraded=self._degraded(node),
            code=ErrorCode.AGENT_FAILED,
            use_llm=self._input.llm_configured,
        )
        return outcome

    def _degraded(self, node: str) -> Callable[[NodeFailed], None]:
        """What a model that failed for good at `node` emits before the offline version answers."""

        def degraded(err: NodeFailed) -> None:
            said = f"{node} 的大模型调用失败，改用离线版本：{err.cause}"
            error = ErrorInfo(code=ErrorCode.AGENT_DEGRADED, message=said[:500], node=node)
            self.events.emit("error", node, error)

        return degraded

    async def _regenerate(self) -> str:
        edit = self.state.edit.edit
        plan = next(plan for plan in self.state.image_plans if plan.plan_id == edit.plan_id)
        prompt = f"{plan.prompt}；{edit.instruction}" if edit.instruction else plan.prompt
        seed = (plan.seed + SEED_STEP * self.state.edit.version) % SEED_RANGE
        redrawn = plan.model_copy(update={"prompt": prompt[:PROMPT_CHARS], "seed": seed})
        call = ToolCall(id=f"edit-{plan.plan_id}", name=GENERATE_IMAGE, arguments={"plan_id": plan.plan_id})
        view = ContentView(topic=self._input.topic, platform=self._input.platform, image_plans=[redrawn])
        request = ToolCallRequest(
            loop="image", call=call, view=view, run_id=workflow.info().workflow_id, owner=self._input.owner
        )
        try:
            result = await self.images.generate(request, summary=f"edit: redraw image {edit.image}")
        except NodeFailed as err:
            raise RunFailed(err.error_info(REGENERATE_IMAGE, ErrorCode.EXECUTION_FAILED)) from err
        if result.is_error or result.image is None:
            error = ErrorInfo(code=ErrorCode.EXECUTION_FAILED, message=result.content[:500], node=REGENERATE_IMAGE)
            raise RunFailed(error)
        self.state.image_plans = [redrawn if p.plan_id == plan.plan_id else p for p in self.state.image_plans]
        self.state.generated_image_asset_ids[plan.plan_id] = result.image.image
        generated = ImageGenerated(plan_id=plan.plan_id, image_url=result.image.image)
        self.events.emit("image_generated", REGENERATE_IMAGE, generated)
        self.state.edit.applied = True
        if self.english:
            asked = f', as asked: "{edit.instruction[:40]}"' if edit.instruction else ""
            self.state.edit.change = f"Image {edit.image}: redrawn with a new seed{asked}"
        else:
            asked = f"，按「{edit.instruction[:40]}」" if edit.instruction else ""
            self.state.edit.change = f"第 {edit.image} 张图：换了新的构图种子重画{asked}"
        self._thought(REGENERATE_IMAGE, self.state.edit.change, "info")
        return self._after_edit()

    async def _finalize(self) -> str:
        self.events.emit("post_ready", FINALIZE, assemble_post(self.state))
        return EDIT_GRAPH.end

    async def _error_handler(self) -> str:
        for task_id in await self.images.cancel_waiting():
            self._thought(ERROR_HANDLER, f"已取消图片服务的任务 {task_id}", "info")
        self.run_graph.report_error(ERROR_HANDLER)
        return EDIT_GRAPH.end

    def _thought(self, node: str, message: str, level: str) -> None:
        thought = ContentThought.model_validate({"node": node, "message": message, "level": level})
        self.events.emit("thought_log", node, thought)


def section_text(content: GeneratedContent, block_id: str) -> str:
    """The text of the section an edit names (`BODY`: the whole body of a post without blocks)."""
    if block_id == BODY:
        return content.body
    return next(block.text for block in content.blocks if block.id == block_id)


def replace_text(content: GeneratedContent, block_id: str, old: str, new: str) -> None:
    """The section's new text in its block, and in the body (where the old text stood, else the body is the
    blocks again)."""
    if block_id == BODY:
        content.body = new
        return
    content.blocks = [b.model_copy(update={"text": new}) if b.id == block_id else b for b in content.blocks]
    if old and old in content.body:
        content.body = content.body.replace(old, new, 1)
    else:
        content.body = "\n\n".join(block.text for block in content.blocks)
