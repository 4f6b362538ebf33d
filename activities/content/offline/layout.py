"""The offline layout_planner_agent: the `LayoutSpec` of the post, the order of its text blocks and image slots.
The layout is the user's preference, else the platform's habit (小红书/抖音 cover first, 公众号 alternating, 微博
grid); image slots are places in the order, bound to no paragraph (seed 001), and when the guidance asks for
text-image alignment an image directly follows each block, as it does when the layout is a text-image alignment fallback
(`AgentRequest.fix`). At most four images; the aspect ratio is the platform's. Pure and
deterministic."""

import re

from models.content.agents import AgentOutcome, AgentRequest, StatePatch
from models.content.artifacts import PLATFORM_LABELS, LayoutPreference, LayoutSlot, LayoutSpec, QualityDimension

MAX_IMAGES = 4
DEFAULT_BLOCKS = 3
MAX_TEXT_SLOTS = 26
"""A layout holds at most 30 slots: 26 text blocks and 4 images."""
LAYOUT_BY_PLATFORM: dict[str, LayoutPreference] = {
    "xiaohongshu": "cover_first",
    "wechat": "alternating",
    "weibo": "grid",
    "douyin": "cover_first",
}
ASPECT_RATIOS: dict[str, str] = {"xiaohongshu": "3:4", "weibo": "1:1", "wechat": "16:9", "douyin": "9:16"}
DEFAULT_ASPECT_RATIO = "3:4"
LAYOUT_LABELS: dict[str, str] = {"cover_first": "封面优先", "alternating": "图文交替", "grid": "文字在前、图片成组"}

_ALIGNMENT = re.compile(r"图文|对齐|配图位置|alignment|align", re.IGNORECASE)


def wants_alignment(guidance: str) -> bool:
    """Whether the guidance asks for text and images to line up (图文/对齐/alignment)."""
    return _ALIGNMENT.search(guidance) is not None


def _block_ids(request: AgentRequest) -> list[str]:
    view = request.view
    if view.body_blocks:
        return [block.id for block in view.body_blocks][:MAX_TEXT_SLOTS]
    count = len(view.creative_brief.key_messages) if view.creative_brief is not None else DEFAULT_BLOCKS
    return [f"b{i + 1}" for i in range(max(1, min(DEFAULT_BLOCKS, count)))]


def _text(block_id: str) -> LayoutSlot:
    return LayoutSlot(kind="text", block_id=block_id)


def _slots(layout: LayoutPreference, blocks: list[str], aligned: bool) -> list[LayoutSlot]:
    """The slots in reading order; body images are `img1`, `img2`, ... (a cover is `cover`), at most four images."""
    slots: list[LayoutSlot] = []
    if layout == "cover_first":
        slots.append(LayoutSlot(kind="image", image_slot="cover"))
    numbered = 0

    def image() -> None:
        nonlocal numbered
        if len([slot for slot in slots if slot.kind == "image"]) < MAX_IMAGES:
            numbered += 1
            slots.append(LayoutSlot(kind="image", image_slot=f"img{numbered}"))

    if layout == "cover_first":
        for position, block_id in enumerate(blocks, start=1):
            slots.append(_text(block_id))
            if aligned or position % 2 == 0:
                image()
    elif layout == "alternating" or aligned:
        for block_id in blocks:
            slots.append(_text(block_id))
            image()
    else:
        slots += [_text(block_id) for block_id in blocks]
        for _ in blocks:
            image()
    return slots


def plan_layout(request: AgentRequest) -> AgentOutcome:
    """The offline layout (see the module): a patch writing only `layout_spec`."""
    view = request.view
    platform = view.creative_brief.platform if view.creative_brief is not None else view.platform
    layout: LayoutPreference = view.layout_preference or LAYOUT_BY_PLATFORM.get(platform or "", "cover_first")
    fixing = request.fix is not None and request.fix.dimension is QualityDimension.TEXT_IMAGE_ALIGNMENT
    aligned = fixing or wants_alignment(request.guidance)
    blocks = _block_ids(request)
    slots = _slots(layout, blocks, aligned)
    image_count = sum(1 for slot in slots if slot.kind == "image")
    aspect_ratio = ASPECT_RATIOS.get(platform or "", DEFAULT_ASPECT_RATIO)
    where = PLATFORM_LABELS.get(platform or "", "未指定平台")
    why = "按你的版式偏好" if view.layout_preference else f"按{where}的阅读习惯"
    rationale = (
        f"{why}采用“{LAYOUT_LABELS[layout]}”版式：{len(blocks)} 个正文段落、{image_count} 张配图，"
        f"图片比例 {aspect_ratio}。"
    )
    if aligned:
        rationale += "应要求图文对齐：每个段落之后紧跟一张配图。"
    spec = LayoutSpec(
        layout=layout, slots=slots, image_count=image_count, aspect_ratio=aspect_ratio, rationale=rationale
    )
    summary = f"版式规划：{LAYOUT_LABELS[layout]}，{len(blocks)} 段文字、{image_count} 张图（{aspect_ratio}）。"
    return AgentOutcome(patch=StatePatch(layout_spec=spec), summary=summary)
