"""What every family's finished-run outcome offers over the events it streamed."""

from models.events import RunEvent


class StreamedEvents:
    """A mixin for an outcome (a dataclass with an `events` field): the events' types and the events of one
    type, in order."""

    events: list[RunEvent]

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]

    def of_type(self, type_: str) -> list[RunEvent]:
        return [event for event in self.events if event.type == type_]
