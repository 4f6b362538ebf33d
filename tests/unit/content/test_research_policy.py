"""The offline research loop, driven turn by turn with the real tools' results fed back as the conversation:
search first, then extract from the best notes, then findings (statistics first, the outline b1..b4 headed by the
facts); without notes, or without hits, it answers sooner."""

import re

from activities.content.offline.research import headline, research_turn
from activities.content.offline.research_tools import run_research_tool
from llm.tools import ToolError
from llm.types import Message, ToolCall, ToolResultPart
from models.content.agents import ContentView
from models.content.artifacts import CreativeBrief, ResearchFindings
from models.content.turns import Turn, TurnRequest

CJK = re.compile(r"[\u4e00-\u9fff]")

NOTES = [
    "今天天气很好，适合出门散步。",
    "2023年，中国咖啡消费量同比增长15%，一线城市人均每年喝咖啡超过300杯。专家说：“咖啡因每天不宜超过400毫克。”",
    "上班族午休时间平均只有60分钟。午休小睡20分钟可以提升下午的专注力。很多上班族午饭后习惯喝一杯咖啡提神。",
    "手冲咖啡的风味取决于研磨度、水温和萃取时间。建议新手从固定参数开始慢慢调整。",
]
BRIEF = CreativeBrief(
    topic="上班族的咖啡指南",
    platform="xiaohongshu",
    audience="职场人",
    tone="亲切种草",
    key_messages=["咖啡提神的正确方式", "手冲咖啡的风味", "午休与咖啡因"],
    call_to_action="点赞收藏",
)


def turn_request(conversation: list[Message], brief: CreativeBrief | None = BRIEF, **extra: object) -> TurnRequest:
    view = ContentView(topic="上班族的咖啡指南", platform="xiaohongshu", creative_brief=brief)
    return TurnRequest.model_validate({"loop": "research", "view": view, "conversation": conversation, **extra})


def results_of(turn: Turn, notes: list[str]) -> Message:
    parts = []
    for tool_call in turn.tool_calls:
        try:
            content, _ = run_research_tool(tool_call, notes)
            parts.append(ToolResultPart(call_id=tool_call.id, name=tool_call.name, content=content))
        except ToolError as err:
            parts.append(ToolResultPart(call_id=tool_call.id, name=tool_call.name, content=str(err), is_error=True))
    return Message.tool_results(parts)


def drive(
    notes: list[str], brief: CreativeBrief | None = BRIEF, focus_areas: tuple[str, ...] = ()
) -> tuple[list[Turn], ResearchFindings]:
    """Runs the loop to its end the way the workflow does: each turn's calls run and their results appended."""
    conversation: list[Message] = []
    turns: list[Turn] = []
    for _ in range(10):
        result = research_turn(turn_request(conversation, brief, focus_areas=list(focus_areas)), notes)
        if isinstance(result, ResearchFindings):
            return turns, result
        turns.append(result)
        conversation += [result.as_message(), results_of(result, notes)]
    raise AssertionError("the loop did not end")


def test_the_loop_searches_then_extracts_then_answers() -> None:
    turns, findings = drive(NOTES, focus_areas=("午休",))
    assert len(turns) == 2
    search, extract = turns
    assert [c.id for c in search.tool_calls] == ["search-1", "search-2", "search-3"]
    assert {c.name for c in search.tool_calls} == {"search_notes"}
    assert [c.arguments["query"] for c in search.tool_calls] == ["上班族的咖啡指南", "午休", "咖啡提神的正确方式"]
    assert [c.id for c in extract.tool_calls] == ["extract-1", "extract-2", "extract-3"]
    assert {c.name for c in extract.tool_calls} == {"extract_facts"}
    assert "note-1" not in [c.arguments["note_id"] for c in extract.tool_calls]
    assert all(turn.offline and CJK.search(turn.text) for turn in turns)
    assert findings.body_blocks


def test_the_extracted_notes_are_the_best_hits_first() -> None:
    turns, _ = drive(NOTES)
    notes = [c.arguments["note_id"] for c in turns[1].tool_calls]
    # note-4 holds the whole third query (手冲咖啡的风味), a perfect score; note-1 shares nothing with any query
    assert notes == ["note-4", "note-3", "note-2"]


def test_findings_hold_the_facts_statistics_first_and_the_brief_as_tips() -> None:
    _, findings = drive(NOTES)
    kinds = [item.kind for item in findings.items if item.source != "brief"]
    assert kinds[0] == "statistic"
    assert kinds == sorted(kinds, key=lambda kind: kind != "statistic")
    assert any("15%" in item.claim for item in findings.items)
    tips = [item for item in findings.items if item.source == "brief"]
    assert [tip.claim for tip in tips] == BRIEF.key_messages
    assert {tip.kind for tip in tips} == {"tip"}


def test_the_outline_is_headed_by_the_notes_facts_not_by_the_key_messages() -> None:
    # Was: the key messages headed the sections. They are angles ("…的平台" when the Supervisor's focus areas made
    # them), so the post's headings said nothing; the user's facts head them now (issue 29).
    _, findings = drive(NOTES)
    blocks = findings.body_blocks
    assert [b.id for b in blocks] == ["b1", "b2", "b3", "b4"]
    assert not {b.heading for b in blocks} & set(BRIEF.key_messages)
    assert all(1 <= len(b.points) <= 4 and len(b.heading) <= 30 for b in blocks)
    assert any("15%" in b.heading for b in blocks[:3]) and blocks[3].heading == "划重点"
    assert "15%" in blocks[3].points[0] and "2023年" not in blocks[3].points[0]
    every_point = [point for block in blocks[:3] for point in block.points]
    assert any("风味" in point for point in every_point)
    assert len(every_point) == len(set(every_point))


def test_a_fact_loses_its_source_in_the_heading() -> None:
    assert headline("营养师建议：每天咖啡因不超过 400 毫克。") == "每天咖啡因不超过 400 毫克"
    assert headline("Roll clothes: it saves space.") == "Roll clothes: it saves space"


def test_the_summary_is_chinese_with_counts() -> None:
    _, findings = drive(NOTES)
    facts = [item for item in findings.items if item.source != "brief"]
    assert CJK.search(findings.summary)
    assert f"{len(facts)} 条证据" in findings.summary
    assert f"{len(findings.body_blocks)} 个正文段落" in findings.summary


def test_without_notes_the_findings_come_at_once_from_the_brief() -> None:
    result = research_turn(turn_request([]), [])
    assert isinstance(result, ResearchFindings)
    assert [item.claim for item in result.items] == BRIEF.key_messages
    assert {(item.kind, item.source) for item in result.items} == {("tip", "brief")}
    assert [block.points for block in result.body_blocks] == [[m] for m in BRIEF.key_messages]


def test_when_no_note_matches_there_is_no_extraction_turn() -> None:
    turns, findings = drive(["今天天气很好。", "明天可能下雨。"])
    assert len(turns) == 1
    assert {item.source for item in findings.items} == {"brief"}


def test_failed_extractions_are_skipped() -> None:
    search = research_turn(turn_request([]), NOTES)
    assert isinstance(search, Turn)
    conversation = [search.as_message(), results_of(search, NOTES)]
    broken = Turn(tool_calls=[ToolCall(id="extract-1", name="extract_facts", arguments={"note_id": "note-99"})])
    conversation += [broken.as_message(), results_of(broken, NOTES)]
    findings = research_turn(turn_request(conversation), NOTES)
    assert isinstance(findings, ResearchFindings)
    assert {item.source for item in findings.items} == {"brief"}


def test_without_a_brief_the_topic_and_focus_areas_lead_the_search_and_the_facts_the_outline() -> None:
    turns, findings = drive(NOTES, brief=None, focus_areas=("咖啡提神",))
    assert [c.arguments["query"] for c in turns[0].tool_calls] == ["上班族的咖啡指南", "咖啡提神"]
    assert "咖啡提神" not in [block.heading for block in findings.body_blocks]
    assert findings.body_blocks[0].heading == "上班族午休时间平均只有60分钟"


def test_many_key_messages_make_at_most_four_blocks() -> None:
    brief = BRIEF.model_copy(update={"key_messages": ["咖啡", "茶", "果汁", "奶昔", "气泡水"]})
    _, findings = drive(NOTES, brief=brief)
    assert [block.id for block in findings.body_blocks] == ["b1", "b2", "b3", "b4"]


def test_the_same_conversation_gives_the_same_turn() -> None:
    first = research_turn(turn_request([]), NOTES)
    assert isinstance(first, Turn)
    conversation = [first.as_message(), results_of(first, NOTES)]
    assert research_turn(turn_request(conversation), NOTES) == research_turn(turn_request(list(conversation)), NOTES)
    assert drive(NOTES) == drive(list(NOTES))


def test_notes_the_search_did_not_use_are_named_in_the_summary() -> None:
    # Was: a note sharing no word with the topic was dropped without a word (issue 29); the user learns which.
    _, findings = drive(NOTES)
    assert "1 条笔记没有用上" in findings.summary and "「今天天气很好，适合出门散步。」" in findings.summary
    _, nothing = drive(["今天天气很好。", "明天可能下雨。"])
    assert "2 条笔记没有用上" in nothing.summary
