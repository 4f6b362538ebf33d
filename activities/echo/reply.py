"""The echo family's reply node: the model answers the text in one short sentence; offline, a rule echoes it back,
labelled as such."""

from pydantic import BaseModel, Field

from activities.common.failures import permanent
from activities.common.llm_calls import llm_failure, llm_timeout
from llm import LLMClient, Message
from llm.errors import LLMError, OutputValidationError
from models.echo import nodes
from models.echo.errors import EchoErrorCode
from models.echo.nodes import ReplyRequest
from models.echo.runs import Reply

SYSTEM_PROMPT = '你是一个简短的回声助手：用一句话回应用户的话，保留原意。只回答 JSON：{"reply": "..."}'
OFFLINE_PREFIX = "（离线回声）"


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
        try:
            answer = await self._llm.chat_with_json(
                [Message.user(request.text)], ModelReply, system=SYSTEM_PROMPT, timeout=llm_timeout(self._llm.timeout)
            )
        except OutputValidationError as err:
            raise permanent(EchoErrorCode.REPLY_FAILED, f"模型的回答不符合格式：{len(err.errors)} 处错误") from err
        except LLMError as err:
            raise llm_failure(err) from err
        return Reply(text=answer.reply, offline=False)
