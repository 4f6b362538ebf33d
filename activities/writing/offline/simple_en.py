"""The offline SimpleAgent's English replies, for a request written in English: the same chat, names, summary and
entity list as `simple`, in English."""

from activities.common.offline_labels import offline_label_en
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.grounding_en import counted, joined, topic_en
from activities.writing.offline.names import gender_of, person_names
from activities.writing.offline.names_en import book_titles_en, invented_places_en


def chat_en(grounding: Grounding, chapters: int, characters: int) -> str:
    cast = [c.name for c in grounding.characters[:3]]
    known = f" ({joined(cast)})" if cast else ""
    return (
        f"{offline_label_en('reply')}\nHello! Your project has {counted(chapters, 'chapter')} and "
        f"{counted(characters, 'character')}{known}. I can continue a scene, design characters and relationships, "
        "build the world, plan the outline and plot loops, check consistency, brainstorm directions, suggest names "
        "and summarise chapters. Tell me what you would like to write next."
    )


def names_en(grounding: Grounding, kind: str, count: int) -> str:
    """`count` names of `kind` (title, place or person) for the request, numbered."""
    text = grounding.request.text
    if kind == "title":
        anchors = grounding.places()[:2] + [c.name for c in grounding.cast(1)]
        names, noun = book_titles_en(text, count, anchors), "title"
    elif kind == "place":
        names, noun = invented_places_en(text, count, taken=grounding.places()), "place name"
    else:
        taken = [c.name for c in grounding.characters]
        names = person_names(text, count, english=True, gender=gender_of(text), taken=taken)
        noun = "name"
    lines = [offline_label_en("names"), f'{counted(count, noun)} for "{topic_en(grounding)}":']
    return "\n".join(lines + [f"{number}. {name}" for number, name in enumerate(names, start=1)])


def summary_en(openings: list[tuple[int, str, str]], excerpts: list[tuple[int | None, str, str]]) -> str:
    """The chapters' openings (position, title, opening), else the retrieved excerpts."""
    lines = [offline_label_en("summary")]
    lines += [f'Chapter {position} "{title}": {opening or "(no text yet)"}' for position, title, opening in openings]
    lines += [f'Chapter {position} "{title}", an excerpt: {text}' for position, title, text in excerpts]
    if len(lines) == 1:
        lines.append("The project has no chapters to summarise yet.")
    return "\n".join(lines)


def entities_en(counts: dict[str, int], introduced: list[str], places: list[str]) -> str:
    known = [f"{name} ({counted(count, 'mention')})" for name, count in counts.items()]
    return "\n".join(
        [
            offline_label_en("entity list"),
            f"Known characters: {joined(known)}",
            f"New names: {joined(introduced)}",
            f"Places: {joined(places)}",
        ]
    )
