"""`activities.common.answer_text`, on the writing family's layouts (`activities.writing.answer_text`): how a
JSON-answering agent's answer reads while it streams (the layout of its values), and what the run shows of the
stored answer."""

import json

from pydantic import BaseModel

from activities.common.answer_text import ReadableAnswer, readable
from activities.writing.answer_text import layout
from llm.json_stream import JsonStrings
from models.writing.agents import AgentName

IDEAS = {
    "options": [
        {"id": "A", "title": "The watch", "summary": "The film is in the watch"},
        {"id": "B", "title": "Her father", "summary": "He owns the boat"},
    ],
    "text": "Two ways on.",
}


def shown(agent: AgentName, document: object, english: bool, size: int = 5) -> str:
    shape = layout(agent, english)
    assert shape is not None
    text, strings = "", JsonStrings()
    raw = json.dumps(document, ensure_ascii=False)
    for i in range(0, len(raw), size):
        text += readable(strings.feed(raw[i : i + size]), shape, started=bool(text))
    return text


def test_the_brainstorm_reads_as_one_option_a_line_then_its_text() -> None:
    assert shown(AgentName.BRAINSTORM, IDEAS, english=True) == (
        "A. The watch: The film is in the watch\nB. Her father: He owns the boat\n\nTwo ways on."
    )


def test_the_planner_and_the_character_agent_read_as_lines_in_the_requests_language() -> None:
    outline = {
        "sections": [{"position": 1, "title": "怀表", "summary": "林舟打开怀表。", "plotLoops": []}],
        "plot_loops": [{"title": "胶卷", "description": "谁拍的"}],
        "text": "大纲",
    }
    cast = {"characters": [{"name": "林舟", "role": "警探", "description": "沉默"}], "relationships": [], "text": "好"}

    assert shown(AgentName.PLANNER, outline, english=False) == "怀表：林舟打开怀表。\n胶卷：谁拍的\n\n大纲"
    assert shown(AgentName.CHARACTER, cast, english=False) == "林舟 · 警探：沉默\n\n好"


def test_an_answer_whose_text_comes_first_does_not_start_with_a_blank_line() -> None:
    assert shown(AgentName.BRAINSTORM, {"text": "Two ways on.", "options": []}, english=True) == "Two ways on."


def test_only_the_json_answering_agents_have_a_layout() -> None:
    assert layout(AgentName.WRITER, True) is None and layout(AgentName.SIMPLE, True) is None


class Streamer:
    """What `ReadableAnswer` needs of a `ContentStreamer`, signalling nothing: the rounds of text it was given."""

    def __init__(self) -> None:
        self.rounds = [""]
        self.streamed = False

    @property
    def sent(self) -> str:
        return self.rounds[-1]

    async def add(self, text: str) -> None:
        self.rounds[-1] += text
        self.streamed = self.streamed or bool(text)

    async def flush(self) -> None:
        return None

    def restart(self) -> None:
        if self.rounds[-1]:
            self.rounds.append("")


class Review(BaseModel):
    """A consistency answer's shape, as far as its layout reads it."""

    issues: list[dict[str, str]]
    text: str


async def test_the_consistency_agents_questions_show_one_after_the_other_and_a_repair_restarts_only_its_own() -> None:
    streamer = Streamer()
    shape = layout(AgentName.CONSISTENCY, english=True)
    assert shape is not None
    first = ReadableAnswer(streamer, shape)  # type: ignore[arg-type]
    one = Review(issues=[{"message": "Blue eyes, not black"}], text="Chapters 1-2.")
    await first.add(one.model_dump_json())
    await first.answer_ended()
    assert await first.finish(one)

    second = first.next_question()
    await second.add('{"issues": [], "text": "Wrong')
    await second.answer_ended()
    two = Review(issues=[], text="Chapter 3 is fine.")
    await second.add(two.model_dump_json())
    await second.answer_ended()
    await second.finish(two)

    shown = "- Blue eyes, not black\n\nChapters 1-2."
    assert streamer.rounds == [f"{shown}\n\nWrong", f"{shown}\n\nChapter 3 is fine."], "the repair round restarts"
