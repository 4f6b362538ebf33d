"""The offline WorldBuilderAgent's English notes, for a request written in English: the same four sections as
`world` (geography, power system, factions, rules), in English."""

from activities.common.offline_labels import offline_label_en
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.grounding_en import drawn_from, joined, topic_en
from activities.writing.offline.names_en import invented_places_en

LABEL = offline_label_en("world notes")

SYSTEMS_EN = {
    "cultivation": "Cultivation: three realms (drawing in qi, building the foundation, forming the core); every "
    "step up is paid for with peace of mind, and the higher one climbs the harder it is to turn back.",
    "magic": "Magic: a spell needs a medium attuned to its caster; power comes from an oath, and whoever breaks "
    "the oath loses it.",
    "technology": "Technology: abilities come from implants and gear; the stronger the implant, the more it depends "
    "on scarce power, and the easier it is for its makers to track.",
    "martial": "Martial arts: inner strength takes years of training, each school hands down its own forms, and a "
    "grave wound or a troubled mind can make that strength run wild.",
}
"""The power system `world` recognised (by its key) → its English note."""
DEFAULT_SYSTEM_EN = (
    "Source of power: rare and costly; whoever gains it must give something else up, and every conflict in this "
    "world grows from that."
)
_PLACE_NOTES = (
    "built against the hillside; news travels faster through its teahouses than by courier",
    "fog-bound all year; easy to get into, hard to leave",
    "a crossroads for traders, and the place with the most watching eyes",
    "old people say the last dynasty buried its secrets there; few go there now",
)
_FACTION_KINDS = ("Watch", "Merchants' Guild", "Old Guard")


def world_notes_en(grounding: Grounding, places: list[str], system: str | None) -> str:
    """The notes on `places` (the project's, at most a few) and the power `system` `world` recognised."""
    places = places + invented_places_en(grounding.request.text, max(0, 2 - len(places)), taken=places)
    geography = [f"- {place}: {grounding.pick(_PLACE_NOTES, place)}." for place in places]
    notes = [p for p in grounding.context.passages if p.kind == "world_note"]
    geography += [f'- From your note "{note.title}": {note.text[:120]}' for note in notes[:2]]
    alive = [c.name for c in grounding.cast(3)]
    factions = []
    for index, place in enumerate(places[:3]):
        tie = f"; {alive[index]} is most deeply tied to it" if index < len(alive) else ""
        factions.append(
            f"- The {place} {_FACTION_KINDS[index % len(_FACTION_KINDS)]}: keeps the open order of {place}{tie}."
        )
    dead = grounding.dead_names
    if dead:
        factions.append(
            f"- {dead[0]}'s old allies: scattered since {dead[0]} died, still chasing the truth of those days."
        )
    rules = [
        f'- "{loop.title}": {loop.description or "not yet revealed"}; no character should see the whole of it before '
        "it is revealed."
        for loop in grounding.open_loops()[:3]
    ]
    mortality = f"{joined(dead)} appear only in memories and rumours" if dead else "death is a real price in this world"
    rules.append(f"- The dead do not come back: {mortality}.")
    lines = [
        LABEL,
        f'Setting notes for "{topic_en(grounding)}"',
        "1. Geography",
        *geography,
        "2. Power system",
        f"- {SYSTEMS_EN[system] if system else DEFAULT_SYSTEM_EN}",
        "3. Factions",
        *factions,
        "4. Rules and taboos",
        *rules,
    ]
    lines += drawn_from(grounding)
    return "\n".join(lines)
