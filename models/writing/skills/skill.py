"""What a writing skill is (seed 002 Req 8): a named prompt fragment, the words that call for it, the agents it
serves and a context trigger; plus the keyword matcher it shares with the archetype library.

Pure and deterministic (no I/O, clock, randomness or environment): workflow code imports it.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from models.writing.agents import AgentName
from models.writing.context import PreprocessingContext

ContextTrigger = Callable[[PreprocessingContext], str | None]
"""Reads the preprocessing context and answers why it calls for the skill (in a few words), or None."""

_LATIN_LETTER = re.compile(r"[A-Za-z]")


def keyword_pattern(keywords: Iterable[str]) -> re.Pattern[str]:
    """One case-insensitive pattern for all `keywords`, longest first.

    A Chinese keyword matches anywhere; a keyword with Latin letters matches a word that starts with it, and the
    match is that whole word ("fight" finds "Fighting"; "describ" finds "description"; "ally" skips "really")."""
    alternatives = [
        rf"(?<![A-Za-z]){re.escape(word)}[A-Za-z]*" if _LATIN_LETTER.search(word) else re.escape(word)
        for word in sorted(set(keywords), key=lambda word: (-len(word), word))
    ]
    return re.compile("|".join(alternatives), re.IGNORECASE)


def craft_rules(situation: str, rules: Sequence[str]) -> str:
    """A skill's prompt fragment: the kind of passage, then its rules numbered from 1."""
    numbered = (f"{number}. {rule}" for number, rule in enumerate(rules, start=1))
    return "\n".join((f"{situation}写作要求：", *numbered))


@dataclass(frozen=True)
class Skill:
    """A kind of passage an agent writes better with extra craft rules, and when to give it those rules."""

    name: str
    """The seed's class-like name, e.g. `ActionSkill`; what events and `AgentMetadata.skills` carry."""
    title: str
    """What a writer calls it, e.g. 动作/打斗描写."""
    keywords: tuple[str, ...]
    prompt: str
    """The fragment injected into the agent's system prompt."""
    agents: frozenset[AgentName]
    trigger: ContextTrigger | None = None
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_pattern", keyword_pattern(self.keywords))

    def keyword_in(self, text: str) -> str | None:
        """The first word of `text` that is one of this skill's keywords (lowercased), or None."""
        found = self._pattern.search(text)
        return found.group(0).lower() if found else None


@dataclass(frozen=True)
class SkillChoice:
    """A skill chosen for one agent call, and why: `keyword 打斗` or `context: …`."""

    skill: Skill
    reason: str
