"""The Critic node (seed 000 §3.4, 004 §4.4): a real, explainable score from checks on the actual image.

Thresholds (pass ≥ 0.7, regenerate < 0.6) live in `activities.quality`; between them the result is returned
with optimisation hints. The workflow degrades a failing Critic to "passed".
"""

from temporalio import activity

from activities.blob_refs import BlobResolver
from activities.mask_refs import load_mask_png
from activities.quality import PASS_THRESHOLD, REGENERATE_BELOW, assess_image
from activities.rendering import decode_image
from models.agent import QualityCheck
from models.nodes import ActivityName, CriticRequest


class ImageCritic:
    def __init__(self, resolver: BlobResolver) -> None:
        self._resolver = resolver

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
