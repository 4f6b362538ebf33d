"""The offline WriterAgent's English draft, for a request written in English: the same honest placeholder as the
Chinese one (labelled as such, set in one of the project's own places, its people on stage, its sentences picked
by a hash of the request), in English."""

from activities.writing.offline.grounding import Grounding, request_topic

LABEL = "[Offline placeholder draft: no language model is connected]"

_TIMES = (
    "Dawn had not quite come",
    "The rain had stopped by evening",
    "It was long past midnight",
    "Fog still lay low",
)
_STILL = ("{where} was too quiet", "Nothing moved {at}", "The wind had dropped {at}")
_SENSES = (
    "The air smelled of wet stone and rust",
    "Somewhere a shutter knocked against a wall, then stopped",
    "A single lamp burned behind a dirty window",
)
_TURNS = (
    "Then footsteps, quick and close, came from the far end of the street",
    "A light flared in the distance and went out at once",
    "A car door slammed somewhere behind them",
)
_LINES = ("So you came after all,", "Someone has to do it,", "Don't look back,")
_RESOLVES = ("took a slow breath and set the doubt aside", "closed a fist until the knuckles went white")


def english_draft(grounding: Grounding, lead: str, partner: str | None, place: str, loop: str | None) -> str:
    """The draft: a header naming who, where and what was asked, then the scene's paragraphs."""
    pick, topic = grounding.pick, request_topic(grounding.request.text, 120).rstrip(".")
    where, at = (place, f"at {place}") if place else ("The street", "anywhere")
    header = [f"Cast: {', '.join(n for n in (lead, partner) if n)}"] + ([f"Setting: {place}"] if place else [])
    header.append(f"Request: {topic}")
    paragraphs = [
        f"{pick(_TIMES, 'time')}. {pick(_STILL, 'still').format(where=where, at=at)}, and {lead} waited.",
        f"This scene is about what was asked: {topic}.",
        f"{pick(_SENSES, 'sense')}. {lead} went on{f' through {place}' if place else ''}, without looking back.",
        f"{pick(_TURNS, 'turn')}. {lead} held still, palms damp.",
    ]
    if partner is not None:
        question = f"How far have you got with {loop}?" if loop else "You came all this way. Say it."
        paragraphs.append(f'"{pick(_LINES, "line")}" {partner} said. "{question}" {lead} answered quietly.')
    else:
        paragraphs.append(f'"One more step and I will know," {lead} said. Nobody answered.')
    paragraphs.append(f"{lead} {pick(_RESOLVES, 'resolve')}. Whatever waited ahead, the step had to be taken.")
    if loop:
        paragraphs.append(f"Perhaps the answer to {loop} lay {at if place else 'close by'}, waiting.")
    return f"{LABEL}\n{' | '.join(header)}\n\n" + "\n\n".join(paragraphs)
