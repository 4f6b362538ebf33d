"""The post's options in the user's own words (seed 001: `layoutPreference` is the user's input): the words each
layout and length accepts, Chinese or English, and their mapping onto the ids the agents work with
(`cover_first|alternating|grid`, `short|medium|long`). Pure: the gateway maps a request's words before the run
starts and refuses what it cannot map (LAYOUT_PREFERENCE_UNKNOWN, LENGTH_UNKNOWN, listing what is accepted)."""

import re
from typing import Literal, TypeVar

from models.content.artifacts import BODY_LENGTH, LayoutPreference

Length = Literal["short", "medium", "long"]
OPTION_WORDS_CHARS = 40
"""The longest layout preference or length the request may carry, in characters."""
TONE_CHARS = 40
"""The longest tone (free words: 轻松幽默, warm and practical) the request may carry, in characters."""

LAYOUT_WORDS: dict[LayoutPreference, tuple[str, ...]] = {
    "cover_first": ("cover_first", "cover first", "cover", "封面优先", "封面在前", "大图封面", "封面", "首图"),
    "alternating": ("alternating", "alternate", "interleaved", "图文交错", "图文穿插", "图文交替", "交错", "穿插"),
    "grid": ("grid", "image grid", "九宫格", "宫格", "拼图", "网格", "多图"),
}
"""What each layout accepts: the id itself, then the words that name it (a phrase holding words of one layout only
maps too: 我想要九宫格 → grid)."""
LENGTH_WORDS: dict[Length, tuple[str, ...]] = {
    "short": ("short", "shorter", "brief", "短", "短一点", "简短", "精简"),
    "medium": ("medium", "normal", "中", "中等", "适中", "正常"),
    "long": ("long", "longer", "detailed", "长", "长一点", "长文", "详细"),
}
"""What each length accepts: the id itself, then the words that name it (exactly: 不要太长 is not `long`)."""

Id = TypeVar("Id", bound=str)
LENGTH_LABELS: dict[Length, str] = {"short": "短", "medium": "中等", "long": "长"}

_SEPARATORS = re.compile(r"[\s_\-·,，。.!！]+")


def _normal(words: str) -> str:
    return _SEPARATORS.sub(" ", words.strip().lower()).strip()


def _match(words: str, table: dict[Id, tuple[str, ...]], *, within: bool) -> Id | None:
    normal = _normal(words)
    for option, names in table.items():
        if normal in (_normal(name) for name in names):
            return option
    if not within:
        return None
    holding = {option for option, names in table.items() if any(_normal(name) in normal for name in names)}
    return holding.pop() if len(holding) == 1 else None


def layout_of(words: str) -> LayoutPreference | None:
    """The layout the user's words name (`图文交错` → `alternating`), or None when they name none or several."""
    return _match(words, LAYOUT_WORDS, within=True)


def length_of(words: str) -> Length | None:
    """The length the user's words name exactly (`短` → `short`; 不要太长 names none), or None."""
    return _match(words, LENGTH_WORDS, within=False)


def accepted(table: dict[Id, tuple[str, ...]]) -> str:
    """What a table accepts, for an error message: `cover_first（cover first, 封面优先, …）; …`."""
    return "; ".join(f"{option}（{', '.join(names[1:])}）" for option, names in table.items())


def body_range(platform: str, length: Length | None) -> tuple[int, int]:
    """The body's length range in characters on `platform`: the platform's whole range without a length, else its
    lower, middle or upper third."""
    low, high = BODY_LENGTH[platform]
    if length is None:
        return low, high
    third = (high - low) // 3
    start = low + third * ("short", "medium", "long").index(length)
    return start, high if length == "long" else start + third
