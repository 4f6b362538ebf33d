"""`edges_in_text` reads a design's relationship lines in both languages: `- 甲 → 乙（师徒）：说明` and the English
design's `- Wren Hale → Mara Vell (mentor): description`, whose names have spaces."""

from activities.writing.offline_agents import compose
from activities.writing.relationship_edges import edges_in_text
from models.writing.agents import AgentName, RelationshipEdge
from models.writing.intents import WritingIntent
from tests.unit.writing.test_offline_agents import CHAPTERS, request


def test_chinese_lines_are_read_as_before() -> None:
    text = "周野是码头的走私头目。\n关系：\n- 周野 → 林舟（旧识）：当年一起在码头长大\n- 周野->阿九(手下)"

    assert edges_in_text(text) == [
        RelationshipEdge(source="周野", target="林舟", kind="旧识", description="当年一起在码头长大"),
        RelationshipEdge(source="周野", target="阿九", kind="手下", description=""),
    ]


def test_english_lines_keep_names_with_spaces() -> None:
    text = "Relationships:\n- Wren Hale → Mara Vell (mentor): taught her the trade\n* Mary-Jane -> Tom (rival)"

    assert edges_in_text(text) == [
        RelationshipEdge(source="Wren Hale", target="Mara Vell", kind="mentor", description="taught her the trade"),
        RelationshipEdge(source="Mary-Jane", target="Tom", kind="rival", description=""),
    ]


def test_both_offline_designs_text_yields_their_own_relationships() -> None:
    for text in ("帮我设计一个反派", "Design a new villain for the story"):
        design = compose(request(AgentName.CHARACTER, WritingIntent.PLAN_CHARACTER, text), CHAPTERS)

        assert design.relationships and edges_in_text(design.text) == design.relationships
