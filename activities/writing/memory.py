"""A writing conversation's memory as the activities see it (issue 28): `record_turn`, the activity a finished run
records its turn with; `turns`, a session's kept turns (the router reads the last to place a follow-up); and
`prompt_section`, what an agent or the router's model gets of them: the newest that fit the token budget
(`WRITING_MEMORY_BUDGET_TOKENS`, about one token per Chinese character), oldest first, each answer cut."""

import asyncio
from functools import partial

from models.writing import nodes
from models.writing.sessions import SessionTurn, TurnIn, TurnRecorded
from stores.writing_projects import ProjectStore
from stores.writing_sessions import SessionStore, capped

PROMPT_ANSWER_CHARS = 600
"""An earlier answer in a prompt: its start, enough to know what was proposed (the store keeps more)."""


class ConversationMemory:
    """The sessions' turns: recorded by finished runs, read by the router and the agents."""

    def __init__(self, store: SessionStore, budget_tokens: int, projects: ProjectStore) -> None:
        self._store = store
        self._budget = budget_tokens
        self._projects = projects

    @nodes.RECORD_TURN.defn
    async def record_turn(self, turn: TurnIn) -> TurnRecorded:
        """The turn kept, unless its project was deleted meanwhile (a run still going when the writer deleted it)."""
        exists = partial(self._projects.has_project, turn.owner, turn.project_id)
        return TurnRecorded(kept=await asyncio.to_thread(self._store.record, turn, exists))

    async def turns(self, owner: str | None, project_id: str | None, session_id: str | None) -> list[SessionTurn]:
        """The session's kept turns, oldest first; none outside a session."""
        if not (owner and project_id and session_id):
            return []
        return await asyncio.to_thread(self._store.turns, owner, project_id, session_id)

    def prompt_section(self, turns: list[SessionTurn]) -> str | None:
        """The newest of `turns` that fit the budget, as a prompt section; None when none does."""
        return conversation_section(within_budget(turns, self._budget))


def within_budget(turns: list[SessionTurn], budget_tokens: int) -> list[SessionTurn]:
    """The newest turns whose prompt lines fit `budget_tokens` together, oldest first."""
    kept: list[SessionTurn] = []
    used = 0
    for turn in reversed(turns):
        used += len(_turn_lines(turn))
        if used > budget_tokens:
            break
        kept.append(turn)
    return kept[::-1]


def conversation_section(turns: list[SessionTurn]) -> str | None:
    """The prompt section of the recent turns; None when there are none."""
    if not turns:
        return None
    return "## 本次对话中之前的几轮（旧的在前）\n" + "\n".join(_turn_lines(turn) for turn in turns)


def _turn_lines(turn: SessionTurn) -> str:
    target = f"（目标：第{turn.target_chapter_position}章）" if turn.target_chapter_position is not None else ""
    intent = f"[{turn.intent.value}]" if turn.intent else ""
    return f"- 作者{intent}：{turn.text}{target}\n  助手：{capped(turn.answer, PROMPT_ANSWER_CHARS)}"
