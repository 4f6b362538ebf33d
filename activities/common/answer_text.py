"""What a JSON-answering agent's answer reads like while the model writes it, for every family: the string values
its `Layout` names, each with the words that join it to the next ("A. title: summary", one item a line), streamed
to the run as they form.

These agents ask for JSON (their structured output is what the run stores), so their raw stream is braces and
keys. `ReadableAnswer` reads it with `llm.json_stream.JsonStrings` and streams only the values its layout names
through a `ContentStreamer`: the first words reach the run one signal after the model wrote them. The request
does not change (same schema, same JSON mode, same repair round), so the answer the run stores is exactly what it
was. Reasoning never reaches it: the client's stream carries no `<think>` text (`llm.reasoning.ThinkFilter` in
the adapters). When the answer is parsed, `finish` makes sure the run shows the stored answer: if what streamed
differs from its layout (a repaired answer, prose around the JSON that braces confused), a new round replaces it
with the answer as stored. An agent that asks several questions streams each answer after the last
(`next_question`). Each family's layouts live with its agents (`activities.<family>.answer_text`).
"""

from collections.abc import Sequence

from pydantic import BaseModel

from activities.common.streaming import ContentStreamer
from llm.json_stream import JsonStrings, Path, StringPiece
from models.streaming import StreamTarget

Layout = dict[tuple[str, ...], tuple[str, str]]
"""A string value's path (list indices as "*") → the words before it and after it; values not named are not shown."""

COLON = {True: ": ", False: "："}
"""Between a label and what follows it, by whether the request is English."""
QUESTION_JOIN = "\n\n"
"""Between the answers of an agent's successive questions."""


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


def shown_answer(target: StreamTarget | None, agent: str, shape: Layout | None) -> ReadableAnswer | None:
    """Where an agent streams its JSON answer's readable part; None when its request says nowhere to (offline, a
    run recorded before its family streamed) or the answer has no layout."""
    if target is None or shape is None:
        return None
    return ReadableAnswer(ContentStreamer(target, agent), shape)


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
