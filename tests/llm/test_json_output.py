"""Finding a model's JSON answer (`llm.json_output`) and keeping `<think>` reasoning out of its text
(`llm.reasoning`): where real models put the JSON, and tags split anywhere across stream chunks."""

import pytest
from pydantic import BaseModel, ValidationError

from llm.json_output import parse_model, repair_prompt
from llm.reasoning import ThinkFilter, strip_reasoning


class Verdict(BaseModel):
    """The answer the tests look for."""

    label: str
    score: int


@pytest.mark.parametrize(
    "answer",
    [
        '{"label": "ok", "score": 3}',
        '好的，结果如下：{"label": "ok", "score": 3} 以上。',
        '用 {name} 占位的提示词之后：\n{"label": "ok", "score": 3}',
        'Here:\n```json\n{"label": "ok", "score": 3}\n```\nNote: {"label": "no"} is an older draft.',
        '<think>maybe {"label": "bad", "score": "x"}</think>\n{"label": "ok", "score": 3}',
        '{"label": "ok", "score": 3,}',
        '[1, 2] then {"label": "ok", "score": 3}',
        '{"label": "a, }", "score": 3, }',
    ],
)
def test_the_first_json_object_that_validates_is_the_answer(answer: str) -> None:
    verdict = parse_model(Verdict, answer)

    assert verdict.score == 3 and verdict.label in {"ok", "a, }"}


def test_a_trailing_comma_inside_a_string_is_kept() -> None:
    assert parse_model(Verdict, '{"label": "x,]", "score": 1,}').label == "x,]"


def test_the_repair_prompt_says_what_was_wrong() -> None:
    with pytest.raises(ValidationError) as missing:
        parse_model(Verdict, "抱歉，我无法回答。")
    with pytest.raises(ValidationError) as invalid:
        parse_model(Verdict, '[1] {"label": "ok"}')

    assert "(root): Invalid JSON: no JSON object found" in repair_prompt(missing.value)
    assert "score: Field required" in repair_prompt(invalid.value), "the object's errors, not the list's"


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_think_tags_split_across_chunks_never_reach_the_text(size: int) -> None:
    text = "<think>plan {a}</think>\n\n正文开始。<think>again</think>结尾<think>unclosed at the end"
    think = ThinkFilter()

    visible = "".join(think.feed(text[i : i + size]) for i in range(0, len(text), size)) + think.finish()

    assert visible == "正文开始。结尾" == strip_reasoning(text)


def test_text_without_tags_passes_through_whole() -> None:
    think = ThinkFilter()

    assert think.feed("a < b and <thin") + think.feed("g>") + think.finish() == "a < b and <thing>"
