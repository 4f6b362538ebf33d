"""How the writing family's JSON-answering agents read while they stream (`activities.common.answer_text`): the
brainstorm's options, the planner's sections, the character agent's cast, the consistency agent's findings (one
question per chunk of chapters, each answer after the last), then each answer's `text`."""

from activities.common.answer_text import COLON, Layout
from models.writing.agents import AgentName


def layout(agent: AgentName, english: bool) -> Layout | None:
    """How `agent`'s JSON answer reads (None: the agent does not answer in one JSON question)."""
    colon = COLON[english]
    lines: Layout
    if agent is AgentName.BRAINSTORM:
        lines = {
            ("options", "*", "id"): ("", ". "),
            ("options", "*", "title"): ("", colon),
            ("options", "*", "summary"): ("", "\n"),
        }
    elif agent is AgentName.PLANNER:
        lines = {
            ("sections", "*", "title"): ("", colon),
            ("sections", "*", "summary"): ("", "\n"),
            ("plot_loops", "*", "title"): ("", colon),
            ("plot_loops", "*", "description"): ("", "\n"),
        }
    elif agent is AgentName.CONSISTENCY:
        lines = {("issues", "*", "message"): ("- ", "\n")}
    elif agent is AgentName.CHARACTER:
        lines = {
            ("characters", "*", "name"): ("", " · "),
            ("characters", "*", "role"): ("", colon),
            ("characters", "*", "description"): ("", "\n"),
        }
    else:
        return None
    return {**lines, ("text",): ("\n", "")}
