"""Where a chain points the offline writer's scene, as story content for `writer` and `writer_en` to narrate: what
happens (the chosen brainstorm option's event, the writer's own idea at the pause, or the summary of the outline
section being written) and who comes on stage for the first time (the character a previous step designed, its
name and role). The planner's and brainstorm's notes to the writer (the chapter they are for, the plot loop a
section moves forward, what the option does to the pace) are left out: a novelist's draft does not say them.
"""

import re
from dataclasses import dataclass

from activities.writing.offline.grounding import Grounding, without_acting
from models.writing.agents import AgentName

_SECTION_LINE = re.compile(r"第(\d+)章《([^》]+)》：([^\n]+)|Chapter (\d+) \"([^\"]+)\": ([^\n]+)")
_DESIGNED = re.compile(r"(?:姓名：|Name: )(?P<name>[^\n]+)\n(?:定位：|Role: )(?P<role>[^\n]+)")
_FOR_CHAPTER = re.compile(r"^(?:第\d+章里，|In chapter \d+, )")
_NOTE_TO_WRITER = re.compile(r"节奏|\bpace\b|推进伏笔|埋下新伏笔|\bmoves the thread\b|\bplants a new thread\b")
"""A clause of an option or a section that speaks of the story rather than in it."""
_CLAUSES = re.compile(r"[；;]\s*")
_ASKING = re.compile(r"^(?:我想|我希望|希望|请)?(?:让|叫)")
"""How a Chinese idea at the pause asks for what happens (让沈青衣背叛林舟 → 沈青衣背叛林舟)."""


@dataclass(frozen=True)
class Direction:
    """What happens in the scene ('' when the chain says nothing) and the newcomer (name, role) if any."""

    event: str = ""
    newcomer: tuple[str, str] | None = None


def designed(grounding: Grounding) -> tuple[str, str] | None:
    """The name and role of the character a chain's previous step designed, from its rendered text."""
    step = grounding.previous_step()
    match = _DESIGNED.search(step.text) if step and step.agent is AgentName.CHARACTER else None
    return (match["name"].strip(), match["role"].strip()) if match else None


def _story_only(text: str, english: bool) -> str:
    """`text` without the chapter it is meant for and its clauses about the story (pace, plot loops), as a
    sentence of the draft's language."""
    clauses = [c for c in _CLAUSES.split(_FOR_CHAPTER.sub("", text.strip())) if not _NOTE_TO_WRITER.search(c)]
    joined = ("; " if english else "；").join(clauses).strip().rstrip("。.；;")
    if not joined:
        return ""
    return joined[:1].upper() + joined[1:] + "." if english else joined + "。"


def _section(grounding: Grounding, text: str) -> str:
    """The summary of the outline section the request names (else the first)."""
    sections = [(a or d, c or f) for a, _, c, d, _, f in _SECTION_LINE.findall(text)]
    wanted = {str(n) for n in grounding.requested_chapters()}
    chosen = next((s for s in sections if s[0] in wanted), sections[0] if sections else None)
    return chosen[1] if chosen else ""


def chain_direction(grounding: Grounding) -> Direction:
    """The direction of the chain's previous step (see the module); empty outside a chain."""
    step = grounding.previous_step()
    if step is None:
        return Direction()
    dead = grounding.dead_names
    option = grounding.chosen_option()
    if option is not None:
        return Direction(event=without_acting(_story_only(option.summary, grounding.english), dead))
    selection = grounding.free_selection()
    if selection:
        return Direction(event=without_acting(_ASKING.sub("", selection.strip()), dead))
    if step.agent is AgentName.PLANNER:
        return Direction(event=without_acting(_story_only(_section(grounding, step.text), grounding.english), dead))
    return Direction(newcomer=designed(grounding))
