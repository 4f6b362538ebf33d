"""The Critic node (seed 000 §3.4, 004 §4.4): a real, explainable score from checks on the actual image.

Thresholds (pass ≥ 0.7, regenerate < 0.6) live in `imaging.quality`; between them the result is returned
with optimisation hints. The workflow degrades a failing Critic to "passed". The pixel checks run in a thread.

With an LLM configured, the model judges whether the prompt expresses the requested subject and style (a
`PromptReview`); the pixel checks stay measured. The review reads the prompt, not the image, so the workflow asks
for it in its own activity (`review_prompt`) while the Executor draws, and hands it to `critique` with the image;
histories from before that ask for it inside `critique` (`use_llm`). The review is a node's LLM call like any
other: its failures are Temporal failures (a 429 is retried after the provider's Retry-After; an answer still
invalid after the repair round is CRITIC_FAILED), and when it failed for good the workflow announces the degrade
and the keyword checks answer.
"""

import asyncio
import json

from temporalio.exceptions import ApplicationError

from activities.common.llm_calls import JsonQuestion, json_answer
from activities.image.mask_refs import load_mask_png
from imaging.quality import PASS_THRESHOLD, REGENERATE_BELOW, Assessment, assess_image
from imaging.rendering import decode_image
from llm import LLMClient, Message
from models.image import nodes
from models.image.errors import ImageErrorCode
from models.image.nodes import CriticRequest, PromptReviewRequest
from models.image.state import Intent, MaskRef, PromptReview, QualityCheck
from stores.blob_refs import BlobResolver
from stores.blob_store import BlobStore

REVIEW_PROMPT = """你是图像生成质量评审。给定用户的原始请求、识别出的主体和风格，以及实际用于生成图片的 Prompt，
判断这个 Prompt 是否清楚地表达了该主体（subject_covered）和该风格（style_covered）。
同义词、翻译和更具体的说法都算表达了；没有指定的主体或风格算作已表达。
suggestion 用一句中文说明如何改进 Prompt；不需要改进时留空。"""


class ImageCritic:
    """The Critic's activities: pixel checks on the stored image, and the LLM's review of the prompt."""

    def __init__(self, resolver: BlobResolver, llm: LLMClient | None = None) -> None:
        self._resolver = resolver
        self._llm = llm

    @nodes.CRITIC.defn
    async def critique(self, request: CriticRequest) -> QualityCheck:
        result = request.result
        image = await self._resolver.blobs.aget(result.blob_key)
        base_image: bytes | None = None
        if result.task_type == "inpainting" and request.base_image and request.mask:
            base_image = await self._resolver.fetch(request.base_image)
        review = request.review
        if review is None and request.use_llm and self._llm is not None:
            review = await _ask(self._llm, request.intent, request.prompt)
        assessment = await asyncio.to_thread(
            _assess, request, image, base_image, request.mask, self._resolver.blobs, review
        )
        passed = assessment.score >= PASS_THRESHOLD
        failed = [c.detail for c in assessment.checks if not c.passed]
        return QualityCheck(
            passed=passed,
            score=assessment.score,
            needs_regeneration=assessment.score < REGENERATE_BELOW,
            feedback="图片质量符合要求" if not failed else "；".join(failed),
            suggestions=assessment.suggestions,
            checks=assessment.checks,
        )

    @nodes.PROMPT_REVIEW.defn
    async def review_prompt(self, request: PromptReviewRequest) -> PromptReview:
        """The LLM's review of the prompt alone (the workflow asks only when a model is configured)."""
        if self._llm is None:
            message = "this worker has no LLM configured for the prompt review"
            raise ApplicationError(message, type=ImageErrorCode.CRITIC_FAILED, non_retryable=True)
        return await _ask(self._llm, request.intent, request.prompt)


async def _ask(llm: LLMClient, intent: Intent, prompt: str) -> PromptReview:
    """The review question and its checked answer."""
    case = {"request": intent.prompt, "subject": intent.subject, "style": intent.style, "prompt": prompt}
    question = JsonQuestion(
        node=nodes.CRITIC.node,
        schema=PromptReview,
        messages=[Message.user(json.dumps(case, ensure_ascii=False))],
        system=REVIEW_PROMPT,
        temperature=0.0,
    )
    return await json_answer(llm, question, code=ImageErrorCode.CRITIC_FAILED)


def _assess(
    request: CriticRequest,
    image: bytes,
    base_image: bytes | None,
    mask_ref: MaskRef | None,
    blobs: BlobStore,
    review: PromptReview | None,
) -> Assessment:
    mask = None
    if base_image is not None and mask_ref is not None:
        mask = load_mask_png(mask_ref, blobs, decode_image(base_image).size)
    result = request.result
    return assess_image(
        image,
        expected_width=result.width,
        expected_height=result.height,
        prompt=request.prompt,
        subject=request.intent.subject,
        style=request.intent.style,
        task_type=result.task_type,
        base_image=base_image,
        mask=mask,
        review=review,
    )
