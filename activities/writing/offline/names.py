"""Deterministic names for the offline agents: people (Chinese surname + given name, or English first name +
surname), places and book titles, each chosen by a stable hash of the request and never one already taken."""

from collections.abc import Collection
from typing import Literal

from activities.writing.offline.grounding import stable_number
from activities.writing.story_facts import COMPOUND_SURNAMES, SINGLE_SURNAMES

Gender = Literal["female", "male", "any"]

_GIVEN_ZH: dict[Gender, str] = {
    "male": "辰远舟川衡景昀珩砚岳澈骁恒翊峥",
    "female": "念雪瑶笙芷鸢宁筠绾溪棠霜萦婉",
    "any": "清言安然墨秋云歌晚星遥知",
}
_FIRST_EN: dict[Gender, tuple[str, ...]] = {
    "male": ("Adrian", "Callum", "Elias", "Felix", "Gideon", "Jasper", "Lucan", "Rowan", "Silas", "Tobias"),
    "female": ("Aria", "Celeste", "Elena", "Isolde", "Maren", "Nadia", "Sable", "Tamsin", "Vera", "Wren"),
    "any": ("Ash", "Quinn", "Rory", "Sage", "Ellis", "Avery", "Morgan", "Robin", "Jules", "Kit"),
}
_SURNAMES_EN = ("Ashford", "Blackwood", "Castellan", "Dunmore", "Everly", "Hale", "Marsh", "Thorne", "Vale", "Wynter")
_PLACE_HEADS = "青落临栖寒望沧云雁白松镜赤霜"
_PLACE_BODIES = "石霞水风溪川岚月梧枫"
_PLACE_TAILS = "城镇村谷山岛关渡"
_TITLE_WORDS = ("长夜", "剑歌", "星河", "归舟", "烬火", "雪落", "山海", "浮生", "残灯", "逆旅", "故城", "听潮")
_TITLE_SUFFIXES = ("纪事", "录", "行", "志", "传", "往事")

_FEMALE_WORDS = ("女", "她", "姑娘", "少女", "公主", "female", "woman", "girl", "heroine", "she ", "her ")
_MALE_WORDS = ("男", "他", "少年", "公子", "male", " man", "boy", " he ", "his ")


def gender_of(text: str) -> Gender:
    """The gender a request asks for, from its words (女/她/girl..., 男/他/boy...); "any" when it says neither."""
    lowered = f" {text.lower()} "
    if any(word in lowered for word in _FEMALE_WORDS):
        return "female"
    if any(word in lowered for word in _MALE_WORDS):
        return "male"
    return "any"


def _chinese_name(number: int, gender: Gender) -> str:
    surnames = SINGLE_SURNAMES if number % 7 else COMPOUND_SURNAMES
    given = _GIVEN_ZH[gender] + (_GIVEN_ZH["any"] if gender != "any" else "")
    surname = surnames[number % len(surnames)]
    first = given[(number // 7) % len(given)]
    if number % 3 == 0:
        return surname + first
    second = given[(number // 101) % len(given)]
    return surname + first + (second if second != first else given[(number // 101 + 1) % len(given)])


def _english_name(number: int, gender: Gender) -> str:
    first_names = _FIRST_EN[gender]
    return f"{first_names[number % len(first_names)]} {_SURNAMES_EN[(number // 11) % len(_SURNAMES_EN)]}"


def person_names(seed: str, count: int, *, english: bool, gender: Gender, taken: Collection[str] = ()) -> list[str]:
    """`count` different person names for `seed`, none of them in `taken`."""
    names: list[str] = []
    attempt = 0
    while len(names) < count:
        number = stable_number(seed, "person", str(attempt))
        name = _english_name(number, gender) if english else _chinese_name(number, gender)
        if name not in taken and name not in names:
            names.append(name)
        attempt += 1
    return names


def invented_places(seed: str, count: int, taken: Collection[str] = ()) -> list[str]:
    """`count` different place names for `seed` (落霞村, 临风渡), none of them in `taken`."""
    names: list[str] = []
    attempt = 0
    while len(names) < count:
        number = stable_number(seed, "place", str(attempt))
        name = (
            _PLACE_HEADS[number % len(_PLACE_HEADS)]
            + _PLACE_BODIES[(number // 13) % len(_PLACE_BODIES)]
            + _PLACE_TAILS[(number // 131) % len(_PLACE_TAILS)]
        )
        if name not in taken and name not in names:
            names.append(name)
        attempt += 1
    return names


def book_titles(seed: str, count: int, anchors: list[str]) -> list[str]:
    """`count` different titles for `seed`, the first ones built on `anchors` (a place, a name) when given."""
    titles: list[str] = []
    attempt = 0
    while len(titles) < count:
        number = stable_number(seed, "title", str(attempt))
        suffix = _TITLE_SUFFIXES[number % len(_TITLE_SUFFIXES)]
        word = _TITLE_WORDS[(number // 7) % len(_TITLE_WORDS)]
        title = f"《{anchors[attempt]}{suffix}》" if attempt < len(anchors) else f"《{word}{suffix}》"
        if title not in titles:
            titles.append(title)
        attempt += 1
    return titles
