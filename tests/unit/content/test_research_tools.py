"""The research agent's evidence tools over the user's notes: their definitions, search relevance and excerpts,
fact extraction by kind, and one call run as JSON for the model and a Chinese line, or a `ToolError`."""

import json
import re
from typing import Any

import pytest

from activities.content.offline.research_tools import (
    RESEARCH_TOOLS,
    extract_facts,
    run_research_tool,
    search_notes,
)
from llm.tools import ToolError
from llm.types import ToolCall

CJK = re.compile(r"[\u4e00-\u9fff]")

NOTES = [
    "2023年，中国咖啡消费量同比增长15%，一线城市人均每年喝咖啡超过300杯。",
    "午休小睡20分钟可以提升下午的专注力。很多上班族午饭后习惯喝一杯咖啡提神。",
    "Office workers drink 2.5 cups of coffee per day on average. Cold brew is less acidic than hot coffee.",
    "今天天气很好，适合出门散步。",
]


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments)


def test_the_two_tools_are_defined_with_their_required_arguments() -> None:
    tools = {tool.name: tool for tool in RESEARCH_TOOLS}
    assert set(tools) == {"search_notes", "extract_facts"}
    search = tools["search_notes"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["minimum"] == 1
    assert search["properties"]["limit"]["maximum"] == 5
    assert tools["extract_facts"].input_schema["required"] == ["note_id"]
    assert all(tool.description for tool in RESEARCH_TOOLS)


def test_search_ranks_by_shared_bigrams_and_leaves_out_notes_sharing_nothing() -> None:
    hits = search_notes(NOTES, "上班族喝咖啡提神")
    assert [hit.note_id for hit in hits] == ["note-2", "note-1"]
    assert hits[0].score > hits[1].score > 0
    assert all(0 < hit.score <= 1 for hit in hits)


def test_search_matches_english_words_case_insensitively() -> None:
    hits = search_notes(NOTES, "COFFEE for office workers")
    assert [hit.note_id for hit in hits] == ["note-3"]
    assert hits[0].score == 1.0


def test_english_words_match_across_their_inflections() -> None:
    # Was: "Packing light" found nothing in "Pack one pair of shoes" (issue 29): no English note matched its topic.
    notes = ["Pack one pair of shoes and wear the bulkiest.", "Stories from the road.", "Weather is nice."]
    assert [hit.note_id for hit in search_notes(notes, "Packing light: the shoes you need")] == ["note-1"]
    assert [hit.note_id for hit in search_notes(notes, "a story")] == ["note-2"]


def test_equal_scores_keep_the_note_order() -> None:
    notes = ["咖啡很香", "天气不错", "咖啡很苦"]
    assert [hit.note_id for hit in search_notes(notes, "咖啡")] == ["note-1", "note-3"]


def test_the_limit_caps_the_hits_and_is_clamped_to_one_to_five() -> None:
    notes = [f"咖啡笔记第{i}条" for i in range(8)]
    assert len(search_notes(notes, "咖啡", limit=2)) == 2
    assert len(search_notes(notes, "咖啡", limit=50)) == 5
    assert len(search_notes(notes, "咖啡", limit=0)) == 1


def test_a_query_without_terms_finds_nothing() -> None:
    assert search_notes(NOTES, "！？ the a") == []


def test_the_excerpt_of_a_long_note_is_at_most_160_characters_around_the_match() -> None:
    note = "无关的开头。" * 60 + "冷萃咖啡的酸度更低，口感更顺滑。" + "无关的结尾。" * 60
    hit = search_notes([note], "冷萃咖啡")[0]
    assert len(hit.excerpt) <= 160
    assert "冷萃咖啡" in hit.excerpt
    assert hit.excerpt.startswith("…")
    assert hit.excerpt.endswith("…")


def test_extract_facts_sorts_sentences_into_kinds() -> None:
    text = (
        "2023年，中国咖啡消费量同比增长15%。"
        "专家说：“下午三点后尽量别再喝咖啡。”"
        "建议每天喝水不少于八杯水。"
        "手冲咖啡的风味取决于研磨度、水温和萃取时间。"
        "很好。"
        "You should avoid coffee late in the afternoon."
    )
    facts = extract_facts("note-7", text)
    assert [(f.kind, f.claim) for f in facts] == [
        ("statistic", "2023年，中国咖啡消费量同比增长15%。"),
        ("quote", "专家说：“下午三点后尽量别再喝咖啡。”"),
        ("tip", "建议每天喝水不少于八杯水。"),
        ("fact", "手冲咖啡的风味取决于研磨度、水温和萃取时间。"),
        ("tip", "You should avoid coffee late in the afternoon."),
    ]
    assert {f.source for f in facts} == {"note-7"}


@pytest.mark.parametrize(
    "sentence",
    ["全国有三万家精品咖啡馆。", "每人每周平均喝4杯咖啡。", "市场规模达到1200亿元。", "About 2 million people joined."],
)
def test_numbers_with_units_make_a_statistic(sentence: str) -> None:
    assert extract_facts("note-1", sentence)[0].kind == "statistic"


def test_at_most_eight_facts_per_note_preferring_statistics_and_claims_are_capped() -> None:
    text = "".join(f"这是第{i}条普通但足够长的事实描述句子。" for i in range(10))
    text += "其中60%的人表示满意。" + "很长的句子" * 100 + "。"
    facts = extract_facts("note-1", text)
    assert len(facts) == 8
    assert any(f.kind == "statistic" for f in facts)
    assert all(len(f.claim) <= 400 for f in facts)


def test_run_search_returns_compact_json_and_a_chinese_line() -> None:
    content, summary = run_research_tool(call("search_notes", query="上班族喝咖啡提神", limit=1), NOTES)
    decoded = json.loads(content)
    assert decoded["hits"][0]["note_id"] == "note-2"
    assert len(decoded["hits"]) == 1
    assert ", " not in content
    assert "note-2" in summary
    assert CJK.search(summary)
    assert "\n" not in summary


def test_run_extract_returns_the_facts_of_the_note() -> None:
    content, summary = run_research_tool(call("extract_facts", note_id="note-1"), NOTES)
    decoded = json.loads(content)
    assert decoded["note_id"] == "note-1"
    assert decoded["facts"][0]["kind"] == "statistic"
    assert "15%" in decoded["facts"][0]["claim"]
    assert "note-1" in summary
    assert "1 条" in summary


@pytest.mark.parametrize(
    ("tool_call", "message"),
    [
        (call("browse_web", query="咖啡"), "unknown tool"),
        (call("search_notes"), "query"),
        (call("search_notes", query="   "), "query"),
        (call("search_notes", query="咖啡", limit="many"), "limit"),
        (call("search_notes", query="咖啡", limit=True), "limit"),
        (call("extract_facts"), "note_id"),
        (call("extract_facts", note_id="note-9"), "unknown note id"),
        (call("extract_facts", note_id="note-0"), "unknown note id"),
        (call("extract_facts", note_id="第一条"), "unknown note id"),
    ],
)
def test_bad_calls_raise_a_tool_error_saying_what_is_wrong(tool_call: ToolCall, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        run_research_tool(tool_call, NOTES)


def test_the_same_call_gives_the_same_result() -> None:
    c = call("search_notes", query="咖啡", limit=5)
    assert run_research_tool(c, NOTES) == run_research_tool(c, list(NOTES))
