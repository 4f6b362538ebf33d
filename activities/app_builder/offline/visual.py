"""The offline UI expert: the visual spec (the kind's palette, type, spacing, radius), one style per component of
the architect's tree (keyed by its id) and mobile-first breakpoints.

Style values use the spec's CSS variables (`var(--space-md)`, `var(--color-primary)`). A variant's name says
where it applies: `__part` styles an element of the component (`.item-row__text`), a breakpoint's name applies
from that width up, any other name is a state of the component (`.item-row--done`).
"""

from activities.app_builder.offline.app_kind import AppKind
from activities.app_builder.offline.architecture import ITEM_LIST, ITEM_ROW, LAYOUT
from models.app_builder.documents import (
    ComponentNode,
    ComponentStyle,
    FrontendArchitectDocument,
    ResponsiveLayout,
    Typography,
    UIExpertContent,
    VisualSpec,
)

Styles = dict[str, str]

FONTS = "'Inter', 'PingFang SC', 'Microsoft YaHei', system-ui, -apple-system, 'Segoe UI', sans-serif"
SPACING = {"xs": "4px", "sm": "8px", "md": "16px", "lg": "24px", "xl": "32px"}
BREAKPOINTS = {"sm": 480, "md": 768, "lg": 1024}

_STACK: Styles = {"display": "flex", "flex-direction": "column", "gap": "var(--space-sm)"}
_LIST: Styles = {**_STACK, "list-style": "none", "margin": "0", "padding": "0", "gap": "var(--space-xs)"}
_EMPTY: Styles = {"margin": "0", "padding": "var(--space-lg) 0", "text-align": "center", "color": "var(--color-muted)"}
_ROW: Styles = {
    "display": "flex",
    "align-items": "center",
    "gap": "var(--space-sm)",
    "padding": "var(--space-sm) var(--space-md)",
    "border": "1px solid var(--color-border)",
    "border-radius": "var(--radius)",
    "background": "var(--color-surface)",
}


def _role_style(role: str, flag: str) -> tuple[Styles, dict[str, Styles]]:
    """A known component's styles and variants."""
    table: dict[str, tuple[Styles, dict[str, Styles]]] = {
        LAYOUT: (
            {"margin": "0 auto", "max-width": "640px", "padding": "var(--space-lg) var(--space-md)"},
            {
                "__header": {"margin-bottom": "var(--space-lg)"},
                "__title": {"margin": "0", "font-size": "1.75rem", "color": "var(--color-primary)"},
                "__subtitle": {"margin": "var(--space-xs) 0 0", "color": "var(--color-muted)"},
                "md": {"padding": "var(--space-xl) var(--space-lg)"},
                "lg": {"max-width": "720px"},
            },
        ),
        "add-form": (
            {"display": "flex", "flex-wrap": "wrap", "gap": "var(--space-sm)"},
            {
                "__input": {"flex": "1 1 12rem"},
                "__quantity": {"width": "5rem"},
                "__body": {"flex": "1 1 100%", "min-height": "5rem", "resize": "vertical"},
                "__error": {
                    "flex-basis": "100%",
                    "margin": "0",
                    "color": "var(--color-danger)",
                    "font-size": "0.875rem",
                },
            },
        ),
        "search-box": ({"display": "flex", "gap": "var(--space-sm)"}, {"__input": {"flex": "1"}}),
        "filter-bar": (
            {"display": "flex", "flex-wrap": "wrap", "gap": "var(--space-xs)"},
            {
                "__button--active": {
                    "background": "var(--color-primary)",
                    "color": "var(--color-on-primary)",
                    "border-color": "transparent",
                }
            },
        ),
        ITEM_LIST: (_LIST, {"__empty": _EMPTY}),
        ITEM_ROW: (
            {**_ROW, "flex-wrap": "wrap"},
            {
                flag: {"opacity": "0.65", "text-decoration": "line-through"}
                if flag != "pinned"
                else {"border-color": "var(--color-primary)", "box-shadow": "0 0 0 1px var(--color-primary)"},
                "__text": {"flex": "1", "overflow-wrap": "anywhere", "font-weight": "500"},
                "__detail": {"color": "var(--color-muted)"},
                "__body": {
                    "flex-basis": "100%",
                    "margin": "0",
                    "white-space": "pre-wrap",
                    "color": "var(--color-text)",
                },
                "__time": {"flex-basis": "100%", "font-size": "0.75rem", "color": "var(--color-muted)"},
            },
        ),
        "summary-bar": (
            {"display": "flex", "justify-content": "space-between", "align-items": "center", "gap": "var(--space-sm)"},
            {"__count": {"color": "var(--color-muted)", "font-size": "0.875rem"}},
        ),
        "counter-display": (
            {"display": "flex", "flex-direction": "column", "align-items": "center", "gap": "var(--space-xs)"},
            {
                "__value": {
                    "font-size": "4rem",
                    "font-weight": "700",
                    "color": "var(--color-primary)",
                    "font-variant-numeric": "tabular-nums",
                },
                "__label": {"color": "var(--color-muted)"},
                "md": {"padding": "var(--space-lg) 0"},
            },
        ),
        "counter-controls": (
            {"display": "flex", "justify-content": "center", "gap": "var(--space-sm)"},
            {"__button": {"min-width": "3.5rem", "font-size": "1.25rem"}},
        ),
        "step-picker": (
            {"display": "flex", "justify-content": "center", "align-items": "center", "gap": "var(--space-sm)"},
            {},
        ),
        "history-list": (
            _STACK,
            {
                "__title": {"margin": "0", "font-size": "1rem"},
                "__entries": _LIST,
                "__entry": {**_ROW, "justify-content": "space-between", "font-variant-numeric": "tabular-nums"},
                "__empty": _EMPTY,
            },
        ),
    }
    return table.get(role, ({}, {}))


def _page_style() -> tuple[Styles, dict[str, Styles]]:
    return (
        {
            **_STACK,
            "gap": "var(--space-md)",
            "padding": "var(--space-md)",
            "background": "var(--color-surface)",
            "border-radius": "var(--radius)",
            "box-shadow": "0 1px 3px rgb(15 23 42 / 0.08)",
        },
        {"md": {"padding": "var(--space-lg)"}},
    )


def _component_style(node: ComponentNode, flag: str) -> ComponentStyle:
    styles, variants = _page_style() if node.type == "page" else _role_style(node.id, flag)
    if not styles:
        styles = dict(_STACK)
    return ComponentStyle(component_id=node.id, styles=styles, variants=variants or None)


def visual_content(kind: AppKind, architect: FrontendArchitectDocument) -> UIExpertContent:
    flag = kind.item.flag if kind.item is not None else "active"
    heading = "Georgia, 'Songti SC', serif" if kind.name == "notes" else FONTS
    return UIExpertContent(
        visual_spec=VisualSpec(
            color_scheme=kind.palette,
            typography=Typography(heading=heading, body=FONTS),
            spacing=dict(SPACING),
            border_radius="10px",
        ),
        component_styles=[_component_style(node, flag) for node in architect.content.component_tree],
        responsive_layout=ResponsiveLayout(breakpoints=dict(BREAKPOINTS), strategy="mobile-first"),
    )
