"""The RAG node: the style library's retrieval that enriches the prompt (seed 004 §10).

No style keyword: the original prompt goes on. A regeneration with the same request reuses what this turn already
retrieved (§10.2's cache). A retrieval that fails for good is not the turn's failure: the original prompt goes on,
with a warning thought.
"""

from temporalio import workflow

from workflows import policies
from workflows.common.run import NodeFailed
from workflows.image.graph import EXECUTOR, RAG
from workflows.image.turn import ImageTurn

with workflow.unsafe.imports_passed_through():
    from models.image import nodes
    from models.image.nodes import RagRequest
    from models.image.state import EnhancedPrompt


class StyleRetrieval:
    """The RAG node, and what it retrieved this turn."""

    def __init__(self, turn: ImageTurn) -> None:
        self._turn = turn
        self._retrieved: tuple[RagRequest, EnhancedPrompt] | None = None

    async def rag(self) -> str:
        turn = self._turn
        intent = turn.intent()
        original = intent.prompt or turn.state.user_input.text
        if not (intent.style and intent.style.strip()):
            turn.state.enhanced_prompt = EnhancedPrompt(original=original, final=original)
            turn.thought(RAG, "没有风格关键词，跳过检索，使用原始 Prompt")
            return EXECUTOR
        request = RagRequest(original=original, style=intent.style, subject=intent.subject)
        if self._retrieved is not None and self._retrieved[0] == request:
            turn.state.enhanced_prompt = self._retrieved[1]
            turn.thought(RAG, "重新生成：复用本轮已检索到的风格（seed 004 §10.2 缓存）")
            return EXECUTOR
        turn.thought(RAG, f"正在检索风格库：{intent.style}...")
        try:
            enhanced = await turn.run.call(
                nodes.RAG, request, policies.IMAGE_RAG, summary=f"retrieve styles for {intent.style!r}"
            )
        except NodeFailed:
            enhanced = EnhancedPrompt(original=original, final=original)
            turn.thought(RAG, "风格检索失败，使用原始 Prompt 继续", level="warning")
        else:
            self._retrieved = (request, enhanced)
            if enhanced.retrieved:
                names = "、".join(r.style for r in enhanced.retrieved)
                turn.thought(RAG, f"检索到 {len(enhanced.retrieved)} 条相关风格：{names}")
            else:
                turn.thought(RAG, "未检索到匹配的风格，使用原始 Prompt")
        turn.state.enhanced_prompt = enhanced
        return EXECUTOR
