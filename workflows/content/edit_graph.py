"""The declared graph of an edit of a finished post (`ContentEditWorkflow`): one edit node chosen by the action,
the review of the new version, then the new version of the post, or the error path (runs started before the review
went straight from the edit to the new version: those edges stay for their replay). Served as Mermaid at
`/v1/workflows/ContentEditWorkflow/graph`; every transition a run records is checked against it."""

from workflows.common.graph import START, Edge, Graph

REWRITE_SECTION = "rewrite_section"
REGENERATE_IMAGE = "regenerate_image"
RESTYLE = "restyle"
REVIEW = "review"
FINALIZE = "finalize"
ERROR_HANDLER = "error_handler"
END = "done"

EDIT_GRAPH = Graph(
    name="ContentEditWorkflow",
    nodes={
        START: "编辑请求",
        REWRITE_SECTION: "改写一段",
        REGENERATE_IMAGE: "重画一张图",
        RESTYLE: "按新的语气 / 篇幅重写全文",
        REVIEW: "审核新版本",
        FINALIZE: "新版本",
        ERROR_HANDLER: "错误处理",
        END: "done",
    },
    edges=(
        Edge(START, REWRITE_SECTION, "rewrite_section"),
        Edge(START, REGENERATE_IMAGE, "regenerate_image"),
        Edge(START, RESTYLE, "restyle"),
        Edge(RESTYLE, FINALIZE, "已重写"),
        Edge(RESTYLE, ERROR_HANDLER, "失败"),
        Edge(REWRITE_SECTION, FINALIZE, "已改写（或说明无法改写）"),
        Edge(REGENERATE_IMAGE, FINALIZE, "已重画"),
        Edge(REWRITE_SECTION, ERROR_HANDLER, "失败"),
        Edge(REGENERATE_IMAGE, ERROR_HANDLER, "失败"),
        Edge(REWRITE_SECTION, REVIEW, "已改写"),
        Edge(REGENERATE_IMAGE, REVIEW, "已重画"),
        Edge(RESTYLE, REVIEW, "已重写"),
        Edge(REVIEW, FINALIZE, "审核完成"),
        Edge(REVIEW, ERROR_HANDLER, "失败"),
        Edge(FINALIZE, END, "发布新版本"),
        Edge(ERROR_HANDLER, END, "推送错误"),
    ),
    end=END,
)
