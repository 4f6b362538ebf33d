"""The offline PlannerAgent's English outline, for a request written in English: the same sections, loop states
and pacing note as `planner`, rendered in English; each section as `Chapter N "title": summary`."""

from activities.common.offline_labels import offline_label_en
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.grounding_en import counted, joined, topic_en
from models.writing.agents import OutlineSection, ProposedPlotLoop
from models.writing.context import PlotLoopState
from models.writing.proposals import PROPOSAL_ID_PREFIX

LABEL = offline_label_en("outline")

BEATS_EN = (
    ("Undercurrents", "{lead} senses something wrong at {place}; {past} surface again"),
    ("Clash", "{lead} and {other} meet head-on, and where each stands is out in the open for the first time"),
    ("The Plan Fails", "the plan goes wrong, {lead} pays for it, and everything turns for the worse"),
    ("Breaking Through", "{lead} finds a way out, and {other}'s choice decides it"),
    ("Aftermath", "the dust settles, and {lead} sets off with a new question"),
)
"""The beats of `planner`'s outline, in the same order, in English."""
DEFAULT_LEAD = "the protagonist"
DEFAULT_OTHER = "the opponent"
DEFAULT_PLACE = "the heart of the story"
PAST_EN = "old clues"
"""What surfaces again in the first section when the project has no dead to remember (`past_en`)."""


def past_en(dead: str) -> str:
    return f"old clues to {dead}'s death"


def section_title_en(anchor: str, beat: str) -> str:
    return f"{anchor}: {beat}"


def advancing_en(loops: list[PlotLoopState]) -> str:
    return "".join(f'; moves the thread "{loop.title}" forward' for loop in loops)


def secret_en(lead: str, start: int) -> tuple[str, str]:
    """The title and description of the new plot loop an outline plants: what its lead is hiding."""
    title = f"What {lead} is hiding"
    return title, f"Planted in chapter {start}: {lead} keeps something from the people around them, revealed later."


def loop_note_en(loop: ProposedPlotLoop) -> str:
    """The outline's line on the new plot loop it plants, as filed (`planner._loop_note`)."""
    if loop.existing_id is None:
        return f'New plot loop (the writer accepts or rejects it): "{loop.title}": {loop.description}'
    if loop.existing_id.startswith(PROPOSAL_ID_PREFIX):
        return f'Plot loop "{loop.title}" is already proposed and waits for the writer, so it is not proposed again.'
    return f'Plot loop "{loop.title}" is already in the project, so it is not proposed again.'


def outline_en(grounding: Grounding, last: int | None, sections: list[OutlineSection], loops: int) -> list[str]:
    """The outline's opening lines and its sections."""
    after = f"After chapter {last}" if last is not None else "From chapter 1"
    span = f"chapters {sections[0].position}–{sections[-1].position}"
    lines = [
        LABEL,
        f'{after}, {span} around "{topic_en(grounding)}", with {counted(loops, "open plot thread")} woven in:',
    ]
    return lines + [f'Chapter {s.position} "{s.title}": {s.summary}' for s in sections]


def loop_states_en(loops: list[PlotLoopState]) -> list[str]:
    if not loops:
        return ["Plot threads: the project has no plot threads recorded yet."]
    lines = ["Plot threads:"]
    for loop in loops:
        planted = (
            f"planted in chapter {loop.planted_in_chapter}" if loop.planted_in_chapter else "planting not recorded"
        )
        state = f"resolved in chapter {loop.resolved_in_chapter}" if loop.status == "resolved" else "still open"
        lines.append(f'- "{loop.title}": {planted}, {state}.')
    return lines


def pacing_en(lengths: dict[int, int], average: float, long: list[int], short: list[int]) -> list[str]:
    """The note on the chapters' lengths (`long` and `short` are the positions far from the average)."""
    lines = [f"Pacing: {counted(len(lengths), 'chapter')}, {average:.0f} characters on average."]
    lines += [
        f"- Chapter {p} runs {lengths[p]} characters, much longer: it may drag; consider splitting it." for p in long
    ]
    lines += [
        f"- Chapter {p} has only {lengths[p]} characters, much shorter: the plot may move too fast." for p in short
    ]
    if not long and not short:
        lines.append("- The chapters are of similar length and the pace is steady; a climax can run longer.")
    return lines


def pacing_unknown_en(seen: list[int]) -> list[str]:
    if seen:
        found = joined([str(p) for p in seen])
        return [f"Pacing: the excerpts found come from chapter {found}; the chapters' lengths are not known."]
    return ["Pacing: the project has no chapters yet, so there are no lengths to compare."]
