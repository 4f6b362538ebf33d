"""The echo workflow's declared graph: reply (the model, else the offline rule) → the tool → the person's choice →
the final text; a failed node ends through the error node. Tests hold every recorded transition against it."""

from workflows.common.graph import START, Edge, Graph

REPLY = "reply"
COUNT_WORDS = "count_words"
CONFIRM = "confirm"
FINISH = "finish"
ERROR_HANDLER = "error_handler"
END = "end"

GRAPH = Graph(
    name="EchoWorkflow",
    nodes={
        START: "start",
        REPLY: "Reply (LLM, else offline)",
        COUNT_WORDS: "count_words tool",
        CONFIRM: "Ask: keep or shout",
        FINISH: "Final text",
        ERROR_HANDLER: "ErrorHandler",
        END: "end",
    },
    edges=(
        Edge(START, REPLY),
        Edge(REPLY, COUNT_WORDS),
        Edge(REPLY, ERROR_HANDLER, "failed"),
        Edge(COUNT_WORDS, CONFIRM),
        Edge(COUNT_WORDS, ERROR_HANDLER, "failed"),
        Edge(CONFIRM, FINISH),
        Edge(FINISH, END),
        Edge(ERROR_HANDLER, END),
    ),
    end=END,
)
