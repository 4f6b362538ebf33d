"""How the content agents' JSON answers read while they stream (`activities.common.answer_text`): the brief (or
the question it asks first), the layout's rationale, the image plans' prompts, the writer's post (its title, then
its body, then its hashtags), the review's verdict and its issues. The reference analysis measures pixels and
asks no model; the Supervisor's tool turns do not stream."""

from activities.common.answer_text import Layout
from models.content.agents import AgentName

LAYOUTS: dict[AgentName, Layout] = {
    AgentName.BRIEF_COMPILER: {
        ("brief", "topic"): ("", "\n"),
        ("brief", "audience"): ("", "\n"),
        ("brief", "keyMessages", "*"): ("- ", "\n"),
        ("clarification", "question"): ("", "\n"),
        ("clarification", "options", "*", "label"): ("- ", "\n"),
    },
    AgentName.LAYOUT_PLANNER: {("rationale",): ("", "\n")},
    AgentName.IMAGE_PLANNER: {("plans", "*", "prompt"): ("- ", "\n")},
    AgentName.WRITER: {
        ("title",): ("", "\n\n"),
        ("body",): ("", "\n"),
        ("hashtags", "*"): ("", " "),
    },
    AgentName.REVIEW: {
        ("feedback", "summary"): ("", "\n"),
        ("feedback", "issues", "*"): ("- ", "\n"),
    },
}
"""Each JSON-answering agent's layout, by the keys of its answer's JSON Schema (camelCase aliases)."""
