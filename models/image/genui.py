"""GenUI components the frontend renders (seed 004 §3): SmartCanvas, ActionPanel, AgentMessage.

`props` is free-form, so the props that link to an image are named here (`link_props`): a SmartCanvas's
`imageUrl` and an ActionPanel's `download` action's `url`. Only they become URLs at the gateway; every other prop
(a message, a prompt, the user's own text) stays the text it is.
"""

from typing import Any, Literal

from pydantic import SerializationInfo, field_serializer

from models.base import CamelModel
from models.blobs import linked

WidgetType = Literal["SmartCanvas", "ActionPanel", "AgentMessage"]
UpdateMode = Literal["append", "replace"]


class GenUIComponent(CamelModel):
    """One component: `widgetType` picks the renderer, `props` are its properties."""

    id: str | None = None
    widget_type: WidgetType
    props: dict[str, Any]
    update_mode: UpdateMode | None = None

    @field_serializer("props")
    def link_props(self, props: dict[str, Any], info: SerializationInfo) -> dict[str, Any]:
        """The props with the image links made URLs (see `models.blobs.BlobLink`)."""
        if self.widget_type == "SmartCanvas" and isinstance(props.get("imageUrl"), str):
            return props | {"imageUrl": linked(props["imageUrl"], info)}
        if self.widget_type == "ActionPanel" and isinstance(props.get("actions"), list):
            return props | {"actions": [_linked_action(action, info) for action in props["actions"]]}
        return props


def _linked_action(action: Any, info: SerializationInfo) -> Any:
    if isinstance(action, dict) and action.get("id") == "download" and isinstance(action.get("url"), str):
        return action | {"url": linked(action["url"], info)}
    return action
