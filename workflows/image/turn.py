"""What every phase of one image turn shares: `ImageTurn`.

`ImageAgentWorkflow` builds one `ImageTurn` per run and hands it to each phase (`intake`, `styles`, `execution`,
`review`, `delivery`). It holds the run's input, its state, its event log and its `GraphRun`, the context the
session gave the turn (None while the turn waits in the session's queue), and the small steps several phases take:
a thought, a GenUI component, the intent the Planner set, the last image and the image an edit starts from.
"""

from temporalio import workflow

from workflows.common.event_log import EventLog
from workflows.common.run import GraphRun

with workflow.unsafe.imports_passed_through():
    from models.blobs import ImageRef
    from models.image.events import ThoughtLog
    from models.image.genui import GenUIComponent
    from models.image.runs import ImageAgentInput, TurnContext
    from models.image.state import ImageAgentState, Intent, PreviousResult


class ImageTurn:
    """One turn's input, state, events and graph run, and the steps every phase uses."""

    def __init__(self, input: ImageAgentInput, state: ImageAgentState, events: EventLog, run: GraphRun) -> None:
        self.input = input
        self.state = state
        self.events = events
        self.run = run
        self.context: TurnContext | None = input.context
        """The session's context: given at the start, or by `begin` once a queued turn's time has come."""

    def thought(
        self,
        node: str,
        message: str,
        *,
        level: str | None = None,
        code: str | None = None,
        intent: str | None = None,
        score: float | None = None,
    ) -> None:
        thought = ThoughtLog.model_validate(
            {"node": node, "message": message, "level": level, "code": code, "intent": intent, "score": score}
        )
        self.events.emit("thought_log", node, thought)

    def show(self, node: str, component: GenUIComponent) -> None:
        """Emit a GenUI component; one with an id replaces the earlier component with that id in the state."""
        ui = self.state.ui_components
        if component.id is not None:
            ui[:] = [c for c in ui if c.id != component.id]
        ui.append(component)
        self.events.emit("gen_ui_component", node, component)

    def intent(self) -> Intent:
        assert self.state.intent is not None, "the Planner sets the intent before later nodes run"
        return self.state.intent

    def previous(self) -> PreviousResult | None:
        """The session's last image, when it has one."""
        return self.context.previous if self.context else None

    def base_image(self) -> ImageRef | None:
        """The image an edit starts from: the one the mask was drawn on, else the session's last image."""
        mask = self.state.user_input.mask_data
        if mask is not None and mask.image is not None:
            return mask.image
        previous = self.previous()
        return ImageRef(blob_key=previous.blob_key) if previous else None
