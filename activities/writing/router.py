"""The writing router (seed 002 Req 1: "FastPath / ThinkingAgent → IntentResult"): a keyword rule of
`activities.writing.intent_rules` answers alone when its match is unambiguous; otherwise, with a model configured,
the LLM, asked for a JSON answer, names the intent (its errors become Temporal failures:
`activities.common.llm_calls`); without an LLM, or once its path has failed (`use_llm=False`), the first matching
rule answers, and a request no rule recognises is GENERAL_CHAT with a low confidence. In a conversation the router
reads its turns (issue 28): a short follow-up to a revision ("再紧张一点") revises the same chapter, and the LLM
gets the recent turns with the request."""

from pydantic import BaseModel, Field

from activities.common.llm_calls import JsonQuestion, json_answer
from activities.writing.intent_rules import extract_entities, follow_up_revision, match_intent, unambiguous_intent
from activities.writing.memory import ConversationMemory
from llm import LLMClient, Message
from models.errors import ErrorCode
from models.writing import nodes
from models.writing.intents import PHASE_OF_INTENT, CreationPhase, ExtractedEntity, IntentResult, WritingIntent
from models.writing.nodes import RouteRequest

FALLBACK_CONFIDENCE = 0.3
LLM_TEMPERATURE = 0.1

SYSTEM_PROMPT = f"""你是小说写作助手 InkFlow 的意图路由器。判断作者这句话想做什么，只选一个意图：
{", ".join(WritingIntent)}。
WRITE_CONTENT 写/续写/改写正文；PLAN_CHARACTER 设计角色；DESIGN_RELATIONSHIP 人物关系；MATCH_ARCHETYPE 角色原型；
PLAN_WORLD 世界观设定；BRAINSTORM_IDEA 找灵感；PLAN_OUTLINE 大纲；MANAGE_PLOTLOOP 伏笔；ANALYZE_PACING 节奏；
CHECK_CONSISTENCY 一致性检查；ANALYZE_STYLE 文风分析；GENERAL_CHAT 闲聊；GENERATE_NAME 起名；SUMMARIZE 总结；
EXTRACT_ENTITY 提取人物地点；REVISE_CHAPTER 改写已有的某一章（包括对上一轮改写的追加要求）；
BRAINSTORM_AND_EXPAND 先出方案、作者选择后再写；OUTLINE_TO_CHAPTER 按大纲写章节；
CHARACTER_TO_SCENE 先设计角色再写场景。
phase 是创作阶段（{", ".join(CreationPhase)}），工具类意图可为 null；entities 是句中点名的人物、地点或作品名。"""


class LlmRoute(BaseModel):
    """The JSON the router asks the LLM for."""

    intent: WritingIntent
    confidence: float = Field(ge=0.0, le=1.0)
    phase: CreationPhase | None = None
    entities: list[str] = Field(default_factory=list, max_length=20)


class Router:
    """The router activity: a follow-up to the conversation's last revision, an unambiguous rule, then the LLM when
    one is configured and asked for, then the first matching rule, then GENERAL_CHAT."""

    def __init__(self, llm: LLMClient | None = None, memory: ConversationMemory | None = None) -> None:
        self._llm = llm
        self._memory = memory

    @nodes.ROUTER.defn
    async def route(self, request: RouteRequest) -> IntentResult:
        memory = self._memory
        turns = [] if memory is None else await memory.turns(request.owner, request.project_id, request.session_id)
        # microseconds of regular expressions: fine on the loop
        follow_up = follow_up_revision(request.text, turns[-1] if turns else None)
        if follow_up is not None:
            return follow_up
        sure = unambiguous_intent(request.text)
        if sure is not None:
            return sure
        if self._llm is None or not request.use_llm:
            return match_intent(request.text) or IntentResult(
                intent=WritingIntent.GENERAL_CHAT,
                confidence=FALLBACK_CONFIDENCE,
                phase=None,
                entities=extract_entities(request.text),
                source="fallback",
            )
        question = JsonQuestion(
            node=nodes.ROUTER.node,
            schema=LlmRoute,
            messages=[Message.user(_with_conversation(request.text, memory.prompt_section(turns) if memory else None))],
            system=SYSTEM_PROMPT,
            temperature=LLM_TEMPERATURE,
        )
        answer = await json_answer(
            self._llm,
            question,
            code=ErrorCode.ROUTER_FAILED,
            message=lambda err: f"LLM 返回的 JSON 不符合意图格式：{len(err.errors)} 处错误",
        )
        named = [ExtractedEntity(kind="named", text=name[:100]) for name in answer.entities if name.strip()]
        return IntentResult(
            intent=answer.intent,
            confidence=answer.confidence,
            phase=answer.phase if answer.phase is not None else PHASE_OF_INTENT[answer.intent],
            entities=extract_entities(request.text) + named,
            source="llm",
        )


def _with_conversation(text: str, conversation: str | None) -> str:
    return text if conversation is None else f"{conversation}\n\n## 作者现在说\n{text}"
