"""What every phase of one writing request shares: `WritingRequest`.

`WritingWorkflow` builds one per run and hands it to each phase (`router`, `preprocessing`, `agents`, `chains`,
`postprocessing`). It holds the run's input, its state, its event log and its `GraphRun`, the workflow plan the
router (or a continued chain) selected, and the steps several phases take: selecting the plan, the text the agents
work on, a thought, a degraded phase's report.
"""

from enum import StrEnum

from temporalio import workflow

from workflows.common.event_log import EventLog
from workflows.common.run import GraphRun, NodeFailed

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorInfo
    from models.search_attributes import INTENT_ACTION
    from models.writing.agents import ChainContext
    from models.writing.events import WritingThought
    from models.writing.intents import WORKFLOW_FOR_INTENT, IntentResult
    from models.writing.language import written_in_english
    from models.writing.plans import PLANS, WorkflowPlan
    from models.writing.runs import WritingRunInput, WritingState


class WritingRequest:
    """One request's input, state, events, graph run and plan, and the steps every phase uses."""

    def __init__(self, input: WritingRunInput, state: WritingState, events: EventLog, run: GraphRun) -> None:
        self.input = input
        self.state = state
        self.events = events
        self.run = run
        self._plan: WorkflowPlan | None = None

    def select(self, intent: IntentResult) -> WorkflowPlan:
        """Req 1.1: the workflow of the intent's row; a chain starts with no steps."""
        plan = PLANS[WORKFLOW_FOR_INTENT[intent.intent]]
        self.state.intent, self.state.workflow, self._plan = intent, plan.kind, plan
        if plan.is_chain:
            self.state.chain = ChainContext(workflow=plan.kind, request=self.input.text)
        self.run.tag(INTENT_ACTION.value_set(intent.intent.value))
        return plan

    def plan(self) -> WorkflowPlan:
        assert self._plan is not None, "the router (or a continued chain) selects the workflow first"
        return self._plan

    def intent(self) -> IntentResult:
        assert self.state.intent is not None, "the router sets the intent first"
        return self.state.intent

    def chain(self) -> ChainContext:
        assert self.state.chain is not None, "chain nodes run only in chain workflows"
        return self.state.chain

    def request_text(self) -> str:
        """The writer's request: in a continued chain the one that started the chain (the later request's text is
        often only the writer's choice, e.g. "C"), else this run's text."""
        chain = self.state.chain
        return chain.request if chain is not None and chain.request else self.input.text

    def english(self) -> bool:
        """Whether the run speaks English to the writer: the writer's request is written in English."""
        return written_in_english(self.request_text())

    def task_text(self) -> str:
        """What retrieval and the skills work on: the request, with the writer's choice at the chain's pause and a
        continued chain's new words (each once)."""
        chain = self.state.chain
        parts = [self.request_text(), chain.selection if chain is not None else None, self.input.text]
        return "\n".join(dict.fromkeys(part for part in parts if part))

    def degraded(self, node: str, err: NodeFailed, code: StrEnum, message: str) -> None:
        """Req 1.5: a failed phase is reported as an `error` event, and the run goes on without it."""
        self.reported(node, code, message, f"{message}{': ' if self.english() else '：'}{err.cause}")

    def reported(self, node: str, code: StrEnum, message: str, detail: str) -> None:
        """What a phase could not do, as an `error` event (`detail`) and a warning thought (`message`)."""
        self.events.emit("error", node, ErrorInfo(code=code, message=detail[:500], node=node))
        self.thought(node, message, level="warning")

    def thought(
        self,
        node: str,
        message: str,
        *,
        level: str | None = None,
        skills: list[str] | None = None,
        transition: tuple[str, str] | None = None,
    ) -> None:
        thought = WritingThought.model_validate(
            {"node": node, "message": message, "level": level, "skills": skills, "transition": transition}
        )
        self.events.emit("thought_log", node, thought)
