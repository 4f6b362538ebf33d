"""The Planner node (seed 000 §3.1, §5.2): user text (+ mask) → `Intent`.

With an LLM configured, the seed's system prompt asks for a JSON answer (`activities.common.llm_calls`). Its
typed errors become Temporal failures there: a 429 is retried after the provider's Retry-After, a
spent quota or an answer that stays invalid after one repair round is not; once the node has failed, the
workflow calls it again with `use_llm=False`. Without an LLM (the offline default) the keyword classifier
answers, labelled as such in `Intent.source`.
"""

import asyncio
import json
from collections.abc import Sequence

from pydantic import BaseModel, Field

from activities.common.llm_calls import JsonQuestion, json_answer
from activities.image.keyword_planner import classify_intent
from llm import LLMClient, Message
from models.blobs import blob_ref
from models.errors import ErrorCode
from models.image import nodes
from models.image.nodes import PlannerRequest
from models.image.state import Intent, IntentAction

MASK_CONFIDENCE = 0.9
LLM_TEMPERATURE = 0.3

SYSTEM_PROMPT = """你是一个专业的 AI 图像生成助手。请分析用户的输入，识别用户的意图。

可能的意图类型：
- generate_image: 用户想要生成新图片
- inpainting: 用户想要修改图片的某个区域（通常伴随蒙版数据）
- adjust_parameters: 用户想要调整生成参数（如风格强度、尺寸等）

请以 JSON 格式返回分析结果，格式如下：
{
  "action": "generate_image" | "inpainting" | "adjust_parameters" | "unknown",
  "subject": "主要对象（如：猫、城市、人物）",
  "style": "风格关键词（如：赛博朋克、水彩）",
  "confidence": 0.0-1.0,
  "reasoning": "分析理由"
}

如果检测到蒙版数据（maskData 存在），则 action 必须为 "inpainting"。"""


class LlmIntent(BaseModel):
    """The JSON the seed's system prompt asks the model for."""

    action: IntentAction
    subject: str | None = None
    style: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str = ""


class Planner:
    """The Planner activity: the LLM when one is configured and asked for, else the keyword classifier."""

    def __init__(self, style_vocabulary: Sequence[str], llm: LLMClient | None = None) -> None:
        self._vocabulary = list(style_vocabulary)
        self._llm = llm

    @nodes.PLANNER.defn
    async def plan(self, request: PlannerRequest) -> Intent:
        if self._llm is None or not request.use_llm:
            return await asyncio.to_thread(
                classify_intent,
                request.text,
                has_mask=request.has_mask,
                style_vocabulary=self._vocabulary,
                previous=request.previous,
            )
        question = JsonQuestion(
            node=nodes.PLANNER.node,
            schema=LlmIntent,
            messages=_messages(request),
            system=SYSTEM_PROMPT,
            temperature=LLM_TEMPERATURE,
        )
        answer = await json_answer(
            self._llm,
            question,
            code=ErrorCode.PLANNER_FAILED,
            message=lambda err: f"LLM 返回的 JSON 不符合意图格式：{len(err.errors)} 处错误",
        )
        intent = Intent(
            action=answer.action,
            subject=answer.subject or None,
            style=answer.style or None,
            prompt=request.text,
            confidence=answer.confidence,
            reasoning=answer.reasoning,
            raw_response=answer.model_dump_json(),
            source="llm",
        )
        if request.has_mask and intent.action != "inpainting":
            intent = intent.model_copy(update={"action": "inpainting", "confidence": MASK_CONFIDENCE, "source": "mask"})
        if intent.action == "adjust_parameters" and request.previous is not None:
            keywords = await asyncio.to_thread(
                classify_intent,
                request.text,
                has_mask=False,
                style_vocabulary=self._vocabulary,
                previous=request.previous,
            )
            intent = intent.model_copy(update={"parameters": keywords.parameters, "prompt": keywords.prompt})
        return intent


def _messages(request: PlannerRequest) -> list[Message]:
    """Seed 000 §5.2: the last 5 messages, plus the last result when the user refers back to it (the system
    prompt goes separately), as a conversation every provider accepts: it starts with the user and the roles
    alternate (consecutive turns of one role are joined into one message)."""
    turns: list[tuple[str, str]] = [(m.role, m.content) for m in request.messages[-5:] if m.role != "system"]
    if request.previous is not None and ("再" in request.text or "调整" in request.text):
        context = {"image": blob_ref(request.previous.blob_key), "prompt": request.previous.prompt}
        turns.append(("assistant", f"上一次生成的结果：{json.dumps(context, ensure_ascii=False)}"))
    turns.append(("user", request.text))
    while turns[0][0] != "user":
        turns.pop(0)
    joined: list[tuple[str, str]] = []
    for role, content in turns:
        if joined and joined[-1][0] == role:
            joined[-1] = (role, f"{joined[-1][1]}\n\n{content}")
        else:
            joined.append((role, content))
    return [Message.user(content) if role == "user" else Message.assistant(content) for role, content in joined]
