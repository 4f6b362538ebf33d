"""Story facts: where names occur, which status a description or a chapter gives a character (and to whom a
status keyword belongs), and the character states preprocessing hands the agents. Also the chapter and character
factories the other writing unit tests use."""

from datetime import UTC, datetime

import pytest

from activities.writing.story_facts import (
    DECEASED,
    INJURED,
    MISSING,
    character_states,
    description_status,
    name_occurrences,
    split_sentences,
    status_mentions,
)
from models.writing.projects import Chapter, Character

WHEN = datetime(2024, 5, 1, tzinfo=UTC)


def make_chapter(position: int, title: str, content: str) -> Chapter:
    return Chapter(
        chapter_id=f"ch{position}", project_id="p1", position=position, title=title, content=content, updated_at=WHEN
    )


def make_character(name: str, description: str = "") -> Character:
    return Character(character_id=f"id-{name}", project_id="p1", name=name, description=description, updated_at=WHEN)


def test_names_are_found_whole_and_the_longer_name_wins_an_overlap() -> None:
    text = "苏念雪看着苏念。Mara met Marabel; Mara Venn left."
    found = [(o.name, text[o.start : o.end]) for o in name_occurrences(text, ["苏念", "苏念雪", "Mara Venn"])]
    assert found == [("苏念雪", "苏念雪"), ("苏念", "苏念"), ("Mara Venn", "Mara"), ("Mara Venn", "Mara Venn")]


def test_sentences_keep_their_end_punctuation_and_closing_quote() -> None:
    text = "他停下。“走吧！”她说\n第二行. Then English? Yes"
    assert split_sentences(text) == ["他停下。", "“走吧！”", "她说", "第二行.", "Then English?", "Yes"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("苏念为了掩护林舟，在北山脚下牺牲了。", [("苏念", DECEASED)]),
        ("林舟看着苏念死去。", [("苏念", DECEASED)]),
        ("苏念倒在林舟怀里，死去了。", [("苏念", DECEASED)]),
        ("林舟跪在死去的苏念身旁。", [("苏念", DECEASED)]),
        ("林舟想起牺牲的战友。", []),
        ("林舟没有死去，只是受了重伤。", [("林舟", INJURED)]),
        ("林舟差点死了。", []),
        ("林舟累死了。", []),
        ("林舟在雪原上失踪了。", [("林舟", MISSING)]),
        ("Mara died at dawn.", [("Mara", DECEASED)]),
        ("Mara never died.", []),
    ],
)
def test_a_status_keyword_belongs_to_the_right_name(text: str, expected: list[tuple[str, str]]) -> None:
    mentions = status_mentions(text, ["林舟", "苏念", "Mara"])
    assert [(m.name, m.status) for m in mentions] == expected
    for mention in mentions:
        assert text[mention.start : mention.end]  # the keyword's own span


def test_a_description_gives_its_own_characters_status_not_someone_elses() -> None:
    assert description_status("曾身受重伤，后来在战乱中去世。") == DECEASED
    assert description_status("他已故的师父留下了一把剑。") is None
    assert description_status("已故的剑客，生前是林舟的师父。") == DECEASED
    assert description_status("下落不明多年。") == MISSING
    assert description_status("没有受伤。") is None
    assert description_status("A knight, wounded at the siege.") == INJURED


def test_character_states_count_mentions_and_take_the_latest_status() -> None:
    chapters = [
        make_chapter(2, "夜雨", "苏念在北山脚下牺牲了。林舟跪在雨里。"),
        make_chapter(1, "入城", "林舟走进青石城。苏念受伤了，林舟扶着他。"),
        make_chapter(3, "余波", "沈青衣撑伞走来。"),
    ]
    characters = [
        make_character("林舟", "少年剑客"),
        make_character("苏念", "林舟的师父"),
        make_character("沈青衣", "下落不明的神秘女子"),
        make_character("顾远", "还没出场"),
    ]
    states = {s.name: s for s in character_states(characters, chapters)}
    assert (states["林舟"].mentions, states["林舟"].last_seen_chapter, states["林舟"].status) == (3, 2, None)
    assert (states["苏念"].mentions, states["苏念"].last_seen_chapter, states["苏念"].status) == (2, 2, DECEASED)
    assert states["沈青衣"].status == MISSING  # from the description: no chapter says otherwise
    assert (states["顾远"].mentions, states["顾远"].last_seen_chapter) == (0, None)
    assert states["苏念"].character_id == "id-苏念"


def test_a_chapter_status_wins_over_the_description() -> None:
    chapters = [make_chapter(1, "归来", "沈青衣回到城里时受伤了。")]
    states = character_states([make_character("沈青衣", "失踪多年")], chapters)
    assert states[0].status == INJURED
