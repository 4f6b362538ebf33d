"""The activity of an edit of a finished post (`workflows.content.edit`): `content.edit_rewrite` rewrites one text
section by the user's instruction, with the writer's model when one is configured (one JSON answer), else offline
(`activities.content.section_rewrite`, which says when it could not). A regenerated image goes through the image
agent's own `content.image_tool`; the user's own text needs no activity."""

from pydantic import Field

from activities.common.llm_calls import JsonQuestion, json_answer
from activities.content.section_rewrite import rewrite_offline
from llm import LLMClient, Message
from models.base import CamelModel
from models.content import nodes
from models.content.edits import SECTION_CHARS, SectionRewrite, SectionRewriteRequest
from models.errors import ErrorCode
from models.writing.language import written_in_english

REWRITE_SYSTEM = (
    "你是社交媒体帖子的作者。按用户的要求改写帖子中的一段，只改这一段：保留事实和数字，不编造新的事实，"
    '语言跟原文一致（中文原文用中文，英文原文用英文）。只输出 JSON：{"text": "改写后的这一段"}。'
)


class RewrittenText(CamelModel):
    """The model's answer: the section's new text."""

    text: str = Field(min_length=1, max_length=SECTION_CHARS)


class PostEditor:
    """The edit's section rewrite, over the LLM (None: offline)."""

    def __init__(self, llm: LLMClient | None) -> None:
        self._llm = llm

    @nodes.EDIT_REWRITE.defn
    async def edit_rewrite(self, request: SectionRewriteRequest) -> SectionRewrite:
        if self._llm is None or not request.use_llm:
            english = written_in_english(request.topic)
            return rewrite_offline(
                request.text, request.instruction, english=english, model_failed=request.model_failed
            )
        heading = f"（小标题：{request.heading}）" if request.heading else ""
        question = JsonQuestion(
            node="edit_rewrite",
            schema=RewrittenText,
            system=REWRITE_SYSTEM,
            messages=[
                Message.user(
                    f"帖子主题：{request.topic}\n平台：{request.platform or '未指定'}\n"
                    f"要改写的一段{heading}：\n{request.text}\n\n用户的要求：{request.instruction}"
                )
            ],
        )
        answer = await json_answer(self._llm, question, code=ErrorCode.AGENT_FAILED)
        changed = answer.text.strip() != request.text.strip()
        if written_in_english(request.topic):
            note = (
                f'rewritten as asked: "{request.instruction[:40]}"' if changed else "the model gave the same text back"
            )
        else:
            note = f"按「{request.instruction[:40]}」改写" if changed else "模型给出的文字与原文相同"
        return SectionRewrite(text=answer.text.strip(), applied=changed, note=note, offline=False)
