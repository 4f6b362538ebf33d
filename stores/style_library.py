"""The art-style library behind the RAG node: `styles.json`, its model, and the words that name a style.

Each entry carries the names a user types (Chinese, English, aliases) and the English prompt fragment the
RAG node appends to the user's prompt (seed 000 §3.2).
"""

import hashlib
import json
from collections.abc import Iterable
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

_LIBRARY_FILE = "styles.json"


class StyleEntry(BaseModel):
    """One art style: its names, the aliases users type, and its prompt fragment."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name_zh: str = Field(min_length=1)
    name_en: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    prompt: str = Field(min_length=1)

    @property
    def surface_forms(self) -> list[str]:
        """Every string that names this style: both names, then the aliases."""
        return [self.name_zh, self.name_en, *self.aliases]


_ENTRIES = TypeAdapter(list[StyleEntry])


@cache
def _packaged_library() -> tuple[StyleEntry, ...]:
    raw = resources.files(__package__).joinpath(_LIBRARY_FILE).read_bytes()
    entries = _ENTRIES.validate_json(raw)
    _check_unique_ids(entries)
    return tuple(entries)


def _check_unique_ids(entries: Iterable[StyleEntry]) -> None:
    seen: set[str] = set()
    for entry in entries:
        if entry.id in seen:
            raise ValueError(f"duplicate style id {entry.id!r} in {_LIBRARY_FILE}")
        seen.add(entry.id)


def load_style_library() -> list[StyleEntry]:
    """The packaged style library (parsed once per process; entries are immutable)."""
    return list(_packaged_library())


def style_vocabulary(entries: Iterable[StyleEntry]) -> list[str]:
    """Every name and alias, longest first, so a keyword matcher prefers "赛博朋克" over "赛博"."""
    words = {form for entry in entries for form in entry.surface_forms}
    return sorted(words, key=lambda word: (-len(word), word))


def library_fingerprint(entries: Iterable[StyleEntry]) -> str:
    """A digest of the library's content; a stored index built from a different library is stale."""
    canonical = json.dumps([entry.model_dump() for entry in entries], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()
