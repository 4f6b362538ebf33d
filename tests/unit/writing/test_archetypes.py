"""The character archetype library: a complete entry per archetype with unique ids, and the archetypes a
character request matches, by its words first and by the offline embedder's cosine otherwise."""

import pytest

from activities.writing.archetypes import archetype_library, match_archetypes


def test_the_library_has_unique_ids_and_every_field_filled() -> None:
    library = archetype_library()
    ids = [entry.id for entry in library]

    assert len(library) >= 16
    assert len(set(ids)) == len(ids)
    for entry in library:
        assert entry.name_zh and entry.name_en and entry.description
        assert entry.traits and all(entry.traits)
        assert any(word.isascii() for word in entry.keywords), entry.id
        assert any(not word.isascii() for word in entry.keywords), entry.id


def test_the_library_includes_the_heros_journey_cast() -> None:
    ids = {entry.id for entry in archetype_library()}

    assert {"hero", "mentor", "threshold_guardian", "herald", "shapeshifter", "shadow", "trickster", "ally"} <= ids


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("设计一个亦正亦邪的反派", "shadow"),
        ("mentor who trains the hero", "mentor"),
        ("给主角设计一个师父", "mentor"),
        ("design a villain with a tragic past", "shadow"),
        ("设计一个卧底在主角身边的人", "shapeshifter"),
        ("a character who cracks jokes and pulls pranks on the king", "trickster"),
        ("一个出身卑微的废柴少年", "orphan"),
        ("年迈的皇帝，猜忌心很重", "ruler"),
        ("一个不服管束、想推翻朝廷的少女", "rebel"),
        ("a wandering knight who maps unknown lands", "explorer"),
        ("一个总是照顾身边所有人的姐姐", "caregiver"),
        ("给主角的恋人设计性格", "lover"),
    ],
)
def test_a_request_matches_the_archetype_it_names(text: str, first: str) -> None:
    matches = match_archetypes(text)

    assert matches[0].archetype_id == first
    assert matches[0].score >= 1.0  # at least one of its keywords


def test_keyword_hits_outrank_a_shared_word() -> None:
    """The request names "the hero", but it is about the mentor (two of its words)."""
    mentor, hero, *_ = match_archetypes("mentor who trains the hero")

    assert (mentor.archetype_id, hero.archetype_id) == ("mentor", "hero")
    assert mentor.score > 2.0 > hero.score > 1.0


def test_the_cosine_finds_an_archetype_by_its_traits() -> None:
    """The shapeshifter has "亦正亦邪" among its traits, not among its keywords."""
    [first] = match_archetypes("亦正亦邪的角色", limit=1)

    assert first.archetype_id == "shapeshifter"
    assert 0.0 < first.score < 1.0
    assert "shapeshifter" in [match.archetype_id for match in match_archetypes("设计一个亦正亦邪的反派")]


@pytest.mark.parametrize("text", ["帮我设计一个新角色", "我的配角适合什么原型", "Who should my second lead be?", "🐱"])
def test_a_request_without_archetype_words_still_gets_suggestions(text: str) -> None:
    matches = match_archetypes(text)

    assert len(matches) == 3
    assert all(0.0 <= match.score < 1.0 for match in matches)
    assert [match.score for match in matches] == sorted((match.score for match in matches), reverse=True)


def test_limit_and_order() -> None:
    five = match_archetypes("设计一个亦正亦邪的反派", limit=5)

    assert len(five) == 5
    assert [match.score for match in five] == sorted((match.score for match in five), reverse=True)
    assert match_archetypes("设计一个亦正亦邪的反派", limit=0) == []
    assert len(match_archetypes("反派", limit=100)) == len(archetype_library())


def test_a_match_carries_the_entry() -> None:
    [mentor] = match_archetypes("导师", limit=1)
    entry = next(entry for entry in archetype_library() if entry.id == "mentor")

    assert mentor.name == "导师 / Mentor"
    assert mentor.description == entry.description
    assert mentor.traits == list(entry.traits)


def test_english_keywords_start_a_word() -> None:
    ally = next(entry for entry in archetype_library() if entry.id == "ally")

    assert ally.keyword_hits("She really is totally alone") == set()
    assert ally.keyword_hits("Her allies and a friendly companion") == {"allies", "friendly", "companion"}
