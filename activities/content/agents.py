"""The content agents without tools, one activity each (`supervisor.brief_compiler`, `supervisor.writer`, ...).

With an LLM each asks for one JSON answer in its own schema and writes only its own fields, and streams its
answer's readable values to the run while the model writes them when the request says where
(`activities.content.answer_text`); the stored fields are the parsed answer. Without one (or once the workflow
asks again with `use_llm` off) the deterministic offline agent answers (labelled offline). The
reference analysis always measures the images' pixels (no LLM): palette, brightness, contrast, composition.
"""

import asyncio
from typing import TypeVar

from pydantic import BaseModel, Field, field_validator, model_validator

from activities.common.answer_text import shown_answer
from activities.common.failures import permanent
from activities.common.llm_calls import JsonQuestion, json_answer
from activities.content.answer_text import LAYOUTS
from activities.content.offline.brief import compile_brief
from activities.content.offline.image_planning import plan_images
from activities.content.offline.layout import plan_layout
from activities.content.offline.review import review_post
from activities.content.offline.writer import write_post
from activities.content.prompts import AGENT_PROMPTS, agent_input
from imaging.measurements import describe, measure_image
from llm import LLMClient, Message
from models.blobs import key_of
from models.content import nodes
from models.content.agents import AgentName, AgentOutcome, AgentRequest, Clarification, ContentView, StatePatch
from models.content.artifacts import (
    CreativeBrief,
    GeneratedContent,
    ImagePlan,
    LayoutSpec,
    QualityScores,
    ReferenceAnalysis,
    ReviewFeedback,
)
from models.errors import ErrorCode
from stores.blob_store import BlobNotFoundError, BlobStore
from stores.evidence import load_items

AnswerT = TypeVar("AnswerT", bound=BaseModel)
LLM_TEMPERATURE = 0.5


class QuestionOption(BaseModel):
    """One answer the user may pick."""

    id: str = Field(min_length=1, max_length=64)
    label: str = Field(min_length=1, max_length=100)


class Question(BaseModel):
    """A clarification as the brief compiler's LLM asks it."""

    question: str = Field(min_length=1, max_length=300)
    options: list[QuestionOption] = Field(default_factory=list, max_length=8)


class BriefAnswer(BaseModel):
    """The brief compiler's JSON: the brief, or a question for the user first (one of them is required: an answer
    with neither fails validation and goes back to the model)."""

    brief: CreativeBrief | None = None
    clarification: Question | None = None

    @model_validator(mode="after")
    def _brief_or_question(self) -> "BriefAnswer":
        if self.brief is None and self.clarification is None:
            raise ValueError("give the brief (or, only when the platform is unclear, a clarification question)")
        return self


class ImagePlansAnswer(BaseModel):
    """The image planner's JSON: plans with distinct ids (each id gets one image; a repeated id would leave a plan
    that can never be drawn)."""

    plans: list[ImagePlan] = Field(min_length=1, max_length=9)

    @field_validator("plans")
    @classmethod
    def _distinct_ids(cls, plans: list[ImagePlan]) -> list[ImagePlan]:
        ids = [plan.plan_id for plan in plans]
        repeated = sorted({plan_id for plan_id in ids if ids.count(plan_id) > 1})
        if repeated:
            raise ValueError(f"every plan needs its own plan_id (p1, p2, …); repeated: {', '.join(repeated)}")
        return plans


class ReviewAnswer(BaseModel):
    """The review's JSON: the verdict and the five scores."""

    feedback: ReviewFeedback
    scores: QualityScores


class ContentAgents:
    """Every content agent without tools, over the blob store and the LLM (None: offline only)."""

    def __init__(self, blobs: BlobStore, llm: LLMClient | None = None) -> None:
        self._blobs = blobs
        self._llm = llm

    @nodes.AGENTS[AgentName.BRIEF_COMPILER].defn
    async def brief_compiler(self, request: AgentRequest) -> AgentOutcome:
        if self._llm is None or not request.use_llm:
            outcome = await asyncio.to_thread(compile_brief, request)
            brief = outcome.patch.creative_brief
            if brief is None:
                return outcome
            patch = outcome.patch.model_copy(update={"creative_brief": _users_choices(brief, request.view)})
            return outcome.model_copy(update={"patch": patch})
        answer = await self._ask(self._llm, request, BriefAnswer)
        if answer.brief is not None:
            brief = _users_choices(answer.brief, request.view)
            return _outcome(StatePatch(creative_brief=brief), f"brief：{brief.topic}")
        if answer.clarification is not None and request.may_ask:
            options = [(option.id, option.label) for option in answer.clarification.options]
            question = Clarification(key="brief.clarify", question=answer.clarification.question, options=options)
            return AgentOutcome(summary=f"需要用户澄清：{question.question}", clarification=question, offline=False)
        raise permanent(ErrorCode.AGENT_FAILED, "brief 编译的回答既没有 brief 也没有可问的问题")

    @nodes.AGENTS[AgentName.REFERENCE_INTELLIGENCE].defn
    async def reference_intelligence(self, request: AgentRequest) -> AgentOutcome:
        analyses: list[ReferenceAnalysis] = []
        skipped: list[str] = []
        for ref in request.view.reference_images:
            key = key_of(ref)
            try:
                data = await self._blobs.aget(key) if key else b""
                measured = await asyncio.to_thread(measure_image, data)
            except (BlobNotFoundError, ValueError):
                skipped.append(ref)
                continue
            analyses.append(
                ReferenceAnalysis(
                    image=ref,
                    width=measured.width,
                    height=measured.height,
                    aspect_ratio=measured.aspect_ratio,
                    palette=measured.palette,
                    palette_shares=measured.palette_shares,
                    brightness=measured.brightness,
                    contrast=measured.contrast,
                    saturation=measured.saturation,
                    colour_temperature=measured.colour_temperature,
                    composition=measured.composition,
                    focus_point=measured.focus_point,
                    symmetry=measured.symmetry,
                    description=describe(measured),
                )
            )
        summary = f"测量了 {len(analyses)} 张参考图" + (f"，{len(skipped)} 张无法解码已跳过" if skipped else "")
        if analyses:
            summary += f"：{analyses[0].description}"
        return AgentOutcome(patch=StatePatch(reference_analyses=analyses), summary=summary[:1000], offline=True)

    @nodes.AGENTS[AgentName.LAYOUT_PLANNER].defn
    async def layout_planner(self, request: AgentRequest) -> AgentOutcome:
        if self._llm is None or not request.use_llm:
            return await asyncio.to_thread(plan_layout, request)
        layout = await self._ask(self._llm, request, LayoutSpec)
        return _outcome(StatePatch(layout_spec=layout), f"版式 {layout.layout}，{layout.image_count} 张图")

    @nodes.AGENTS[AgentName.IMAGE_PLANNER].defn
    async def image_planner(self, request: AgentRequest) -> AgentOutcome:
        if self._llm is None or not request.use_llm:
            return await asyncio.to_thread(plan_images, request)
        answer = await self._ask(self._llm, request, ImagePlansAnswer)
        return _outcome(StatePatch(image_plans=answer.plans), f"{len(answer.plans)} 个配图计划")

    @nodes.AGENTS[AgentName.WRITER].defn
    async def writer(self, request: AgentRequest) -> AgentOutcome:
        if request.view.creative_brief is None:
            raise permanent(ErrorCode.AGENT_FAILED, "writer_agent 需要 creativeBrief")
        if self._llm is None or not request.use_llm:
            evidence = await load_items(self._blobs, request.view.evidence_pack)
            return await asyncio.to_thread(write_post, request, evidence)
        content = await self._ask(self._llm, request, GeneratedContent)
        return _outcome(StatePatch(generated_content=content), f"正文《{content.title}》{len(content.body)} 字")

    @nodes.AGENTS[AgentName.REVIEW].defn
    async def review(self, request: AgentRequest) -> AgentOutcome:
        if self._llm is None or not request.use_llm:
            evidence = await load_items(self._blobs, request.view.evidence_pack)
            images = await self._images(request)
            return await asyncio.to_thread(review_post, request, evidence, images)
        answer = await self._ask(self._llm, request, ReviewAnswer)
        patch = StatePatch(review_feedback=answer.feedback, quality_scores=answer.scores)
        return _outcome(patch, answer.feedback.summary)

    async def _images(self, request: AgentRequest) -> dict[str, bytes]:
        images = {}
        for plan_id, ref in request.view.generated_image_asset_ids.items():
            key = key_of(ref)
            if key is not None:
                try:
                    images[plan_id] = await self._blobs.aget(key)
                except BlobNotFoundError:
                    continue
        return images

    async def _ask(self, llm: LLMClient, request: AgentRequest, schema: type[AnswerT]) -> AnswerT:
        """The agent's JSON answer, its readable values streamed to the run while the model writes them (and the
        parsed answer's, when what streamed reads otherwise)."""
        shown = shown_answer(request.stream, request.agent.value, LAYOUTS.get(request.agent))
        question = JsonQuestion(
            node=request.agent.value,
            schema=schema,
            messages=[Message.user(agent_input(request))],
            system=AGENT_PROMPTS[request.agent],
            temperature=LLM_TEMPERATURE,
            shown=shown,
        )
        answer = await json_answer(llm, question, code=ErrorCode.AGENT_FAILED)
        if shown is not None:
            await shown.finish(answer)
        return answer


def _users_choices(brief: CreativeBrief, view: ContentView) -> CreativeBrief:
    """The brief with the user's platform and tone where they gave them: the user's choice stands."""
    update = {"platform": view.platform, "tone": view.tone}
    return brief.model_copy(update={field: value for field, value in update.items() if value is not None})


def _outcome(patch: StatePatch, summary: str) -> AgentOutcome:
    return AgentOutcome(patch=patch, summary=summary[:1000], offline=False)
