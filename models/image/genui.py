"""GenUI components the frontend renders (seed 004 §3): SmartCanvas, ActionPanel, AgentMessage."""

from typing import Any, Literal

from models.base import CamelModel

WidgetType = Literal["SmartCanvas", "ActionPanel", "AgentMessage"]
UpdateMode = Literal["append", "replace"]


class GenUIComponent(CamelModel):
    """One component: `widgetType` picks the renderer, `props` are its properties."""

    id: str | None = None
    widget_type: WidgetType
    props: dict[str, Any]
    update_mode: UpdateMode | None = None
