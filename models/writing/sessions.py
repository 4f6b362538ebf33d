"""A writing conversation's memory (issue 28): the turns a session (`sessionId`) keeps, what a run records as its
turn, and what the console reads (`GET /v1/writing/projects/{projectId}/sessions/{sessionId}/turns`)."""

from datetime import datetime

from pydantic import Field

from models.base import CamelModel
from models.writing.intents import WritingIntent

TURN_TEXT_CHARS = 2000
"""Each turn's request and answer are kept up to this many characters (the rest is cut off, marked `…`)."""


class TurnIn(CamelModel):
    """What a finished run records as its session's next turn."""

    owner: str
    project_id: str
    session_id: str
    run_id: str
    text: str
    intent: WritingIntent | None = None
    answer: str = ""
    target_chapter_id: str | None = None
    target_chapter_position: int | None = None


class TurnRecorded(CamelModel):
    """How many turns the session keeps after the new one (at most the setting's `writing_memory_turns`)."""

    kept: int


class SessionTurn(CamelModel):
    """One turn of a conversation: the writer's words, the intent, the answer (cut to `TURN_TEXT_CHARS`), the
    run that answered and when; a revision names the chapter it targets."""

    run_id: str
    text: str
    intent: WritingIntent | None = None
    answer: str = ""
    target_chapter_id: str | None = None
    target_chapter_position: int | None = None
    created_at: datetime


class SessionTurns(CamelModel):
    """A session's kept turns, oldest first."""

    session_id: str
    turns: list[SessionTurn] = Field(default_factory=list)
