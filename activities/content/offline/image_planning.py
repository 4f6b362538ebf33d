"""The offline image_planner_agent: one `ImagePlan` per image slot of the layout (or a cover and one per body
block when there is no layout), each with a prompt from the topic and a point of the outline (the block just
before the slot that no image has drawn yet, else the next one not drawn: the planner reads the whole outline, and
no image is bound to a paragraph, seed 001), a composition by
the slot's place (the cover; then a close-up, steps, another close-up...; the last body image a checklist summing up),
a data chart as the subject of a block with numbers, the renderer style
whose palette is nearest the reference images' measured palettes, a size from the layout's aspect ratio and a
seed from a hash. Pure and deterministic: the same request always gives the same plans."""

import hashlib
import re

from imaging.measurements import STYLE_WORDS, nearest_style
from imaging.rendering import COMPOSITIONS
from models.content.agents import AgentOutcome, AgentRequest, ContentView, StatePatch
from models.content.artifacts import BodyBlock, ImagePlan, ReferenceAnalysis
from models.writing.language import written_in_english

SIZES: dict[str, tuple[int, int]] = {
    "3:4": (768, 1024),
    "1:1": (1024, 1024),
    "4:3": (1024, 768),
    "16:9": (1024, 576),
    "9:16": (576, 1024),
}
"""The layout's aspect ratio → image width and height."""
DEFAULT_SIZE = SIZES["3:4"]
MAX_IMAGES_WITHOUT_LAYOUT = 3
"""Without a layout: the cover and the first body blocks, this many images in all."""
MAX_PROMPT = 800
_TOPIC_CHARS = 200
_DIGIT = re.compile(r"\d")
CHART_WORDS = ("数据图表", "data chart")
"""The subject of an image whose block has numbers (the renderer draws a chart)."""
_POINT_CHARS = 120


def plan_images(request: AgentRequest) -> AgentOutcome:
    """Plan the post's images; the patch writes only `image_plans`."""
    view = request.view
    topic = (view.creative_brief.topic if view.creative_brief else view.topic).strip()[:_TOPIC_CHARS]
    blocks = {block.id: block for block in view.body_blocks}
    family, distance = _style(view.reference_analyses)
    width, height = _size(view)
    targets = _targets(view)
    compositions = _compositions([block_id for _, block_id in targets])
    english = written_in_english(topic)
    plans: list[ImagePlan] = []
    for index, (slot, block_id) in enumerate(targets, start=1):
        plan_id = f"p{index}"
        block = blocks.get(block_id) if block_id else None
        plans.append(
            ImagePlan(
                plan_id=plan_id,
                slot=slot,
                prompt=_prompt(topic, block, family, compositions[index - 1], english),
                width=width,
                height=height,
                seed=_seed(topic, plan_id),
                style=family,
            )
        )
    return AgentOutcome(patch=StatePatch(image_plans=plans), summary=_summary(plans, family, distance), offline=True)


def _targets(view: ContentView) -> list[tuple[str, str | None]]:
    """(image slot, the outline block its picture draws from) per image, in the post's order: a lone image draws
    the block just before it, a group of images the blocks not drawn yet in outline order; an image before any text
    is a cover (None)."""
    if view.layout_spec is None:
        targets: list[tuple[str, str | None]] = [("cover", None)]
        for number, block in enumerate(view.body_blocks[: MAX_IMAGES_WITHOUT_LAYOUT - 1], start=1):
            targets.append((f"img{number}", block.id))
        return targets
    slots = view.layout_spec.slots
    order = [slot.block_id for slot in slots if slot.kind == "text" and slot.block_id]
    targets = []
    drawn: set[str] = set()
    preceding: str | None = None
    for index, slot in enumerate(slots):
        if slot.kind == "text":
            preceding = slot.block_id or preceding
            continue
        alone = (index == 0 or slots[index - 1].kind == "text") and (
            index + 1 == len(slots) or slots[index + 1].kind == "text"
        )
        block_id = None
        if preceding is not None:
            undrawn = next((b for b in order if b not in drawn), preceding)
            block_id = preceding if alone and preceding not in drawn else undrawn
            drawn.add(block_id)
        name = slot.image_slot or ("cover" if block_id is None and not targets else f"img{len(targets) + 1}")
        targets.append((name, block_id))
    return targets


def _style(analyses: list[ReferenceAnalysis]) -> tuple[str | None, float | None]:
    """The style family nearest the references' combined palette (None without references), and its distance."""
    palette: list[str] = []
    for analysis in analyses:
        palette.extend(colour for colour in analysis.palette if colour not in palette)
    if not palette:
        return None, None
    family, distance = nearest_style(palette)
    return family, distance


def _size(view: ContentView) -> tuple[int, int]:
    if view.layout_spec is None:
        return DEFAULT_SIZE
    ratio = view.layout_spec.aspect_ratio.replace("：", ":").replace(" ", "")
    return SIZES.get(ratio, DEFAULT_SIZE)


def _compositions(block_ids: list[str | None]) -> list[str]:
    """Each image's composition: a cover for an image of no block, then the body images alternate close-up and
    steps, the last of two or more a checklist (the summary)."""
    body = [index for index, block_id in enumerate(block_ids) if block_id is not None]
    compositions = ["cover"] * len(block_ids)
    for order, index in enumerate(body):
        last = len(body) >= 2 and order == len(body) - 1
        compositions[index] = "checklist" if last else ("closeup", "steps")[order % 2]
    return compositions


def _prompt(topic: str, block: BodyBlock | None, family: str | None, composition: str, english: bool) -> str:
    """What to draw, from the post only: the Supervisor's guidance and focus areas describe the work ("为每个图片位
    写生成计划"), not the picture, and never reach an image model."""
    word = COMPOSITIONS[composition][1 if english else 0]
    if block is None:
        subject = f"{topic}, {word}, key visual" if english else f"{topic}，{word}，封面主视觉"
    else:
        point = block.points[0][:_POINT_CHARS]
        chart = CHART_WORDS[1 if english else 0] if _DIGIT.search(f"{block.heading}{point}") else ""
        what = "，".join(part for part in (word, chart) if part)
        subject = f"{topic}｜{what}｜{block.heading}：{point}"
    prompt = subject if family is None else f"{subject}，{STYLE_WORDS[family]}风格"
    return prompt[:MAX_PROMPT]


def _seed(topic: str, plan_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{topic}{plan_id}".encode()).digest()[:8], "big") % 2**31


def _summary(plans: list[ImagePlan], family: str | None, distance: float | None) -> str:
    if not plans:
        return "版式中没有图片位，未规划配图（离线）"
    slots = "、".join(plan.slot for plan in plans)
    size = f"{plans[0].width}×{plans[0].height}"
    if family is None or distance is None:
        style = "未指定风格（没有参考图分析）"
    else:
        style = f"风格：{STYLE_WORDS[family]}（{family}，与参考图调色板距离 {distance:.2f}）"
    return f"离线规划了 {len(plans)} 张配图（{slots}，{size}），{style}"
