"""What a JSON-answering agent's answer reads like while the model writes it: the brainstorm's options, the
planner's sections, the character agent's cast, the consistency agent's findings (one question per chunk of
chapters, each answer after the last), then each answer's `text`, streamed to the run as they form.

These agents ask for JSON (their structured output is what the run stores), so their raw stream is braces and
keys. `ReadableAnswer` reads it with `llm.json_stream.JsonStrings` and streams only the string values its
agent's `LAYOUTS` names, each with the words that join it to the next ("A. title: summary", one option a line),
through the same `ContentStreamer` as the Writer's prose: the first words reach the run one signal after the
model wrote them. The request does not change (same schema, same JSON mode, same repair round), so the answer
the run stores is exactly what it was. Reasoning never reaches it: the client's stream carries no `<think>`
text (`llm.reasoning.ThinkFilter` in the adapters). When the answer is parsed, `finish` makes sure the run
shows the stored answer: if what streamed differs from its layout (a repaired answer, prose around the JSON
that braces confused), a new round replaces it with the answer as stored.
"""

from collections.abc import Sequence

from pydantic import BaseModel

from activities.writing.streaming import ContentStreamer
from llm.json_stream import JsonStrings, Path, StringPiece
from models.writing.agents import AgentName

Layout = dict[tuple[str, ...], tuple[str, str]]
"""A string value's path (list indices as "*") → the words before it and after it; values not named are not shown."""

COLON = {True: ": ", False: "："}
"""Between a label and what follows it, by whether the request is English."""
QUESTION_JOIN = "\n\n"
"""Between the answers of an agent's successive questions."""


def layout(agent: AgentName, english: bool) -> Layout | None:
    """How `agent`'s JSON answer reads (None: the agent does not answer in one JSON question)."""
    colon = COLON[english]
    lines: Layout
    if agent is AgentName.BRAINSTORM:
        lines = {
            ("options", "*", "id"): ("", ". "),
            ("options", "*", "title"): ("", colon),
            ("options", "*", "summary"): ("", "\n"),
        }
    elif agent is AgentName.PLANNER:
        lines = {
            ("sections", "*", "title"): ("", colon),
            ("sections", "*", "summary"): ("", "\n"),
            ("plot_loops", "*", "title"): ("", colon),
            ("plot_loops", "*", "description"): ("", "\n"),
        }
    elif agent is AgentName.CONSISTENCY:
        lines = {("issues", "*", "message"): ("- ", "\n")}
    elif agent is AgentName.CHARACTER:
        lines = {
            ("characters", "*", "name"): ("", " · "),
            ("characters", "*", "role"): ("", colon),
            ("characters", "*", "description"): ("", "\n"),
        }
    else:
        return None
    return {**lines, ("text",): ("\n", "")}


class ReadableAnswer:
    """Streams the readable part of a JSON answer as it is written (each round of the question from the start);
    `next_question` streams a further question's answer after it (the consistency agent's chunks)."""

    def __init__(self, streamer: ContentStreamer, shape: Layout, before: str = "") -> None:
        self._streamer = streamer
        self._layout = shape
        self._before = before
        """What the earlier questions showed: this one's text follows it after `QUESTION_JOIN`."""
        self._strings = JsonStrings()
        self._own = ""
        """What this question's current answer has shown."""
        self._ended = False
        """An answer that showed text ended: more text is the repair round's answer, shown from the start."""

    async def add(self, delta: str) -> None:
        shown = readable(self._strings.feed(delta), self._layout, started=bool(self._own) and not self._ended)
        if not shown:
            return
        if self._ended:
            self._streamer.restart()
            self._ended, self._own = False, ""
            await self._streamer.add(self._lead())
        elif not self._own and self._before:
            await self._streamer.add(QUESTION_JOIN)
        self._own += shown
        await self._streamer.add(shown)

    async def answer_ended(self) -> None:
        await self._streamer.flush()
        self._strings = JsonStrings()
        self._ended = bool(self._own)

    async def finish(self, answer: BaseModel) -> bool:
        """The stored `answer` as the run's text: what streamed if it reads the same, else a new round with it.
        Returns whether the run got any text."""
        await self._streamer.flush()
        own = readable(JsonStrings().feed(answer.model_dump_json(by_alias=True)), self._layout, started=False)
        stored = self._lead() + own if own else self._before
        if stored != self._streamer.sent:
            self._streamer.restart()
            await self._streamer.add(stored)
            await self._streamer.flush()
        return self._streamer.streamed

    def next_question(self) -> "ReadableAnswer":
        """Where the next question's answer streams, after what this one showed (call after `finish`)."""
        return ReadableAnswer(self._streamer, self._layout, before=self._streamer.sent)

    def _lead(self) -> str:
        return self._before + QUESTION_JOIN if self._before else ""


def readable(pieces: Sequence[StringPiece], shape: Layout, *, started: bool) -> str:
    """The shown text of `pieces`: each shown value's words before its first piece and after its last; the words
    before the very first text of the answer (`started` False) lose their leading line breaks."""
    out: list[str] = []
    for piece in pieces:
        words = shape.get(_pattern(piece.path))
        if words is None:
            continue
        before, after = words
        if piece.first:
            out.append(before if started or out else before.lstrip("\n"))
        out.append(piece.text)
        if piece.last:
            out.append(after)
    return "".join(out)


def _pattern(path: Path) -> tuple[str, ...]:
    return tuple("*" if isinstance(step, int) else step for step in path)
