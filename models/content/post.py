"""The finished post, assembled from the run's state in the layout's order: each text block with its heading, each
image in its slot (by its `blob:` reference, which the gateway turns into a URL), and whether its images are
complete. Pure, small: the workflow emits the post as `post_ready` and returns it, the gateway serves it
(`GET /v1/content/runs/{id}/post`), and the routing rules read `images_complete`. `post_parts` says which block or
image plan each section shows: an edit names a section or an image by its number in the post. The body's lines
before its first section and after its last (the opening, which offline starts with the offline label, and the
call to action) are the post's `opening` and `closing`, so the preview and the Markdown show what the copy-ready
text has."""

from models.content.artifacts import GeneratedContent
from models.content.runs import ContentPost, PostSection
from models.content.state import ContentState


def images_complete(state: ContentState) -> bool:
    """Seed 001's `imagesComplete`: there are image plans and every one has its image."""
    return bool(state.image_plans) and all(
        plan.plan_id in state.generated_image_asset_ids for plan in state.image_plans
    )


BODY = "body"
"""The part id of a post's one text section when its text has no blocks."""


def post_parts(state: ContentState) -> list[tuple[PostSection, str]]:
    """The post's sections in layout order, each with the block id (`BODY` for a body without blocks) or the image
    plan id it shows."""
    content = state.generated_content
    blocks = {block.id: block for block in content.blocks} if content else {}
    plans = {plan.slot: plan for plan in state.image_plans}
    images = state.generated_image_asset_ids
    sections: list[tuple[PostSection, str]] = []
    placed_blocks: set[str] = set()
    placed_plans: set[str] = set()

    def image(slot: str) -> None:
        plan = plans.get(slot)
        if plan is not None and plan.plan_id in images:
            sections.append((PostSection(kind="image", image_url=images[plan.plan_id], slot=slot), plan.plan_id))
            placed_plans.add(plan.plan_id)

    for slot in state.layout_spec.slots if state.layout_spec else []:
        if slot.kind == "image" and slot.image_slot:
            image(slot.image_slot)
        elif slot.kind == "text" and slot.block_id in blocks:
            block = blocks[slot.block_id]
            sections.append((_text(block.heading, block.text), block.id))
            placed_blocks.add(block.id)
    for plan in state.image_plans:  # images the layout has no slot for
        if plan.plan_id not in placed_plans:
            image(plan.slot)
    if content is not None:
        rest = [block for block in content.blocks if block.id not in placed_blocks]
        if not content.blocks and content.body:
            sections.append((_text("", content.body), BODY))
        sections += [(_text(block.heading, block.text), block.id) for block in rest]
    return sections


def assemble_post(state: ContentState) -> ContentPost:
    content = state.generated_content
    sections = [section for section, _ in post_parts(state)]
    review = state.review_feedback
    opening, closing = body_frame(content) if content else ("", "")
    return ContentPost(
        title=content.title if content else state.creative_brief.topic if state.creative_brief else "",
        opening=opening,
        sections=sections,
        closing=closing,
        hashtags=content.hashtags if content else [],
        image_urls=[section.image_url for section in sections if section.image_url],
        quality_scores=state.quality_scores,
        approved=bool(review and review.approved),
        complete=bool(content and content.body.strip()) and images_complete(state),
        end_reason=state.metadata.end_reason,
        end_message=state.metadata.end_message,
        creative_id=state.creative_id,
    )


def body_frame(content: GeneratedContent) -> tuple[str, str]:
    """The body's text before the line where its first block begins (by heading, else text) and after its last
    block's text; empty where a block cannot be found in the body (a body without blocks is all sections)."""
    body = content.body
    if not content.blocks:
        return "", ""
    first, last = content.blocks[0], content.blocks[-1]
    start = body.find(first.heading) if first.heading else -1
    if start < 0:
        start = body.find(first.text) if first.text else -1
    opening = body[: body.rfind("\n", 0, start) + 1].strip() if start >= 0 else ""
    end = body.rfind(last.text) if last.text else -1
    closing = body[end + len(last.text) :].strip() if end >= 0 and end >= start else ""
    return opening, closing


def _text(heading: str, text: str) -> PostSection:
    return PostSection(kind="text", heading=heading or None, text=text)
