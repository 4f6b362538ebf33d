"""ContentSupervisorWorkflow: one social-media post (text and generated images) made by agents under an LLM
Supervisor, as a durable run (seed 001).

The Supervisor decides every step (`{next_agent, guidance, context_from_previous, focus_areas}`); the pure
routing of `workflows.content.routing` applies seed 001's flowchart to each decision, and the run records
every pass (`supervisor_decision`), every precondition correction (counted, and emitted as the
`content.precondition_corrections` metric) and every transition (checked against `GRAPH`). Agents are
activities that write only their own state fields (`workflows.content.patches`). The Supervisor, research and
image agents are tool loops run by this workflow: one activity per LLM turn, one per tool call (ARCHITECTURE
rule 11). An agent that needs the user asks through `HumanInput` (`clarificationRounds` is capped); the run ends
when the review approves, when the Supervisor ends it (only once the post is complete), when every failing quality
dimension cannot improve (`workflows.content.fallbacks`), or at `maxIterations`, always with a `post_ready` of
what exists and the reason; a post that is not complete is also an `error` event (POST_INCOMPLETE, or POST_EMPTY
and the run `failed` when it has no text). A complete post the review did not
approve is a deliverable, not an error: `post_ready` says so (`approved: false`, `endReason`, `endMessage`).

This module holds the workflow class, its step map and its two last nodes; the phases live beside it:
`supervisor` (the Supervisor's loop and routing), `agents` (the agents without tools), `research` and
`image_agent` (the tool-loop agents, on `tool_loops`), `clarification` (asking the user), and `context` (what
they share).
"""

from datetime import timedelta
from functools import partial

from temporalio import workflow

from workflows.common.patches import decide_at_start
from workflows.common.run import NodeStep
from workflows.content.agents import AgentNodes
from workflows.content.clarification import ClarificationNode
from workflows.content.context import ContentRun
from workflows.content.graph import CLARIFICATION, ERROR_HANDLER, FINALIZE, GRAPH
from workflows.content.image_agent import ImageAgentNodes
from workflows.content.images import ContentImages
from workflows.content.research import ResearchNodes
from workflows.content.routing import IMAGE_TOOLS, RESEARCH_TOOLS, SUPERVISOR, SUPERVISOR_TOOLS, missing_for_end
from workflows.content.supervisor import SupervisorNodes
from workflows.content.tool_loops import ContentLoops

with workflow.unsafe.imports_passed_through():
    from models.content import nodes
    from models.content.agents import AgentName
    from models.content.errors import ContentErrorCode
    from models.content.post import assemble_post
    from models.content.runs import ContentPost, ContentResult, ContentRunInput
    from models.content.state import ContentState
    from models.errors import ErrorInfo
    from models.events import RunStatus
    from models.streaming import CONTENT_SIGNAL, ContentDelta


@workflow.defn
class ContentSupervisorWorkflow:
    """One content run: its state is queryable as `state`, its events stream until `done`."""

    @workflow.init
    def __init__(self, input: ContentRunInput) -> None:
        context = ContentRun(input)
        self._context = context
        loops = ContentLoops(context)
        self._supervisor = SupervisorNodes(context, loops)
        self._agents = AgentNodes(context)
        self._research = ResearchNodes(context, loops)
        self._images = ContentImages(
            input,
            context.run,
            context.call,
            say=lambda message, level: context.thought(AgentName.IMAGE, message, level=level),
            report=lambda error: context.events.emit("error", AgentName.IMAGE, error),
        )
        self._image = ImageAgentNodes(context, loops, self._images)
        self._clarification = ClarificationNode(context)

    @workflow.query(name="state")
    def state(self) -> ContentState:
        return self._context.state

    @workflow.signal(name=CONTENT_SIGNAL)
    def content_delta(self, delta: ContentDelta) -> None:
        """A batch of an agent's answer text: shown as `content`, once, in order (`workflows.common.agent_stream`)."""
        self._context.stream.receive(delta)

    @workflow.run
    async def run(self, input: ContentRunInput) -> ContentResult:
        decide_at_start()  # before anything else: workflows/common/patches.py
        steps: dict[str, NodeStep] = {
            SUPERVISOR: self._supervisor.supervisor,
            SUPERVISOR_TOOLS: self._supervisor.supervisor_tools,
            AgentName.RESEARCH_EVIDENCE: self._research.research,
            RESEARCH_TOOLS: self._research.research_tools,
            AgentName.IMAGE: self._image.image,
            IMAGE_TOOLS: self._image.image_tools,
            CLARIFICATION: self._clarification.clarification,
            FINALIZE: self._finalize,
            ERROR_HANDLER: self._error_handler,
        }
        for agent in nodes.TOOLLESS_AGENTS:
            steps[agent] = partial(self._agents.agent, agent)
        waits = input.max_clarification_rounds * input.input_timeout_seconds
        status = await self._context.run.execute(
            steps, first=SUPERVISOR, deadline=timedelta(seconds=input.deadline_seconds + waits)
        )
        return self._result(status)

    async def _finalize(self) -> str:
        context = self._context
        post = assemble_post(context.state)
        context.post = post
        context.events.emit("post_ready", FINALIZE, post)
        if not post.complete:
            self._unfinished(post)
        return GRAPH.end

    def _unfinished(self, post: ContentPost) -> None:
        """A post without its text, or without every planned image, never ends as a plain success: an `error`
        event says what is missing and why the run ended; with no text at all the run ends `failed` (POST_EMPTY),
        with text it ends `completed` and the event (POST_INCOMPLETE) is its warning."""
        state = self._context.state
        missing = missing_for_end(state)
        why = state.metadata.end_message or state.metadata.end_reason or ""
        text = bool(state.generated_content and state.generated_content.body.strip())
        code = ContentErrorCode.POST_INCOMPLETE if text else ContentErrorCode.POST_EMPTY
        message = f"帖子未完成（{'、'.join(missing)}）：{why}"[:500]
        error = ErrorInfo(code=code, message=message, node=FINALIZE)
        self._context.events.emit("error", FINALIZE, error)
        if not text:
            state.error = error

    async def _error_handler(self) -> str:
        for task_id in await self._images.cancel_waiting():
            self._context.thought(ERROR_HANDLER, f"已取消图片服务的任务 {task_id}")
        self._context.run.report_error(ERROR_HANDLER)
        return GRAPH.end

    def _result(self, status: RunStatus) -> ContentResult:
        state = self._context.state
        return ContentResult(
            status=status,
            post=self._context.post,
            iterations=state.iteration_count,
            precondition_corrections=dict(state.metadata.precondition_corrections),
        )
