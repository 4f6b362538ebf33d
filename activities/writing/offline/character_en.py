"""The offline CharacterAgent's English sketch, for a request written in English: the same character and
relationships as `character`, with its role, temperament, motive and ties in English, rendered as
`Name: …` / `Role: …` lines and relationship lines `- A → B (kind): description`. The kinds of relationship an
English request names (`KINDS_EN`, `BECOMING_EN`) are read by `character`."""

import re

from activities.common.offline_labels import offline_label_en
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.grounding_en import drawn_from, topic_en
from activities.writing.story_facts import DECEASED
from models.writing.agents import CharacterSketch, RelationshipEdge
from models.writing.context import Archetype, CharacterState

LABEL = offline_label_en("character design")

ROLES = {
    "反派": "antagonist",
    "导师": "mentor",
    "感情线角色": "love interest",
    "主角": "protagonist",
    "配角": "supporting character",
}
"""The role `character` chose → its English name."""
RELATIONS = {"对手": "rival", "师徒": "mentor", "恋人": "lover", "同伴": "companion", "旧识": "old acquaintance"}
"""The relationship `character` chose → its English kind."""
_KIND_WORDS = {
    "old friend": "old friend",
    "old friends": "old friend",
    "rival": "rival",
    "rivals": "rival",
    "rivalry": "rival",
    "nemesis": "nemesis",
    "mentor": "mentor",
    "apprentice": "mentor",
    "lover": "lover",
    "lovers": "lover",
    "enemy": "enemy",
    "enemies": "enemy",
    "ally": "ally",
    "allies": "ally",
    "friend": "friend",
    "friends": "friend",
    "partner": "partner",
    "partners": "partner",
    "brother": "brother",
    "brothers": "brother",
    "sister": "sister",
    "sisters": "sister",
    "sibling": "sibling",
    "siblings": "sibling",
    "companion": "companion",
    "companions": "companion",
}
"""Words an English request names a relationship with → the kind the design uses."""
KINDS_EN = re.compile(r"\b(?:" + "|".join(sorted(_KIND_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
BECOMING_EN = re.compile(r"\b(?:become|becomes|became|turn into|turns into|turned into|now)\b", re.IGNORECASE)
"""Words after which a request names the kind a relationship changes to (from friends, they became rivals)."""


def kind_en(word: str) -> str:
    """The kind an English relationship word names (`enemies` → `enemy`)."""
    return _KIND_WORDS[word.lower()]


_TEMPERAMENTS = (
    "cold on the surface and warm underneath, saying little but meaning every word",
    "easy-going to all appearances, while keeping a ledger nobody else can see",
    "stubborn, slow to forgive and bound by every promise",
)
_TIES = ("an old debt between them must be settled sooner or later", "each holds something over the other")
_MOTIVES = (
    "wants the truth about an old affair",
    "means to repay a debt owed for years",
    "only wants to protect the few people left",
)


def archetype_name_en(archetype: Archetype) -> str:
    """The English half of a library archetype's name (`阴影（反派） / Shadow` → `Shadow`); its description and
    traits are in Chinese only, so the English sketch names it and no more."""
    return archetype.name.rsplit(" / ", 1)[-1]


def edge_en(grounding: Grounding, source: str, target: CharacterState, relation: str) -> RelationshipEdge:
    if target.status == DECEASED:
        description = f"{target.name} has died, but the bond still shapes {source}."
        return RelationshipEdge(source=source, target=target.name, kind="the departed", description=description)
    kind = RELATIONS.get(relation, relation)
    description = f"{source} and {target.name}: {grounding.pick(_TIES, target.name)}."
    return RelationshipEdge(source=source, target=target.name, kind=kind, description=description)


def sketch_en(
    grounding: Grounding, name: str, role: str, refined: CharacterState | None, archetype: Archetype | None
) -> CharacterSketch:
    """The sketch of `name`: the known character's description when refining one, else who they are in the story."""
    if refined is not None:
        base = refined.description or f"{name} is already in the story."
    else:
        places = grounding.places()
        base = f"{name} is the story's {ROLES[role]}" + (f", from around {places[0]}." if places else ".")
    description = (
        f"{base.rstrip('.')}. Temperament: {grounding.pick(_TEMPERAMENTS, 'temperament')}; "
        f"{name.split()[0]} {grounding.pick(_MOTIVES, 'motive')}."
        + (f" Close to the {archetype_name_en(archetype)} archetype." if archetype else "")
    )
    return CharacterSketch(
        name=name,
        role=ROLES[role],
        description=description,
        archetype=archetype_name_en(archetype) if archetype else None,
    )


def render_en(
    grounding: Grounding, sketches: list[CharacterSketch], edges: list[RelationshipEdge], archetype: Archetype | None
) -> str:
    lines = [LABEL, f'For "{topic_en(grounding)}":']
    for sketch in sketches:
        lines += [f"Name: {sketch.name}", f"Role: {sketch.role}"]
        if sketch.archetype and archetype:
            lines.append(f"Archetype: {archetype_name_en(archetype)}")
        lines.append(f"Profile: {sketch.description}")
    if edges:
        lines.append("Relationships:")
        lines += [f"- {e.source} → {e.target} ({e.kind}): {e.description}" for e in edges]
    lines += drawn_from(grounding)
    return "\n".join(lines)
