"""The offline WriterAgent's English draft, for a request written in English: the same honest placeholder as the
Chinese one (labelled as such with the request it stands in for, set in one of the project's own places, its
people on stage, its details in the story's register, its sentences picked by a hash of the request, the chain's
direction narrated as part of the scene: `direction`), in English. Below the label there is only the scene."""

from activities.writing.offline.direction import Direction
from activities.writing.offline.grounding import Grounding, request_topic
from activities.writing.offline.register import Pool, Register

LABEL = "[Offline placeholder draft: no language model is connected]"

_TIMES = Pool(
    neutral=(
        "Dawn had not quite come",
        "The rain had stopped by evening",
        "It was long past midnight",
        "Fog still lay low",
    ),
    modern=("The last train had gone an hour ago",),
    period=("The watchman had called the third hour",),
)
_STILL = Pool(neutral=("{where} was too quiet", "Nothing moved {at}", "The wind had dropped {at}"))
_SENSES = Pool(
    neutral=(
        "The air smelled of wet stone and rust",
        "Somewhere a shutter knocked against a wall, then stopped",
        "A single lamp burned behind a dirty window",
    ),
    modern=("A neon sign buzzed over the road, half its letters dark", "Somewhere a phone rang twice and stopped"),
    period=("Somewhere a horse stamped and blew in the dark", "Torchlight guttered on the old stone wall"),
)
_TURNS = Pool(
    neutral=(
        "Then footsteps, quick and close, came from the far end of the street",
        "A light flared in the distance and went out at once",
    ),
    modern=("A car door slammed somewhere behind them", "A phone buzzed in a coat pocket"),
    period=("Hoofbeats came up the road and stopped close by", "Steel rang once somewhere in the dark"),
)
_LINES = ("So you came after all,", "Someone has to do it,", "Don't look back,")
_NEWCOMERS = {
    "antagonist": "One day {name} would stand against them all",
    "mentor": "One day {name} would be the one they learned from",
    "love interest": "{name} would not be easy to forget",
    "protagonist": "Everything that followed would turn on {name}",
    "supporting character": "When it counted, {name} would be the one to lend a hand",
}
"""The offline designer's English roles, as the narrator says what the newcomer will be."""
_RESOLVES = Pool(neutral=("took a slow breath and set the doubt aside", "closed a fist until the knuckles went white"))


def _directed(direction: Direction) -> str:
    """The chain's direction as the draft narrates it: the newcomer introduced, then what happens."""
    sentences = []
    if direction.newcomer is not None:
        name, role = direction.newcomer
        becomes = _NEWCOMERS.get(role.lower(), "Word was, {name} was a " + role).format(name=name)
        sentences.append(f"Nobody there knew {name} yet. {becomes}.")
    if direction.event:
        event = direction.event
        sentences.append(event if event.endswith((".", "!", "?", '"')) else f"{event}.")
    return " ".join(sentences)


def english_draft(
    grounding: Grounding,
    lead: str,
    partner: str | None,
    place: str,
    register: Register,
    loop: str | None,
    direction: Direction,
) -> str:
    """The draft: the label with what was asked, then the scene's paragraphs."""
    topic = request_topic(grounding.request.text, 120).rstrip(".")

    def pick(pool: Pool, salt: str) -> str:
        return grounding.pick(pool.of(register), salt)

    where, at = (place, f"at {place}") if place else ("The street", "anywhere")
    paragraphs = [
        f"{pick(_TIMES, 'time')}. {pick(_STILL, 'still').format(where=where, at=at)}, and {lead} waited.",
        f"{pick(_SENSES, 'sense')}. {lead} went on{f' through {place}' if place else ''}, without looking back.",
        f"{pick(_TURNS, 'turn')}. {lead} held still, palms damp.",
    ]
    directed = _directed(direction)
    if directed:
        paragraphs.insert(1, directed)
    if partner is not None:
        question = f"How far have you got with {loop}?" if loop else "You came all this way. Say it."
        paragraphs.append(f'"{grounding.pick(_LINES, "line")}" {partner} said. "{question}" {lead} answered quietly.')
    else:
        paragraphs.append(f'"One more step and I will know," {lead} said. Nobody answered.')
    paragraphs.append(f"{lead} {pick(_RESOLVES, 'resolve')}. Whatever waited ahead, the step had to be taken.")
    if loop:
        paragraphs.append(f"Perhaps the answer to {loop} lay {at if place else 'close by'}, waiting.")
    return f"{LABEL} {topic}.\n\n" + "\n\n".join(paragraphs)
