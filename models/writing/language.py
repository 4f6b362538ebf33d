"""Which language a writer's request is written in: one rule for the offline agents (`Grounding.english`) and
the chain's pause (`workflows.writing.chains`), pure and deterministic so workflow code can use it."""

import re

_CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")
_LATIN_LETTER = re.compile(r"[A-Za-z]")


def has_cjk(text: str) -> bool:
    return bool(_CJK_CHAR.search(text))


def written_in_english(text: str) -> bool:
    """True when `text` is written in English: Latin letters and no Chinese."""
    return not has_cjk(text) and bool(_LATIN_LETTER.search(text))
