"""The deterministic consistency checks, rule by rule: each issue is caught with its exact place (`text[start:end]`
is the matched span, the excerpt surrounds it), and clean texts give none."""

from activities.writing.consistency import check_chapters, check_draft, described_traits, edit_distance
from activities.writing.story_facts import DECEASED
from models.writing.context import CharacterState, ConsistencyIssue
from tests.unit.writing.test_story_facts import make_chapter


def state(name: str, description: str = "", status: str | None = None) -> CharacterState:
    return CharacterState(character_id=f"id-{name}", name=name, description=description, status=status)


CAST = [
    state("林舟", "少年剑客，黑发，蓝眼睛。"),
    state("苏念", "林舟的师父。", DECEASED),
    state("沈青衣", "神秘女子。"),
    state("Mara Venn", "A ranger.", DECEASED),
    state("Elena", "A healer with green eyes."),
]


def spans(text: str, issues: list[ConsistencyIssue], kind: str) -> list[str]:
    """The spans of the issues of one kind, checked against their offsets and excerpts on the way."""
    found = []
    for issue in issues:
        if issue.kind != kind:
            continue
        assert issue.location is not None
        span = text[issue.location.start : issue.location.end]
        assert span in issue.location.excerpt
        found.append(span)
    return found


def test_a_clean_draft_has_no_issues() -> None:
    draft = (
        "林舟沿着北山的小路往前走，林中很静。“走吧。”沈青衣说。林舟想起苏念说过的话，心里一紧。"
        "苏念的剑还挂在墙上。他对苏念的墓碑鞠了一躬。Elena smiled. Elena remembered how Mara laughed."
    )
    assert check_draft(draft, CAST) == []


def test_a_dead_character_who_speaks_or_acts_is_an_error_at_the_name_and_verb() -> None:
    draft = "夜深了。苏念缓缓站起身，看向窗外。“Go,” said Mara. Mara Venn walked in."
    issues = check_draft(draft, CAST)
    assert spans(draft, issues, "dead_character_acts") == ["苏念缓缓站", "said Mara"]  # once each, at the first
    assert "（共2处）" in issues[1].message
    first = issues[0]
    assert (first.severity, first.location and first.location.source) == ("error", "draft")
    assert first.location is not None and first.location.start == draft.index("苏念")
    assert "苏念" in first.message


def test_a_dead_character_as_possessive_object_or_memory_does_not_act() -> None:
    draft = "苏念的剑断了。林舟对苏念说了最后一句话。林舟梦见苏念笑着向他走来。Mara's blade was cold."
    assert check_draft(draft, CAST) == []


def test_a_living_character_may_act() -> None:
    draft = "林舟笑了。沈青衣站起身。Elena said nothing."
    assert check_draft(draft, CAST) == []


def test_a_near_miss_of_a_known_name_is_a_variant_with_the_known_name_as_suggestion() -> None:
    draft = "林洲说：“走吧。”沈青依点头。Elana smiled. 林中的风很冷。"
    issues = check_draft(draft, CAST)
    assert spans(draft, issues, "name_variant") == ["林洲", "沈青依", "Elana"]
    assert [i.suggestion for i in issues if i.kind == "name_variant"] == ["林舟", "沈青衣", "Elena"]
    assert all(i.severity == "warning" for i in issues if i.kind == "name_variant")
    assert spans(draft, issues, "unknown_character") == []  # a variant is not also a new name


def test_a_variant_is_reported_once_per_spelling() -> None:
    draft = "林洲说。林洲笑了。"
    assert spans(draft, check_draft(draft, CAST), "name_variant") == ["林洲"]


def test_a_new_name_quoted_or_introduced_is_info() -> None:
    draft = "门外站着一个名叫顾远的少年。“陈默”这个名字他没听过。A man named John Reed came. “陈默！”"
    issues = check_draft(draft, CAST)
    assert spans(draft, issues, "unknown_character") == ["顾远", "陈默", "John Reed"]
    assert all(i.severity == "info" and i.suggestion for i in issues if i.kind == "unknown_character")


def test_dialogue_and_known_names_in_quotes_are_not_new_names() -> None:
    draft = "“走吧。”“林舟”“好的”“Wait”「北山」“名叫青石城”"
    assert check_draft(draft, CAST) == []


def test_clean_chapters_have_no_issues() -> None:
    chapters = [
        make_chapter(
            1, "入城", "林舟背着行囊走进青石城。师父苏念站在城门下，笑着说：“记住，剑在人在。”林舟的蓝眼睛亮了。"
        ),
        make_chapter(2, "夜雨", "苏念为了掩护林舟，在北山脚下牺牲了。林舟跪在雨里，黑发贴在额前。"),
        make_chapter(3, "余波", "林舟想起苏念笑着说话的样子。沈青衣撑着伞走来，看着林舟。"),
    ]
    assert check_chapters(chapters, CAST) == []


def test_a_character_who_died_and_acts_in_a_later_chapter_is_an_error_located_in_that_chapter() -> None:
    chapters = [
        make_chapter(1, "入城", "苏念站在城门下。"),
        make_chapter(2, "夜雨", "苏念在北山脚下牺牲了。"),
        make_chapter(3, "归来", "雨停了。苏念推门走了进来。"),
    ]
    issues = check_chapters(chapters, [state("苏念", "林舟的师父")])
    assert [i.kind for i in issues] == ["dead_character_acts"]
    location = issues[0].location
    assert location is not None
    assert (location.source, location.chapter_id, location.chapter_position) == ("chapter", "ch3", 3)
    assert chapters[2].content[location.start : location.end] == "苏念推"
    assert "第2章" in issues[0].message


def test_name_variants_are_found_in_each_chapter() -> None:
    chapters = [make_chapter(1, "一", "林舟点头。"), make_chapter(2, "二", "林洲点头。")]
    issues = check_chapters(chapters, CAST)
    assert [(i.kind, i.location and i.location.chapter_position, i.suggestion) for i in issues] == [
        ("name_variant", 2, "林舟")
    ]


def test_a_colour_against_the_description_is_a_trait_conflict() -> None:
    text = "林舟眯起黑色的眼睛。林舟看着沈青衣那双黑色的眼睛。林舟的蓝眼睛。Elena's brown eyes narrowed."
    issues = check_chapters([make_chapter(4, "对峙", text)], CAST)
    assert spans(text, issues, "trait_conflict") == ["黑色的眼睛", "brown eyes"]
    assert [i.suggestion for i in issues] == ["蓝色眼睛", "绿色眼睛"]
    assert all(i.severity == "warning" for i in issues)


def test_described_traits_read_eye_and_hair_colours() -> None:
    assert described_traits("银发，湛蓝色的眼眸，发现了秘密") == {"头发": {"白"}, "眼睛": {"蓝"}}
    assert described_traits("red-haired, hazel eyes") == {"头发": {"红"}, "眼睛": {"棕"}}


def test_edit_distance() -> None:
    assert edit_distance("Elena", "Elana") == 1
    assert edit_distance("Elena", "Elen") == 1
    assert edit_distance("Elena", "Elenna") == 1
    assert edit_distance("Elena", "Alina") == 2


def test_an_english_requests_findings_are_english() -> None:
    """Issue 28 item 7: for a request written in English every finding and suggestion is English."""
    draft = '"Go," said Mara. Elana waved. A woman named Ash Grey smiled.'
    chapters = [
        make_chapter(1, "Harbor", "Mara Venn died that night."),
        make_chapter(2, "Ledger", "Mara Venn walked in. Elena narrowed her brown eyes."),
    ]

    in_draft = check_draft(draft, CAST, english=True)
    in_chapters = check_chapters(chapters, CAST, english=True)

    said = {issue.kind: (issue.message, issue.suggestion) for issue in in_draft}
    assert said["dead_character_acts"][0] == 'Mara Venn is dead, yet speaks or acts in the draft: "said Mara".'
    assert said["unknown_character"][0] == 'The draft introduces a new name, "Ash Grey", not in the character list.'
    assert said["name_variant"] == (
        '"Elana" in the draft is one letter away from the character name "Elena": maybe a typo.',
        "Elena",
    )
    across = {issue.kind: (issue.message, issue.suggestion) for issue in in_chapters}
    assert across["dead_character_acts"][0] == (
        'Mara Venn died in chapter 1, yet speaks or acts in chapter 2: "Mara Venn walked".'
    )
    assert across["trait_conflict"] == (
        "Chapter 2 gives Elena brown eyes; the character's description says green.",
        "green eyes",
    )
    found = in_draft + in_chapters
    assert all(c.isascii() for issue in found for c in f"{issue.message}{issue.suggestion or ''}"), (said, across)
