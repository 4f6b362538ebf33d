"""The offline front-end architect: the component tree, routes and state design built from the product manager's
requirements.

Each requirement the kind knows brings its component (adding → the add form, filtering → the filter bar, ...);
a list app always has its list and rows, a counter its display. The tree is one layout around one page at `/`.
Component ids are the roles the writing agents know (`add-form`, `item-row`, ...); each component's props are
the UI text it shows, in the message's language. State is one React context store (no extra npm dependency)
whose fields are TypeScript types.
"""

from typing import Literal

from activities.app_builder.offline.app_copy import APP_COPY
from activities.app_builder.offline.app_kind import AppKind, Language
from activities.app_builder.offline.conventions import capabilities_of
from models.app_builder.documents import (
    ComponentNode,
    FrontendArchitectContent,
    ProductManagerDocument,
    RouteDesign,
    StateManagement,
    StoreDesign,
)

LAYOUT = "app-layout"
PAGE = "home-page"
ITEM_LIST = "item-list"
ITEM_ROW = "item-row"

FILTER_VALUES = "'all' | 'active' | 'done'"
HISTORY_ENTRY = "{ change: number; total: number; at: number }"

ROLE_SUFFIX = {
    PAGE: "Page",
    "add-form": "Form",
    "search-box": "Search",
    "filter-bar": "Filters",
    ITEM_LIST: "List",
    ITEM_ROW: "Item",
    "summary-bar": "Summary",
    "counter-display": "Display",
    "counter-controls": "Controls",
    "step-picker": "Step",
    "history-list": "History",
}
"""Component role → the suffix of its name after the kind's prefix."""

ROLE_TYPES: dict[str, Literal["component", "widget"]] = {ITEM_LIST: "component", "history-list": "component"}
"""Roles that are components; the others are widgets."""

ABOVE_LIST = (("add", "add-form"), ("search", "search-box"), ("filter", "filter-bar"))
BELOW_LIST = (("clear", "summary-bar"),)
BELOW_COUNTER = (("step", "step-picker"), ("history", "history-list"))


def _page_roles(kind: AppKind, asked: set[str]) -> list[str]:
    """The page's components, top to bottom, for the capabilities asked for."""
    if kind.item is not None:
        above = [role for key, role in ABOVE_LIST if key in asked]
        return [*above, ITEM_LIST, *(role for key, role in BELOW_LIST if key in asked)]
    controls = ["counter-controls"] if asked & {"count", "reset"} else []
    return ["counter-display", *controls, *(role for key, role in BELOW_COUNTER if key in asked)]


def _props(kind: AppKind, language: Language, role: str, asked: set[str]) -> dict[str, str] | None:
    props = dict(APP_COPY[kind.name][language].get(role, {}))
    if role == "counter-controls" and "reset" not in asked:
        props.pop("resetLabel", None)
    return props or None


def _node(kind: AppKind, language: Language, role: str, children: list[str], asked: set[str]) -> ComponentNode:
    return ComponentNode(
        id=role,
        name=f"{kind.prefix}{ROLE_SUFFIX[role]}",
        type="page" if role == PAGE else ROLE_TYPES.get(role, "widget"),
        children=children,
        props=_props(kind, language, role, asked),
    )


def _store(kind: AppKind, asked: set[str]) -> StoreDesign:
    saved = "，保存在 localStorage" if "persist" in asked else ""
    if kind.item is not None:
        fields = {"items": f"Array<{kind.item.ts_type}>"}
        if "filter" in asked:
            fields["filter"] = FILTER_VALUES
        if "search" in asked:
            fields["query"] = "string"
        description = f"全部{kind.noun}及当前的筛选条件{saved}"
    else:
        fields = {"count": "number", "step": "number"}
        if "history" in asked:
            fields["history"] = f"Array<{HISTORY_ENTRY}>"
        description = f"当前计数、步长和最近的变化记录{saved}"
    return StoreDesign(name=kind.store, description=description, fields=fields)


def architecture_content(
    kind: AppKind, language: Language, title: str, product: ProductManagerDocument
) -> FrontendArchitectContent:
    asked = {capability.key for capability in capabilities_of(product, kind)}
    page_roles = _page_roles(kind, asked)
    layout = ComponentNode(
        id=LAYOUT,
        name="AppLayout",
        type="layout",
        children=[PAGE],
        props={"title": title, **APP_COPY[kind.name][language].get(LAYOUT, {})},
    )
    nodes = [layout, _node(kind, language, PAGE, page_roles, asked)]
    for role in page_roles:
        children = [ITEM_ROW] if role == ITEM_LIST else []
        nodes.append(_node(kind, language, role, children, asked))
        if role == ITEM_LIST:
            nodes.append(_node(kind, language, ITEM_ROW, [], asked))
    return FrontendArchitectContent(
        component_tree=nodes,
        route_design=[RouteDesign(path="/", component_id=PAGE)],
        state_management=StateManagement(approach="context", stores=[_store(kind, asked)]),
    )
