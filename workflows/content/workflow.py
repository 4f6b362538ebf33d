"""ContentSupervisorWorkflow: one social-media post (text and generated images) made by agents under an LLM
Supervisor, as a durable run (seed 001).

The Supervisor decides every step (`{next_agent, guidance, context_from_previous, focus_areas}`); the pure
routing of `workflows.content.routing` applies seed 001's flowchart to each decision, and the run records
every pass (`supervisor_decision`), every precondition correction (counted, and emitted as the
`content.precondition_corrections` metric) and every transition (checked against `GRAPH`). Agents are
activities that write only their own state fields (`workflows.content.patches`). The Supervisor, research and
image agents are tool loops run by this workflow: one activity per LLM turn, one per tool call (ARCHITECTURE
rule 11). An agent that needs the user asks through `HumanInput` (`clarificationRounds` is capped); the run ends
when the review approves, when the Supervisor ends it (only once the post is complete), or at `maxIterations`,
always with a `post_ready` of what exists and the reason.
"""

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from functools import partial
from typing import TypeVar

from pydantic import BaseModel
from temporalio import workflow

from workflows import policies
from workflows.common.event_log import EventLog
from workflows.common.graph import START
from workflows.common.human_input import HumanInput
from workflows.common.run import GraphRun, NodeFailed, NodeStep
from workflows.content.graph import CLARIFICATION, ERROR_HANDLER, FINALIZE, GRAPH
from workflows.content.images import ContentImages
from workflows.content.patches import apply_patch, record_write
from workflows.content.progress import artifact_status, progress
from workflows.content.routing import (
    IMAGE_TOOL_CALL_LIMIT,
    IMAGE_TOOLS,
    RESEARCH_TOOLS,
    SUPERVISOR,
    SUPERVISOR_TOOLS,
    quality_fallback,
    route_from_supervisor,
    should_continue_image,
    should_continue_research,
    should_continue_review,
    should_continue_supervisor,
)
from workflows.policies import NodeOptions

with workflow.unsafe.imports_passed_through():
    from llm.types import Message, ToolCall, ToolResultPart
    from models.content import nodes
    from models.content.agents import (
        AGENT_LABELS,
        END,
        AgentName,
        AgentOutcome,
        AgentRequest,
        Clarification,
        ClarificationAnswer,
        ContentView,
        SupervisorDecision,
    )
    from models.content.artifacts import is_quality_approved
    from models.content.events import (
        SUPERVISOR_EVENTS,
        AgentFinished,
        AgentStarted,
        ContentThought,
        DecisionMade,
        ImageGenerated,
        ReviewResult,
        ToolCalled,
        ToolReturned,
    )
    from models.content.post import assemble_post, images_complete
    from models.content.runs import ContentPost, ContentResult, ContentRunInput
    from models.content.state import (
        MESSAGE_CHARS,
        ContentMessage,
        ContentMetadata,
        ContentState,
        EndReason,
        RouteRecord,
    )
    from models.content.turns import ToolCallRequest, ToolCallResult, ToolLoop, Turn, TurnRequest
    from models.errors import ErrorCode, ErrorInfo
    from models.events import RunStatus
    from models.human_input import InputOption
    from models.nodes import ActivitySpec

InputT = TypeVar("InputT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)
ToolRun = Callable[[ToolCallRequest, str], Awaitable[ToolCallResult]]
"""Runs one tool call (its request and the Web UI summary) to its result; raises `NodeFailed`."""

CORRECTIONS_METRIC = "content.precondition_corrections"
SUPERVISOR_TOOL_ROUNDS = 4
"""Tool rounds the Supervisor may take per decision; after that its turn is asked for the decision alone."""
RESEARCH_TOOL_CALLS = 8
"""Tool calls research may make per visit; after that its turn is asked for its findings alone."""
ASSUME = "（不再询问用户：请按最常见的情况自行假设，并把假设写明）"


class _Asking:
    """The clarification an agent asked for, and whether the run may still ask its user."""

    def __init__(self, agent: AgentName, clarification: Clarification, allowed: bool) -> None:
        self.agent = agent
        self.clarification = clarification
        self.allowed = allowed


@workflow.defn
class ContentSupervisorWorkflow:
    """One content run: its state is queryable as `state`, its events stream until `done`."""

    @workflow.init
    def __init__(self, input: ContentRunInput) -> None:
        self._input = input
        info = workflow.info()
        self._state = ContentState(
            messages=[ContentMessage(role="user", name="user", content=input.topic[:MESSAGE_CHARS])],
            reference_images=input.reference_images,
            layout_preference=input.layout_preference,
            image_gen_provider=input.image_gen_provider,
            max_iterations=input.max_iterations,
            thread_id=info.workflow_id,
            creative_id=f"content-{workflow.uuid4().hex[:16]}",
            metadata=ContentMetadata(current_node=START, start_time=workflow.now()),
        )
        self._events = EventLog(SUPERVISOR_EVENTS)
        self._run = GraphRun(GRAPH, self._events, self._state, error_node=ERROR_HANDLER)
        self._human = HumanInput(self._events)
        self._corrections = workflow.metric_meter().create_counter(
            CORRECTIONS_METRIC, "Supervisor decisions corrected because a basic precondition was missing"
        )
        self._conversations: dict[ToolLoop, list[Message]] = {"supervisor": [], "research": [], "image": []}
        self._offline_loops: set[ToolLoop] = set()
        self._pending: list[ToolCall] = []
        self._assignment = SupervisorDecision()
        self._answers: dict[AgentName, list[ClarificationAnswer]] = {}
        self._asking: _Asking | None = None
        self._image_calls = 0
        self._images_before: dict[str, str] = {}
        self._post: ContentPost | None = None
        self._images = ContentImages(
            input,
            self._run,
            self._call,
            say=lambda message, level: self._thought(AgentName.IMAGE, message, level=level),
            report=lambda error: self._events.emit("error", AgentName.IMAGE, error),
        )

    @workflow.query(name="state")
    def state(self) -> ContentState:
        return self._state

    @workflow.run
    async def run(self, input: ContentRunInput) -> ContentResult:
        steps: dict[str, NodeStep] = {
            SUPERVISOR: self._supervisor,
            SUPERVISOR_TOOLS: self._supervisor_tools,
            AgentName.RESEARCH_EVIDENCE: self._research,
            RESEARCH_TOOLS: self._research_tools,
            AgentName.IMAGE: self._image,
            IMAGE_TOOLS: self._image_tools,
            CLARIFICATION: self._clarification,
            FINALIZE: self._finalize,
            ERROR_HANDLER: self._error_handler,
        }
        for agent in nodes.TOOLLESS_AGENTS:
            steps[agent] = partial(self._agent, agent)
        waits = input.max_clarification_rounds * input.input_timeout_seconds
        status = await self._run.execute(
            steps, first=SUPERVISOR, deadline=timedelta(seconds=input.deadline_seconds + waits)
        )
        return self._result(status)

    # ---- the Supervisor ----

    async def _supervisor(self) -> str:
        state = self._state
        if state.iteration_count >= state.max_iterations:
            message = f"已达到 maxIterations={state.max_iterations}：按现有结果结束"
            self._route_taken(
                RouteRecord(
                    iteration=state.iteration_count, decision=None, routed_to=END, rule="max_iterations", reason=message
                )
            )
            return self._end("max_iterations", message)
        conversation = self._conversations["supervisor"]
        rounds = sum(1 for message in conversation if message.role == "tool")
        before = progress(state)
        request = TurnRequest(
            loop="supervisor",
            view=self._view(),
            conversation=list(conversation),
            progress=before,
            tool_calls_made=rounds,
            tools_allowed=rounds < SUPERVISOR_TOOL_ROUNDS,
            use_llm=self._input.llm_configured,
            run_id=workflow.info().workflow_id,
        )
        turn = await self._turn(nodes.SUPERVISOR_TURN, request, "supervisor decides")
        if turn is None:
            return ERROR_HANDLER
        if should_continue_supervisor(len(turn.tool_calls)) == SUPERVISOR_TOOLS:
            conversation.append(turn.as_message())
            self._pending = list(turn.tool_calls)
            return SUPERVISOR_TOOLS
        self._conversations["supervisor"] = []
        state.iteration_count += 1
        route = route_from_supervisor(turn.decision, state)
        decided = turn.decision.next_agent if turn.decision else ""
        target = FINALIZE if route.target == END else route.target
        self._route_taken(
            RouteRecord(
                iteration=state.iteration_count,
                decision=turn.decision,
                routed_to=route.target,
                rule=route.rule,
                reason=route.reason,
            )
        )
        if route.rule == "precondition":
            corrections = state.metadata.precondition_corrections
            corrections[decided] = corrections.get(decided, 0) + 1
            self._corrections.add(1, {"target_node": decided, "fallback_node": route.target})
            self._thought(SUPERVISOR, f"前置条件纠正：{route.reason}", level="warning")
        if route.target == END:
            return self._end("supervisor_end", route.reason)
        if route.target == SUPERVISOR:
            return SUPERVISOR
        agent = AgentName(target)
        self._assignment = turn.decision or SupervisorDecision()
        fallback = before.quality_fallback
        if fallback is not None and fallback.agent is agent:
            tried = state.metadata.fallbacks_tried
            tried[fallback.dimension.value] = tried.get(fallback.dimension.value, 0) + 1
        self._events.emit(
            "agent_started",
            agent,
            AgentStarted(
                agent=agent,
                iteration=state.iteration_count,
                guidance=self._assignment.guidance,
                focus_areas=self._assignment.focus_areas,
            ),
        )
        return agent

    async def _supervisor_tools(self) -> str:
        await self._run_tools("supervisor", self._activity_tool(nodes.SUPERVISOR_TOOL, policies.SUPERVISOR_TOOL))
        return SUPERVISOR

    def _route_taken(self, record: RouteRecord) -> None:
        self._state.metadata.routes.append(record)
        decided = record.decision.next_agent if record.decision else ""
        self._events.emit(
            "supervisor_decision",
            SUPERVISOR,
            DecisionMade(
                iteration=record.iteration,
                decision=record.decision,
                routed_to=record.routed_to,
                rule=record.rule,
                reason=record.reason,
                corrected=record.rule == "precondition",
            ),
        )
        said = f"next_agent={decided or '（空）'} → {record.routed_to}（{record.rule}）"
        self._message("supervisor", "supervisor", f"{said} {record.reason}")

    # ---- agents without tools ----

    async def _agent(self, agent: AgentName) -> str:
        state = self._state
        may_ask = state.clarification_rounds < self._input.max_clarification_rounds
        request = AgentRequest(
            agent=agent,
            view=self._view(),
            guidance=self._assignment.guidance,
            focus_areas=self._assignment.focus_areas,
            context_from_previous=self._assignment.context_from_previous,
            answers=self._answers.get(agent, []),
            may_ask=may_ask,
            asked=list(state.agent_clarification_keys),
            use_llm=self._input.llm_configured and agent is not AgentName.REFERENCE_INTELLIGENCE,
            run_id=workflow.info().workflow_id,
        )
        outcome = await self._agent_call(request)
        if outcome is None:
            return ERROR_HANDLER
        question = outcome.clarification
        if question is not None and question.key not in state.agent_clarification_keys:
            assumed = any(answer.key == question.key for answer in self._answers.get(agent, []))
            if not assumed:
                self._asking = _Asking(agent, question, allowed=may_ask)
                return CLARIFICATION
        self._finish_agent(agent, outcome)
        if agent is AgentName.REVIEW:
            return self._after_review()
        return SUPERVISOR

    async def _agent_call(self, request: AgentRequest) -> AgentOutcome | None:
        spec = nodes.AGENTS[request.agent]
        label = AGENT_LABELS[request.agent]
        if request.agent is AgentName.REFERENCE_INTELLIGENCE:
            return await self._call_or_fail(spec, request, policies.REFERENCE_ANALYSIS, f"{label}: measure")
        if request.use_llm:
            try:
                return await self._call(spec, request, policies.CONTENT_AGENT, summary=f"{label} (LLM)")
            except NodeFailed as err:
                self._degraded(request.agent, err)
                request = request.model_copy(update={"use_llm": False})
        return await self._call_or_fail(spec, request, policies.CONTENT_AGENT_OFFLINE, f"{label} (offline)")

    def _finish_agent(self, agent: AgentName, outcome: AgentOutcome) -> None:
        fields = apply_patch(self._state, agent, outcome.patch)
        self._agent_finished(agent, outcome.summary, fields, outcome.offline)

    def _agent_finished(self, agent: AgentName, summary: str, fields: list[str], offline: bool) -> None:
        self._events.emit(
            "agent_finished", agent, AgentFinished(agent=agent, summary=summary, fields=fields, offline=offline)
        )
        self._message("agent", agent.value, summary)

    def _after_review(self) -> str:
        """Seed 001 `shouldContinueReview()`, with the quality fallback the Supervisor is told about."""
        state = self._state
        feedback, scores = state.review_feedback, state.quality_scores
        assert feedback is not None and scores is not None, "the review writes its feedback and scores"
        fallback = quality_fallback(scores)
        result = ReviewResult(
            feedback=feedback, scores=scores, quality_approved=is_quality_approved(scores), fallback=fallback
        )
        self._events.emit("review_result", AgentName.REVIEW, result)
        if should_continue_review(feedback.approved, scores) == END:
            return self._end("approved", "审核通过，各质量维度均达标")
        if fallback is not None:
            self._thought(
                AgentName.REVIEW,
                f"审核未通过：{fallback.dimension.value}={fallback.score:.2f} 偏低 → 建议回退到 {fallback.agent.value}",
                level="warning",
            )
        return SUPERVISOR

    # ---- research: a tool loop ----

    async def _research(self) -> str:
        agent = AgentName.RESEARCH_EVIDENCE
        self._enter_loop("research", RESEARCH_TOOLS)
        turn = await self._loop_turn(nodes.RESEARCH_TURN, "research", f"{AGENT_LABELS[agent]} turn")
        if turn is None:
            return ERROR_HANDLER
        if should_continue_research(len(turn.tool_calls)) == RESEARCH_TOOLS:
            self._conversations["research"].append(turn.as_message())
            self._pending = list(turn.tool_calls)
            return RESEARCH_TOOLS
        if turn.outcome is None:
            return self._run.fail_with(
                ErrorInfo(code=ErrorCode.AGENT_FAILED, message="调研没有给出证据也没有调用工具", node=agent)
            )
        self._finish_agent(agent, turn.outcome)
        return SUPERVISOR

    async def _research_tools(self) -> str:
        await self._run_tools("research", self._activity_tool(nodes.RESEARCH_TOOL, policies.SUPERVISOR_TOOL))
        return AgentName.RESEARCH_EVIDENCE

    # ---- images: a tool loop ----

    async def _image(self) -> str:
        state = self._state
        agent = AgentName.IMAGE
        if self._enter_loop("image", IMAGE_TOOLS):
            self._image_calls = 0
            self._images_before = dict(state.generated_image_asset_ids)
            planned = {plan.plan_id for plan in state.image_plans}
            if artifact_status(agent, state) == "stale" and state.metadata.written_at.get(agent.value) is not None:
                state.generated_image_asset_ids = {}  # the plans changed since: every image is drawn again
            else:
                state.generated_image_asset_ids = {
                    plan_id: image for plan_id, image in state.generated_image_asset_ids.items() if plan_id in planned
                }
        complete = images_complete(state)
        if complete:
            return self._leave_image()
        turn = await self._loop_turn(nodes.IMAGE_TURN, "image", f"{AGENT_LABELS[agent]} turn")
        if turn is None:
            return ERROR_HANDLER
        if should_continue_image(complete, len(turn.tool_calls), self._image_calls) == IMAGE_TOOLS:
            calls = turn.tool_calls[: IMAGE_TOOL_CALL_LIMIT - self._image_calls]
            self._conversations["image"].append(Message.assistant(turn.text, tuple(calls)))
            self._pending = calls
            return IMAGE_TOOLS
        if turn.tool_calls:
            self._thought(
                agent,
                f"图片工具已调用 {self._image_calls} 次（上限 {IMAGE_TOOL_CALL_LIMIT}）：返回 Supervisor",
                level="warning",
            )
        return self._leave_image()

    async def _image_tools(self) -> str:
        results = await self._run_tools("image", self._images.generate)
        self._image_calls += len(results)
        for result in results:
            if result.image is not None:
                self._state.generated_image_asset_ids[result.image.plan_id] = result.image.image
                self._events.emit(
                    "image_generated",
                    AgentName.IMAGE,
                    ImageGenerated(plan_id=result.image.plan_id, image_url=result.image.image),
                )
        return AgentName.IMAGE

    def _leave_image(self) -> str:
        state = self._state
        changed = state.generated_image_asset_ids != self._images_before
        fields = ["generated_image_asset_ids"] if changed else []
        record_write(state, AgentName.IMAGE, fields)
        done = len(state.generated_image_asset_ids)
        summary = f"已生成 {done}/{len(state.image_plans)} 张配图（本轮工具调用 {self._image_calls} 次）"
        offline = "image" in self._offline_loops or not self._input.llm_configured
        self._agent_finished(AgentName.IMAGE, summary, fields, offline)
        return SUPERVISOR

    # ---- tool loops ----

    def _enter_loop(self, loop: ToolLoop, tools_node: str) -> bool:
        """Start the loop's conversation afresh unless the run comes back from the loop's tools; True when fresh."""
        transitions = self._state.metadata.transitions
        if transitions and transitions[-1][0] == tools_node:
            return False
        self._conversations[loop] = []
        self._offline_loops.discard(loop)
        return True

    async def _loop_turn(self, spec: ActivitySpec[TurnRequest, Turn], loop: ToolLoop, summary: str) -> Turn | None:
        conversation = self._conversations[loop]
        made = sum(len(message.tool_calls) for message in conversation)
        request = TurnRequest(
            loop=loop,
            view=self._view(),
            conversation=list(conversation),
            guidance=self._assignment.guidance,
            focus_areas=self._assignment.focus_areas,
            tool_calls_made=made,
            tools_allowed=loop != "research" or made < RESEARCH_TOOL_CALLS,
            use_llm=self._input.llm_configured and loop not in self._offline_loops,
            run_id=workflow.info().workflow_id,
        )
        turn = await self._turn(spec, request, summary)
        if turn is not None and turn.offline and request.use_llm:
            self._offline_loops.add(loop)
        return turn

    async def _turn(self, spec: ActivitySpec[TurnRequest, Turn], request: TurnRequest, summary: str) -> Turn | None:
        """One LLM turn; when the LLM fails for good, the loop starts again offline. None: the run failed."""
        llm_options, offline_options = _TURN_OPTIONS[spec.name]
        if request.use_llm:
            try:
                return await self._call(spec, request, llm_options, summary=f"{summary} (LLM)")
            except NodeFailed as err:
                self._degraded(self._run.node, err)
                self._conversations[request.loop] = []
                request = request.model_copy(update={"use_llm": False, "conversation": []})
        return await self._call_or_fail(spec, request, offline_options, f"{summary} (offline)")

    async def _run_tools(self, loop: ToolLoop, run: ToolRun) -> list[ToolCallResult]:
        """The pending tool calls, side by side, each run by `run`; their results join the loop's conversation."""
        calls, self._pending = self._pending, []
        view = self._view()
        results = await asyncio.gather(*(self._tool(run, loop, call, view) for call in calls))
        parts = [
            ToolResultPart(call_id=result.call_id, name=result.name, content=result.content, is_error=result.is_error)
            for result in results
        ]
        self._conversations[loop].append(Message.tool_results(parts))
        return list(results)

    def _activity_tool(self, spec: ActivitySpec[ToolCallRequest, ToolCallResult], options: NodeOptions) -> ToolRun:
        """Tool calls that are one activity each."""
        return lambda request, summary: self._call(spec, request, options, summary=summary)

    async def _tool(self, run: ToolRun, loop: ToolLoop, call: ToolCall, view: ContentView) -> ToolCallResult:
        node = self._run.node
        self._events.emit(
            "tool_call", node, ToolCalled(loop=loop, call_id=call.id, tool=call.name, arguments=call.arguments)
        )
        request = ToolCallRequest(loop=loop, call=call, view=view, run_id=workflow.info().workflow_id)
        arguments = ", ".join(f"{name}={value}" for name, value in call.arguments.items())[:80]
        try:
            result = await run(request, f"{loop} tool: {call.name}({arguments})")
        except NodeFailed as err:
            message = f"工具 {call.name} 失败：{err.cause}"[:300]
            result = ToolCallResult(call_id=call.id, name=call.name, content=message, is_error=True, summary=message)
        self._events.emit(
            "tool_result",
            node,
            ToolReturned(loop=loop, call_id=call.id, tool=call.name, summary=result.summary, is_error=result.is_error),
        )
        self._message("tool", call.name, result.summary)
        return result

    # ---- clarification, the end, errors ----

    async def _clarification(self) -> str:
        state = self._state
        asking = self._asking
        assert asking is not None, "an agent asked before the run came here"
        self._asking = None
        agent, question = asking.agent, asking.clarification
        answers = self._answers.setdefault(agent, [])
        if not asking.allowed:
            answers.append(ClarificationAnswer(key=question.key, question=question.question, answer=ASSUME))
            rounds = self._input.max_clarification_rounds
            self._thought(CLARIFICATION, f"已问过 {rounds} 次（上限）：{agent.value} 自行假设", level="warning")
            return agent
        state.clarification_rounds += 1
        state.agent_clarification_keys.append(question.key)
        options = [InputOption(id=option_id, label=label) for option_id, label in question.options]
        answer = await self._human.ask(
            CLARIFICATION,
            question.question,
            options,
            timeout=timedelta(seconds=self._input.input_timeout_seconds),
            allow_free_text=True,
        )
        if answer is None:
            return self._end("clarification_expired", f"澄清问题“{question.question}”在截止前无人回答：按现有结果结束")
        chosen = answer.option.label if answer.option else answer.answer
        answers.append(ClarificationAnswer(key=question.key, question=question.question, answer=answer.answer))
        self._message("clarification", question.key, f"{question.question} → {chosen}")
        return agent

    def _end(self, reason: EndReason, message: str) -> str:
        self._state.metadata.end_reason = reason
        self._state.metadata.end_message = message
        return FINALIZE

    async def _finalize(self) -> str:
        post = assemble_post(self._state)
        self._post = post
        self._events.emit("post_ready", FINALIZE, post)
        return GRAPH.end

    async def _error_handler(self) -> str:
        for task_id in await self._images.cancel_waiting():
            self._thought(ERROR_HANDLER, f"已取消图片服务的任务 {task_id}")
        error = self._state.error or ErrorInfo(code=ErrorCode.UNKNOWN_ERROR, message="未知错误", node="unknown")
        self._events.emit("error", ERROR_HANDLER, error)
        return GRAPH.end

    # ---- helpers ----

    async def _call(
        self, spec: ActivitySpec[InputT, ResultT], request: InputT, options: NodeOptions, *, summary: str
    ) -> ResultT:
        self._state.metadata.activity_calls += 1
        return await self._run.call(spec, request, options, summary=summary)

    async def _call_or_fail(
        self, spec: ActivitySpec[InputT, ResultT], request: InputT, options: NodeOptions, summary: str
    ) -> ResultT | None:
        try:
            return await self._call(spec, request, options, summary=summary)
        except NodeFailed as err:
            self._run.fail(err, ErrorCode.AGENT_FAILED)
            return None

    def _view(self) -> ContentView:
        state = self._state
        return ContentView(
            topic=self._input.topic,
            platform=self._input.platform,
            evidence_notes_ref=self._input.evidence_notes_ref,
            reference_images=state.reference_images,
            layout_preference=state.layout_preference,
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

    def _degraded(self, node: str, err: NodeFailed) -> None:
        """An LLM that failed for good: reported, and the offline version answers instead."""
        self._state.metadata.degraded.append(node)
        message = f"{node} 的大模型调用失败，改用离线版本：{err.cause}"[:500]
        self._events.emit("error", node, ErrorInfo(code=ErrorCode.AGENT_DEGRADED, message=message, node=node))
        self._thought(node, f"{node} 的大模型调用失败，改用离线版本", level="warning")

    def _message(self, role: str, name: str, content: str) -> None:
        self._state.messages.append(
            ContentMessage.model_validate({"role": role, "name": name, "content": content[:MESSAGE_CHARS]})
        )

    def _thought(self, node: str, message: str, *, level: str = "info") -> None:
        self._events.emit(
            "thought_log", node, ContentThought.model_validate({"node": node, "message": message, "level": level})
        )

    def _result(self, status: RunStatus) -> ContentResult:
        return ContentResult(
            status=status,
            post=self._post,
            iterations=self._state.iteration_count,
            precondition_corrections=dict(self._state.metadata.precondition_corrections),
        )


_TURN_OPTIONS: dict[str, tuple[NodeOptions, NodeOptions]] = {
    nodes.SUPERVISOR_TURN.name: (policies.SUPERVISOR_TURN, policies.SUPERVISOR_TURN_OFFLINE),
    nodes.RESEARCH_TURN.name: (policies.CONTENT_AGENT, policies.CONTENT_AGENT_OFFLINE),
    nodes.IMAGE_TURN.name: (policies.CONTENT_AGENT, policies.CONTENT_AGENT_OFFLINE),
}
"""Each loop's turn: with the LLM, and offline."""
