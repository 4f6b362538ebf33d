"""The echo family's reply node: the model answers the text in one short sentence, streamed to the run as it is
written (the JSON answer's `reply` value, `activities.common.answer_text`); offline, a rule echoes it back,
labelled as such."""

from pydantic import BaseModel, Field

from activities.common.answer_text import Layout, shown_answer
from activities.common.llm_calls import JsonQuestion, json_answer
from llm import LLMClient, Message
from models.echo import nodes
from models.echo.errors import EchoErrorCode
from models.echo.nodes import ReplyRequest
from models.echo.runs import Reply

SYSTEM_PROMPT = '你是一个简短的回声助手：用一句话回应用户的话，保留原意。只回答 JSON：{"reply": "..."}'
OFFLINE_PREFIX = "（离线回声）"
REPLY_LAYOUT: Layout = {("reply",): ("", "")}
"""What of the JSON answer the run shows while it is written: the reply's text alone."""


class ModelReply(BaseModel):
    """The JSON the reply node asks the model for."""

    reply: str = Field(min_length=1, max_length=2000)


class EchoAgent:
    """The reply activity, over the worker's model (None: only the offline rule)."""

    def __init__(self, llm: LLMClient | None) -> None:
        self._llm = llm

    @nodes.REPLY.defn
    async def reply(self, request: ReplyRequest) -> Reply:
        if self._llm is None or not request.use_llm:
            return Reply(text=f"{OFFLINE_PREFIX}{request.text}", offline=True)
        shown = shown_answer(request.stream, nodes.REPLY.node, REPLY_LAYOUT)
        question = JsonQuestion(
            node=nodes.REPLY.node,
            schema=ModelReply,
            messages=[Message.user(request.text)],
            system=SYSTEM_PROMPT,
            shown=shown,
        )
        answer = await json_answer(
            self._llm,
            question,
            code=EchoErrorCode.REPLY_FAILED,
            message=lambda err: f"模型的回答不符合格式：{len(err.errors)} 处错误",
        )
        if shown is not None:
            await shown.finish(answer)
        return Reply(text=answer.reply, offline=False)
