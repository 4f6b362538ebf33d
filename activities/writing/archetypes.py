"""The character archetype library (seed 002 Req 4.2, `MATCH_ARCHETYPE`): `archetypes.json`, its entry model,
and the archetypes that best fit a request.

The library is the hero's-journey cast (hero, mentor, threshold guardian, herald, shapeshifter, shadow,
trickster, ally) plus the Jungian brand archetypes writers also use (lover, rebel, caregiver, ruler, sage,
innocent, explorer, orphan); each entry has Chinese and English names, a Chinese description, traits and the
words (Chinese and English) that name it.

A request's score for an archetype is the number of different words of the request that are its keywords, plus
the cosine (clamped at 0) between the request and the archetype's profile under the offline `HashingEmbedder`.
Keywords decide; the cosine orders archetypes with as many hits, and ranks all of them when the request names
none, so a character request always gets `limit` suggestions.

`match_archetypes` is synchronous CPU work, and its first call in a process reads the packaged JSON file and
embeds the library (both cached for the process): call it from a synchronous activity or through
`asyncio.to_thread`, never directly on an event loop.
"""

from functools import cache
from importlib import resources

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

from models.writing.context import Archetype
from models.writing.skills.skill import keyword_pattern
from stores.embedder import HashingEmbedder

_LIBRARY_FILE = "archetypes.json"
_EMBEDDER = HashingEmbedder()


class ArchetypeEntry(BaseModel):
    """One archetype of the library, as `archetypes.json` stores it (camelCase keys)."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z_]*$")
    name_zh: str = Field(min_length=1)
    name_en: str = Field(min_length=1)
    description: str = Field(min_length=1)
    traits: tuple[str, ...] = Field(min_length=1)
    keywords: tuple[str, ...] = Field(min_length=1)

    @property
    def profile(self) -> str:
        """The text the request is compared with: names, keywords, traits and description."""
        return " ".join((self.name_zh, self.name_en, *self.keywords, *self.traits, self.description))

    def keyword_hits(self, text: str) -> set[str]:
        """The different words of `text` that are keywords of this archetype (lowercased)."""
        return {word.lower() for word in _keyword_pattern(self.keywords).findall(text)}

    def to_archetype(self, score: float) -> Archetype:
        return Archetype(
            archetype_id=self.id,
            name=f"{self.name_zh} / {self.name_en}",
            description=self.description,
            traits=list(self.traits),
            score=score,
        )


_ENTRIES = TypeAdapter(tuple[ArchetypeEntry, ...])
_keyword_pattern = cache(keyword_pattern)


@cache
def archetype_library() -> tuple[ArchetypeEntry, ...]:
    """The packaged library, read and checked once per process (blocking file read: see the module docstring)."""
    entries = _ENTRIES.validate_json(resources.files(__package__).joinpath(_LIBRARY_FILE).read_bytes())
    ids = [entry.id for entry in entries]
    duplicates = sorted({archetype_id for archetype_id in ids if ids.count(archetype_id) > 1})
    if duplicates:
        raise ValueError(f"duplicate archetype ids in {_LIBRARY_FILE}: {duplicates}")
    return entries


@cache
def _profile_vectors() -> npt.NDArray[np.float32]:
    return _EMBEDDER.embed([entry.profile for entry in archetype_library()])


def match_archetypes(text: str, limit: int = 3) -> list[Archetype]:
    """The `limit` archetypes that fit `text` best, best first; ties keep the library's order."""
    entries = archetype_library()
    cosines = _profile_vectors() @ _EMBEDDER.embed([text])[0]
    scored = [
        (len(entry.keyword_hits(text)) + max(0.0, float(cosine)), entry)
        for entry, cosine in zip(entries, cosines, strict=True)
    ]
    scored.sort(key=lambda pair: -pair[0])
    return [entry.to_archetype(round(score, 4)) for score, entry in scored[:limit]]
