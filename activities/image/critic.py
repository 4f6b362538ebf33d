"""The Critic node (seed 000 §3.4, 004 §4.4): a real, explainable score from checks on the actual image.

Thresholds (pass ≥ 0.7, regenerate < 0.6) live in `activities.quality`; between them the result is returned
with optimisation hints. The workflow degrades a failing Critic to "passed".

With an LLM configured, the model judges whether the prompt expresses the requested subject and style (a
`PromptReview`); the pixel checks stay measured. That review is advisory: if the LLM fails, the keyword checks
answer instead, so a provider outage never re-runs the pixel checks nor turns the Critic into a rubber stamp.
"""

import json

from temporalio import activity

from activities.blob_refs import BlobResolver
from activities.llm_calls import llm_timeout
from activities.mask_refs import load_mask_png
from activities.quality import PASS_THRESHOLD, REGENERATE_BELOW, PromptReview, assess_image
from activities.rendering import decode_image
from llm import LLMClient, Message
from llm.errors import LLMError
from models.agent import QualityCheck
from models.nodes import ActivityName, CriticRequest

REVIEW_PROMPT = """你是图像生成质量评审。给定用户的原始请求、识别出的主体和风格，以及实际用于生成图片的 Prompt，
判断这个 Prompt 是否清楚地表达了该主体（subject_covered）和该风格（style_covered）。
同义词、翻译和更具体的说法都算表达了；没有指定的主体或风格算作已表达。
suggestion 用一句中文说明如何改进 Prompt；不需要改进时留空。"""


class ImageCritic:
    def __init__(self, resolver: BlobResolver, llm: LLMClient | None = None) -> None:
        self._resolver = resolver
        self._llm = llm

    @activity.defn(name=ActivityName.CRITIC)
    async def critique(self, request: CriticRequest) -> QualityCheck:
        result = request.result
        image = self._resolver.blobs.get(result.blob_key)
        base_image: bytes | None = None
        mask: bytes | None = None
        if result.task_type == "inpainting" and request.base_image_url and request.mask:
            base_image = await self._resolver.fetch(request.base_image_url)
            mask = load_mask_png(request.mask, self._resolver.blobs, decode_image(base_image).size)
        assessment = assess_image(
            image,
            expected_width=result.width,
            expected_height=result.height,
            prompt=request.prompt,
            subject=request.intent.subject,
            style=request.intent.style,
            task_type=result.task_type,
            base_image=base_image,
            mask=mask,
            review=await self._review(request),
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

    async def _review(self, request: CriticRequest) -> PromptReview | None:
        if self._llm is None:
            return None
        case = {
            "request": request.intent.prompt,
            "subject": request.intent.subject,
            "style": request.intent.style,
            "prompt": request.prompt,
        }
        try:
            return await self._llm.chat_with_json(
                [Message.user(json.dumps(case, ensure_ascii=False))],
                PromptReview,
                system=REVIEW_PROMPT,
                temperature=0.0,
                timeout=llm_timeout(self._llm.timeout),
            )
        except LLMError as err:
            activity.logger.warning("LLM prompt review failed, keyword checks answer instead: %s", err)
            return None
