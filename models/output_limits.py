"""Each LLM node's output limit: the most tokens its answer may take, sent to the provider as `max_tokens` (or
the provider's name for it) with every call the node makes (`activities.common.llm_calls`).

A limit is the node's expected answer with room, reasoning included (a thinking model's `<think>` counts against
it): a decision or a review is short, a document, a chapter or a file written as a tool call's arguments is long.
An answer that reaches its limit is cut, and fails as `TruncatedAnswerError` naming the node and the limit.
`LLM_MAX_OUTPUT_TOKENS` caps every limit at what the configured model accepts.
"""

from typing import Final

DEFAULT_OUTPUT_TOKENS: Final = 4096
"""A node not named below: decisions, routes, reviews, plans of a few lines, short replies."""

DOCUMENTS: Final = 16384
"""An app's analysis documents, and a task's files written as tool-call arguments."""
CHAPTERS: Final = 8192
"""A scene or a chapter, a chapter plan, a post's body, a plan of tasks, a review over several chapters."""

OUTPUT_TOKENS: dict[str, int] = {
    **{
        f"app_builder.{node}": DOCUMENTS
        for node in ("product_manager", "frontend_architect", "ui_expert", "ux_expert", "task_turn")
    },
    **{
        f"app_builder.{node}": DOCUMENTS
        for node in ("scaffold_agent", "page_agent", "interaction_agent", "state_agent", "style_agent", "repair_agent")
    },
    "app_builder.planner": CHAPTERS,
    **{
        f"writing.{node}": CHAPTERS
        for node in ("writer", "character", "world_builder", "planner", "consistency", "brainstorm", "simple")
    },
    "writing.consistency_check": CHAPTERS,
    "content.writer": CHAPTERS,
    "content.research_turn": CHAPTERS,
}
"""Activity name → output limit, for the nodes whose answers are long."""


def output_tokens(activity_name: str) -> int:
    """The output limit of the node registered as `activity_name`."""
    return OUTPUT_TOKENS.get(activity_name, DEFAULT_OUTPUT_TOKENS)
