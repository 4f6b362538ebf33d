"""Does a Latin-script message contain words of some language, or is it keyboard mashing (seed 000 §7.2)?

The keyword planner answers `unknown` with a friendly reply for input that is not a request in any language:
emoji and symbols, and also random Latin letters ("asdfghjkl", "xjqpz kvwrt"), which would otherwise look like
the bare subject of a picture. Words are looked up in the frequency lists `wordfreq` ships in its wheel (no
download), for the languages a Latin-script request most likely comes in; the lists load once, on first use.
"""

import re
from functools import cache

from wordfreq import zipf_frequency

LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl")
MIN_WORD_SHARE = 0.5
"""At least this share of a message's letters must belong to known words for it to count as language."""

_LATIN_TOKEN = re.compile(r"[a-zà-ÿ]{2,}", re.IGNORECASE)
_OTHER_LETTER = re.compile(r"[^\W\d_a-zà-ÿ]", re.IGNORECASE)


def is_mashing(text: str) -> bool:
    """True when `text` is Latin letters that spell no word: too few of its letters are in known words.

    Text with letters of another script (Chinese, Cyrillic, ...) is never judged here."""
    if _OTHER_LETTER.search(text):
        return False
    tokens = [token.lower() for token in _LATIN_TOKEN.findall(text)]
    letters = sum(len(token) for token in tokens)
    if letters == 0:
        return False
    known = sum(len(token) for token in tokens if _is_word(token))
    return known / letters < MIN_WORD_SHARE


@cache
def _is_word(token: str) -> bool:
    return any(zipf_frequency(token, language, wordlist="small") > 0 for language in LANGUAGES)
