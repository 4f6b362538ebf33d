"""How the app builder's JSON answers read while they stream (`activities.common.answer_text`): each analysis
agent's Session_Document (the product manager's requirements and stories, the architect's components, routes and
stores, the UI expert's visual spec, the UX expert's flows and recommendations) and the planner's tasks, by the
keys of their JSON Schemas (camelCase aliases). Style maps and other keyed objects are not shown."""

from activities.common.answer_text import COLON, Layout
from models.app_builder.documents import AnalysisAgentID

COLON_ZH = COLON[False]

ANALYSIS_LAYOUTS: dict[AnalysisAgentID, Layout] = {
    AnalysisAgentID.PRODUCT_MANAGER: {
        ("functionalRequirements", "*", "id"): ("", ". "),
        ("functionalRequirements", "*", "title"): ("", COLON_ZH),
        ("functionalRequirements", "*", "description"): ("", "\n"),
        ("userStories", "*", "persona"): ("", COLON_ZH),
        ("userStories", "*", "goal"): ("", "\n"),
    },
    AnalysisAgentID.FRONTEND_ARCHITECT: {
        ("componentTree", "*", "name"): ("- ", "\n"),
        ("routeDesign", "*", "path"): ("", "\n"),
        ("stateManagement", "stores", "*", "name"): ("", COLON_ZH),
        ("stateManagement", "stores", "*", "description"): ("", "\n"),
    },
    AnalysisAgentID.UI_EXPERT: {
        ("visualSpec", "colorScheme"): ("", "\n"),
        ("visualSpec", "typography", "heading"): ("", " / "),
        ("visualSpec", "typography", "body"): ("", "\n"),
    },
    AnalysisAgentID.UX_EXPERT: {
        ("interactionFlows", "*", "name"): ("", "\n"),
        ("interactionFlows", "*", "steps", "*", "action"): ("- ", "\n"),
        ("usabilityRecommendations", "*", "recommendation"): ("- ", "\n"),
    },
}
"""Each analysis agent's document content, as it reads. A requirement reads with its id first ("FR-1. 添加待办：..."):
the priority order names requirements by id, and the id is the first value the model writes, so the document's
first words show as soon as it writes them."""

PLAN_LAYOUT: Layout = {("tasks", "*", "id"): ("", ". "), ("tasks", "*", "goal"): ("", "\n")}
"""The planner's tasks, one a line."""
