"""The offline interaction agent: the UX expert's flows wired into the page agent's components (which it sees:
it runs in the wave after them). Each flow names the component it drives: adding → the add form (Enter submits,
Esc clears, an empty entry shows the form's error), toggling and removing → the row (also Space and Delete on a
focused row), filtering and searching → their bars (Esc clears the search), clearing → the summary, browsing →
the list's empty states, counting, resetting and the step → the counter's controls (also ↑ ↓ 0 on the page) and
picker, the history → its empty state.

A component changes only when the page agent wrote it and a flow drives it; the rest stay as they are.
"""

from activities.app_builder.offline.architecture import ITEM_LIST, ITEM_ROW
from activities.app_builder.offline.components import role_parts
from activities.app_builder.offline.conventions import changed_files
from activities.app_builder.offline.tsx import component_source, component_specs
from models.app_builder.documents import SessionDocument

FLOW_ROLES = {
    "flow-add": "add-form",
    "flow-toggle": ITEM_ROW,
    "flow-remove": ITEM_ROW,
    "flow-filter": "filter-bar",
    "flow-search": "search-box",
    "flow-clear": "summary-bar",
    "flow-browse": ITEM_LIST,
    "flow-count": "counter-controls",
    "flow-reset": "counter-controls",
    "flow-step": "step-picker",
    "flow-history": "history-list",
}
"""The flow id → the role of the component it drives."""


def interaction_files(documents: list[SessionDocument], files: dict[str, str], goal: str) -> dict[str, str]:
    written: dict[str, str] = {}
    for spec in component_specs(documents):
        driven = any(FLOW_ROLES.get(flow) == spec.node.id for flow in spec.flows)
        if not driven or spec.path not in files:
            continue
        wired = role_parts(spec, wired=True)
        if wired is not None:
            imports, body, runtime_props = wired
            written[spec.path] = component_source(spec, imports, body, runtime_props=runtime_props)
    return changed_files(files, written)
