"""Preflight: empty and short chapters, duplicate titles, a paragraph repeated verbatim, characters no chapter
mentions and chapters that mention no character; a healthy project gives nothing."""

from activities.writing.preflight import MIN_REPEATED_CHARS, SHORT_CHAPTER_CHARS, preflight
from tests.unit.writing.test_story_facts import make_chapter, make_character

LONG = "林舟背着行囊走进青石城，城门下人来人往，叫卖声此起彼伏。" * 5
CAST = [make_character("林舟"), make_character("沈青衣")]


def test_a_healthy_project_passes() -> None:
    chapters = [make_chapter(1, "入城", LONG), make_chapter(2, "夜雨", LONG.replace("林舟", "沈青衣"))]
    assert preflight(chapters, CAST) == []


def test_empty_and_short_chapters() -> None:
    chapters = [make_chapter(1, "入城", LONG), make_chapter(2, "空白", "  \n"), make_chapter(3, "短章", "林舟来了。")]
    issues = preflight(chapters, CAST[:1])
    assert [(i.kind, i.severity, i.location and i.location.chapter_position) for i in issues] == [
        ("empty_chapter", "warning", 2),
        ("short_chapter", "info", 3),
    ]
    assert len("林舟来了。") < SHORT_CHAPTER_CHARS


def test_a_duplicate_title_is_reported_at_the_later_chapter() -> None:
    chapters = [make_chapter(2, "夜雨", LONG), make_chapter(1, "夜雨 ", LONG.replace("青石城", "北山城"))]
    issues = preflight(chapters, CAST[:1])
    assert [(i.kind, i.location and i.location.chapter_id) for i in issues] == [("duplicate_title", "ch2")]
    assert "第1章" in issues[0].message


def test_a_repeated_paragraph_is_located_exactly_at_its_later_copy() -> None:
    paragraph = "沈青衣撑着伞走来，递给林舟一块玉佩，玉佩上刻着一个古老的“苏”字。"
    assert len(paragraph) >= MIN_REPEATED_CHARS
    first = f"{LONG}\n{paragraph}"
    second = f"{LONG.replace('林舟', '沈青衣')}\n\n   {paragraph}  \n尾声。"
    issues = preflight([make_chapter(1, "一", first), make_chapter(2, "二", second)], CAST)
    repeated = [i for i in issues if i.kind == "repeated_passage"]
    assert len(repeated) == 1
    location = repeated[0].location
    assert location is not None and location.chapter_position == 2
    assert second[location.start : location.end] == paragraph
    assert "第1章" in repeated[0].message


def test_short_paragraphs_may_repeat() -> None:
    chapters = [make_chapter(1, "一", f"{LONG}\n雨停了。"), make_chapter(2, "二", f"{LONG}\n雨停了。")]
    assert [i.kind for i in preflight(chapters, CAST[:1])] == ["repeated_passage"]  # only the long paragraph


def test_characters_never_mentioned_and_chapters_without_characters() -> None:
    chapters = [make_chapter(1, "入城", LONG), make_chapter(2, "风景", "远山如黛，" * 30)]
    issues = preflight(chapters, [*CAST, make_character("顾远")])
    assert [(i.kind, i.severity) for i in issues] == [
        ("no_known_characters", "info"),
        ("unmentioned_character", "info"),
        ("unmentioned_character", "info"),
    ]
    assert issues[0].location is not None and issues[0].location.chapter_position == 2
    assert ["沈青衣" in issues[1].message, "顾远" in issues[2].message] == [True, True]


def test_an_english_requests_preflight_findings_are_english() -> None:
    """Issue 28 item 7: every kind of preflight finding, message and suggestion, in English."""
    paragraph = "Mara Vell walked into Greyhaven Docks after midnight, and the tide was already turning. " * 2
    chapters = [
        make_chapter(1, "Harbor", paragraph),
        make_chapter(2, "Harbor", paragraph),
        make_chapter(3, "Blank", " "),
        make_chapter(4, "Brief", "Rain fell."),
    ]
    cast = [make_character("Mara"), make_character("Tom")]

    issues = preflight(chapters, cast, english=True)

    kinds = {issue.kind: issue.message for issue in issues}
    assert kinds == {
        "empty_chapter": "Chapter 3 (Blank) has no text yet.",
        "short_chapter": "Chapter 4 (Brief) has only 10 characters; it may not be finished.",
        "duplicate_title": "Chapters 1 and 2 share a title: Harbor.",
        "repeated_passage": "A paragraph of chapter 2 repeats the one at character 0 of chapter 1 word for word.",
        "no_known_characters": "Chapter 4 (Brief) mentions none of the characters in the character list.",
        "unmentioned_character": "Tom does not appear in any chapter yet.",
    }
    assert all(issue.suggestion is None or issue.suggestion.isascii() for issue in issues)
