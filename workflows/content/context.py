"""What every phase of a content run shares (`ContentRun`): its input, state, event log, `GraphRun`, the person it
may ask and its agents' streamed text, the Supervisor's current assignment and the clarifications asked and
answered, and the small steps every phase takes (count and run an activity, degrade to the offline agent, say a
line, end the run)."""

from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel
from temporalio import workflow

from workflows.common.agent_stream import AgentStream
from workflows.common.event_log import EventLog
from workflows.common.graph import START
from workflows.common.human_input import HumanInput
from workflows.common.run import GraphRun, NodeFailed
from workflows.content.graph import ERROR_HANDLER, FINALIZE, GRAPH
from workflows.policies import NodeOptions

with workflow.unsafe.imports_passed_through():
    from models.content.agents import (
        AgentName,
        Clarification,
        ClarificationAnswer,
        ContentView,
        SupervisorDecision,
    )
    from models.content.artifacts import Platform
    from models.content.events import SUPERVISOR_EVENTS, AgentFinished, ContentThought
    from models.content.options import Length
    from models.content.runs import ContentPost, ContentRunInput
    from models.content.state import MESSAGE_CHARS, ContentMessage, ContentMetadata, ContentState, EndReason
    from models.errors import ErrorCode, ErrorInfo
    from models.nodes import ActivitySpec

InputT = TypeVar("InputT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)


class Asking:
    """The clarification an agent asked for, and whether the run may still ask its user."""

    def __init__(self, agent: AgentName, clarification: Clarification, allowed: bool) -> None:
        self.agent = agent
        self.clarification = clarification
        self.allowed = allowed


class ContentRun:
    """One content run's shared context, held by each of its phases."""

    def __init__(self, input: ContentRunInput) -> None:
        self.input = input
        info = workflow.info()
        self.state = ContentState(
            messages=[ContentMessage(role="user", name="user", content=input.topic[:MESSAGE_CHARS])],
            reference_images=input.reference_images,
            layout_preference=input.layout_preference,
            image_gen_provider=input.image_gen_provider,
            max_iterations=input.max_iterations,
            thread_id=info.workflow_id,
            creative_id=f"content-{workflow.uuid4().hex[:16]}",
            metadata=ContentMetadata(
                current_node=START,
                start_time=workflow.now(),
                evidence_notes_ref=input.evidence_notes_ref,
                started_from=input.from_run,
            ),
        )
        self.events = EventLog(SUPERVISOR_EVENTS)
        self.run = GraphRun(GRAPH, self.events, self.state, error_node=ERROR_HANDLER)
        self.human = HumanInput(self.events)
        self.stream = AgentStream(self.events, self.run, one_text=False)
        """The agents' text as they write it (`content` events)."""
        self.assignment = SupervisorDecision()
        """The Supervisor's last decision: what the agent it routed to was asked to do."""
        self.answers: dict[AgentName, list[ClarificationAnswer]] = {}
        self.asking: Asking | None = None
        self.post: ContentPost | None = None

    @property
    def run_id(self) -> str:
        return workflow.info().workflow_id

    async def call(
        self, spec: ActivitySpec[InputT, ResultT], request: InputT, options: NodeOptions, *, summary: str
    ) -> ResultT:
        """One activity, counted in the run's metadata; raises `NodeFailed`."""
        self.state.metadata.activity_calls += 1
        return await self.run.call(spec, request, options, summary=summary)

    async def call_or_fail(
        self, spec: ActivitySpec[InputT, ResultT], request: InputT, options: NodeOptions, *, summary: str
    ) -> ResultT:
        """One activity, counted; when it failed for good the run ends through its error node (AGENT_FAILED)."""
        self.state.metadata.activity_calls += 1
        return await self.run.call_or_fail(spec, request, options, summary=summary, code=ErrorCode.AGENT_FAILED)

    async def call_with_degrade(
        self,
        spec: ActivitySpec[InputT, ResultT],
        request: InputT,
        offline: InputT,
        options: tuple[NodeOptions, NodeOptions],
        *,
        summary: str,
        node: str,
        then: Callable[[], None] = lambda: None,
    ) -> ResultT:
        """The LLM path (`request`, `options[0]`); when it failed for good the run says so at `node`, `then` runs,
        and the offline agent (`offline`, `options[1]`) answers; when that fails too the run ends (AGENT_FAILED)."""

        def degraded(err: NodeFailed) -> None:
            self.state.metadata.activity_calls += 1
            self.degraded(node, err)
            then()

        self.state.metadata.activity_calls += 1
        return await self.run.call_with_degrade(
            spec,
            request,
            options[0],
            summary=f"{summary} (LLM)",
            offline=offline,
            offline_options=options[1],
            offline_summary=f"{summary} (offline)",
            degraded=degraded,
            code=ErrorCode.AGENT_FAILED,
        )

    def degraded(self, node: str, err: NodeFailed) -> None:
        """An LLM that failed for good: reported, what it streamed void, and the offline version answers instead."""
        self.stream.discard(node)
        said = f"{node} 的大模型调用失败，改用离线版本"
        self.degraded_because(node, f"{said}：{err.cause}", said)

    def degraded_because(self, node: str, message: str, said: str | None = None) -> None:
        """The offline version answers instead of the LLM at `node`, for the reason `message`: an `error` event
        (AGENT_DEGRADED) and a warning (`said`, by default the message) say so."""
        self.state.metadata.degraded.append(node)
        error = ErrorInfo(code=ErrorCode.AGENT_DEGRADED, message=message[:500], node=node)
        self.events.emit("error", node, error)
        self.thought(node, said or error.message, level="warning")

    def view(self) -> ContentView:
        """What an agent may read of the run."""
        return state_view(
            self.state,
            topic=self.input.topic,
            platform=self.input.platform,
            tone=self.input.tone,
            length=self.input.length,
            evidence_notes_ref=self.input.evidence_notes_ref,
        )

    def agent_finished(self, agent: AgentName, summary: str, fields: list[str], offline: bool) -> None:
        self.events.emit(
            "agent_finished", agent, AgentFinished(agent=agent, summary=summary, fields=fields, offline=offline)
        )
        self.message("agent", agent.value, summary)

    def end(self, reason: EndReason, message: str) -> str:
        """The run ends (with what exists) for `reason`: the finalize node."""
        self.state.metadata.end_reason = reason
        self.state.metadata.end_message = message
        return FINALIZE

    def message(self, role: str, name: str, content: str) -> None:
        self.state.messages.append(
            ContentMessage.model_validate({"role": role, "name": name, "content": content[:MESSAGE_CHARS]})
        )

    def thought(self, node: str, message: str, *, level: str = "info") -> None:
        self.events.emit(
            "thought_log", node, ContentThought.model_validate({"node": node, "message": message, "level": level})
        )


def state_view(
    state: ContentState,
    *,
    topic: str,
    platform: Platform | None,
    tone: str | None = None,
    length: Length | None = None,
    evidence_notes_ref: str | None = None,
) -> ContentView:
    """What an agent may read: the run's inputs given here and the state's outputs so far."""
    return ContentView(
        topic=topic,
        platform=platform,
        evidence_notes_ref=evidence_notes_ref,
        reference_images=state.reference_images,
        layout_preference=state.layout_preference,
        tone=tone,
        length=length,
        creative_brief=state.creative_brief,
        evidence_pack=state.evidence_pack,
        body_blocks=state.body_blocks,
        reference_analyses=state.reference_analyses,
        layout_spec=state.layout_spec,
        image_plans=state.image_plans,
        generated_content=state.generated_content,
        generated_image_asset_ids=state.generated_image_asset_ids,
        review_feedback=state.review_feedback,
        quality_scores=state.quality_scores,
    )
