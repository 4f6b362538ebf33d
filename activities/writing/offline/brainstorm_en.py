"""The offline BrainstormAgent's English directions, for a request written in English: the same three options as
`brainstorm` (A a confrontation, B a plot loop or a place's secret, C a choice of the heart), in English."""

from activities.common.offline_labels import offline_label_en
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.grounding_en import topic_en
from models.writing.agents import BrainstormOption

LABEL = offline_label_en("directions")

_CONFRONTATIONS = ("showdown", "duel", "face-to-face reckoning")
_TURNS = ("a reversal of the truth", "an old case reopened", "an unmasking")
_CHOICES = (("staying", "leaving"), ("trust", "doubt"), ("saving", "sacrificing"))


def options_en(grounding: Grounding) -> list[BrainstormOption]:
    """The three directions, built on the living cast, the open loops and the project's places."""
    cast = [c.name for c in grounding.cast(2)] or ["the protagonist"]
    lead, other = cast[0], cast[1] if len(cast) > 1 else "a rival in the shadows"
    loops, places, dead = grounding.open_loops(), grounding.places(), grounding.dead_names
    secret = loops[0].title if loops else f"the secret of {places[0]}" if places else "a buried past"
    confrontation = grounding.pick(_CONFRONTATIONS, "A")
    one, another = grounding.pick(_CHOICES, "C")
    legacy = f", and what {dead[0]} left behind tips the balance" if dead else ""
    chapters = grounding.requested_chapters()
    where = f"In chapter {chapters[0]}, " if chapters else ""
    clue = f'{where}{"a" if where else "A"} new clue turns up in "{secret}"'
    return [
        BrainstormOption(
            id="A",
            title=f"A {confrontation}: {lead} and {other}",
            summary=f"{where}{lead} stops avoiding {other}; the conflict comes into the open and the pace quickens.",
        ),
        BrainstormOption(
            id="B",
            title=f"The hidden thread turns: {secret}",
            summary=f"{clue}, and {grounding.pick(_TURNS, 'B')} proves {lead}'s judgement wrong.",
        ),
        BrainstormOption(
            id="C",
            title=f"A choice of the heart: {one} or {another}",
            summary=f"{where}{lead} must choose between {one} and {another}{legacy}; {other} pays the price.",
        ),
    ]


def brainstorm_text_en(grounding: Grounding, options: list[BrainstormOption]) -> str:
    lines = [LABEL, f'Three directions for "{topic_en(grounding)}":']
    lines += [f"{o.id}. {o.title} — {o.summary}" for o in options]
    lines.append("Reply A, B or C to choose one (or write your own idea), and I will expand it into a scene.")
    return "\n".join(lines)
