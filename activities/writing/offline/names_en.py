"""English place names and book titles for the offline agents' English answers (`names` makes the Chinese ones
and the people's names in both languages), each chosen by a stable hash of the request, never one already taken."""

from collections.abc import Collection

from activities.writing.offline.grounding import stable_number

_PLACE_HEADS = ("Grey", "Raven", "Ash", "Stone", "Mist", "Salt", "Thorn", "Wolf", "Cold", "Elder", "Black", "Moon")
_PLACE_TAILS = ("haven", "ford", "moor", "wick", "hollow", "reach", "gate", "fell", "mere", "crossing")
_TITLE_WORDS = ("Long Night", "Low Tide", "Last Lantern", "Drowned Bell", "Silent Harbor", "Ashen Crown", "Far Shore")
_TITLE_FORMS = ("The {word}", "After the {word}", "Beyond the {word}", "The Road to the {word}")
_ANCHORED_FORMS = ("After {word}", "The Ghosts of {word}", "Tides of {word}", "Letters from {word}")


def invented_places_en(seed: str, count: int, taken: Collection[str] = ()) -> list[str]:
    """`count` different place names for `seed` (Greyhaven, Ashford), none of them in `taken`."""
    names: list[str] = []
    attempt = 0
    while len(names) < count:
        number = stable_number(seed, "place-en", str(attempt))
        name = _PLACE_HEADS[number % len(_PLACE_HEADS)] + _PLACE_TAILS[(number // 13) % len(_PLACE_TAILS)]
        if name not in taken and name not in names:
            names.append(name)
        attempt += 1
    return names


def book_titles_en(seed: str, count: int, anchors: list[str]) -> list[str]:
    """`count` different titles for `seed`, the first ones built on `anchors` (a place, a name) when given."""
    titles: list[str] = []
    attempt = 0
    while len(titles) < count:
        number = stable_number(seed, "title-en", str(attempt))
        if attempt < len(anchors):
            title = _ANCHORED_FORMS[number % len(_ANCHORED_FORMS)].format(word=anchors[attempt])
        else:
            word = _TITLE_WORDS[(number // 7) % len(_TITLE_WORDS)]
            title = _TITLE_FORMS[number % len(_TITLE_FORMS)].format(word=word)
        if title not in titles:
            titles.append(title)
        attempt += 1
    return titles
