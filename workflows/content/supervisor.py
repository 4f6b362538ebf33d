"""The Supervisor's nodes: its tool loop (`supervisor` asks the next turn, `supervisor_tools` runs its calls) and
the routing of its decision by seed 001's flowchart (`workflows.content.routing`). Every pass is recorded
(`supervisor_decision`, `RouteRecord`), and every precondition correction is counted and emitted as the
`content.precondition_corrections` metric.

An answer the Supervisor's LLM could not make readable (its turn comes back `unreadable`, after the activity's
repair round) routes back to it; after `UNREADABLE_LIMIT` of them in a row the run says so (`AGENT_DEGRADED`,
naming the node and the last reason) and the offline Supervisor policy decides for the rest of the run."""

from temporalio import workflow

from workflows import policies
from workflows.common.patches import patched
from workflows.content.context import ContentRun
from workflows.content.fallbacks import CANNOT_IMPROVE, cannot_improve_message, fallback_table, judge, remember
from workflows.content.graph import FINALIZE
from workflows.content.progress import progress
from workflows.content.routing import (
    SUPERVISOR,
    SUPERVISOR_TOOLS,
    Route,
    corrected_again,
    end_refused_after_review,
    route_from_supervisor,
    should_continue_supervisor,
)
from workflows.content.tool_loops import ContentLoops

with workflow.unsafe.imports_passed_through():
    from models.content import nodes
    from models.content.agents import END, AgentName, SupervisorDecision
    from models.content.events import AgentStarted, DecisionMade
    from models.content.state import RouteRecord
    from models.content.turns import SUPERVISOR_MESSAGES, TurnRequest
    from models.writing.language import written_in_english

CORRECTIONS_METRIC = "content.precondition_corrections"
UNREADABLE_LIMIT = 3
"""Unreadable Supervisor answers in a row after which its offline policy decides for the rest of the run."""
OFFLINE_AFTER_UNREADABLE = "content-supervisor-offline-after-unreadable"
"""`workflow.patched` id: the run's Supervisor turns go offline (local activities) after unreadable answers."""
PRECONDITION_OF_THE_FALLBACK = "content-precondition-of-the-fallback"
"""`workflow.patched` id: a correction's fallback that lacks its own precondition is corrected once more."""
END_AFTER_FAILED_REVIEW = "content-end-refused-after-failed-review"
"""`workflow.patched` id: END right after a failed review goes back to the Supervisor (seed 001's prompt rule)."""


class SupervisorNodes:
    """The `supervisor` and `supervisor_tools` nodes."""

    def __init__(self, context: ContentRun, loops: ContentLoops) -> None:
        self._context = context
        self._loops = loops
        self._corrections = workflow.metric_meter().create_counter(
            CORRECTIONS_METRIC, "Supervisor decisions corrected because a basic precondition was missing"
        )
        self._unreadable = 0
        self._offline = False

    async def supervisor(self) -> str:
        context = self._context
        state = context.state
        english = written_in_english(context.input.topic)
        if state.iteration_count >= state.max_iterations:
            message = (
                f"Reached maxIterations={state.max_iterations}: the run ends with what it has"
                if english
                else f"已达到 maxIterations={state.max_iterations}：按现有结果结束"
            )
            self._route_taken(
                RouteRecord(
                    iteration=state.iteration_count, decision=None, routed_to=END, rule="max_iterations", reason=message
                )
            )
            return context.end("max_iterations", message)
        if patched(CANNOT_IMPROVE):
            judge(state, english=english)
            offline = not context.input.llm_configured or self._offline
            stuck = cannot_improve_message(state, offline=offline, english=english)
            if stuck is not None:
                self._route_taken(
                    RouteRecord(
                        iteration=state.iteration_count,
                        decision=None,
                        routed_to=END,
                        rule="cannot_improve",
                        reason=stuck[:200],
                    )
                )
                return context.end("cannot_improve", stuck)
        conversation = self._loops.conversations["supervisor"]
        table = fallback_table()
        before = progress(state, table)
        request = TurnRequest(
            loop="supervisor",
            view=context.view(),
            conversation=conversation.history(),
            progress=before,
            tool_calls_made=conversation.rounds,
            tools_allowed=conversation.tools_allowed,
            use_llm=context.input.llm_configured and not self._offline,
            run_id=context.run_id,
            messages=state.messages[-SUPERVISOR_MESSAGES:],
        )
        turn = await self._loops.turn(nodes.SUPERVISOR_TURN, request, "supervisor decides")
        if should_continue_supervisor(len(turn.tool_calls)) == SUPERVISOR_TOOLS:
            self._loops.record("supervisor", turn.text, turn.tool_calls)
            return SUPERVISOR_TOOLS
        conversation.clear()
        state.iteration_count += 1
        route = route_from_supervisor(turn.decision, state)
        if turn.unreadable:
            route = Route(route.target, route.rule, turn.unreadable)
        again = corrected_again(route, state)
        if again is not None and patched(PRECONDITION_OF_THE_FALLBACK):
            route = again
        refused = end_refused_after_review(state, table) if route.rule == "end" else None
        if refused is not None and patched(END_AFTER_FAILED_REVIEW):
            route = Route(SUPERVISOR, "end_refused", refused)
        self._unreadable = self._unreadable + 1 if turn.unreadable else 0
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
            context.thought(SUPERVISOR, f"前置条件纠正：{route.reason}", level="warning")
        if route.target == END:
            said = "The Supervisor ended the run: the text and images are done and reviewed"
            return context.end("supervisor_end", said if english else route.reason)
        if route.target == SUPERVISOR:
            if self._unreadable >= UNREADABLE_LIMIT and patched(OFFLINE_AFTER_UNREADABLE):
                self._offline = True
                reason = f"连续 {self._unreadable} 次无法读取 Supervisor 的决策，改用离线策略：{route.reason}"
                context.degraded_because(SUPERVISOR, reason)
            return SUPERVISOR
        agent = AgentName(target)
        context.assignment = turn.decision or SupervisorDecision()
        fallback = before.quality_fallback
        if fallback is not None and fallback.agent is agent:
            tried = state.metadata.fallbacks_tried
            tried[fallback.dimension.value] = tried.get(fallback.dimension.value, 0) + 1
            if patched(CANNOT_IMPROVE):
                remember(state, fallback)
        started = AgentStarted(
            agent=agent,
            iteration=state.iteration_count,
            guidance=context.assignment.guidance,
            focus_areas=context.assignment.focus_areas,
        )
        context.events.emit("agent_started", agent, started)
        return agent

    async def supervisor_tools(self) -> str:
        await self._loops.run_tools(
            "supervisor", self._loops.activity_tool(nodes.SUPERVISOR_TOOL, policies.SUPERVISOR_TOOL)
        )
        return SUPERVISOR

    def _route_taken(self, record: RouteRecord) -> None:
        self._context.state.metadata.routes.append(record)
        decided = record.decision.next_agent if record.decision else ""
        made = DecisionMade(
            iteration=record.iteration,
            decision=record.decision,
            routed_to=record.routed_to,
            rule=record.rule,
            reason=record.reason,
            corrected=record.rule == "precondition",
        )
        self._context.events.emit("supervisor_decision", SUPERVISOR, made)
        said = f"next_agent={decided or '（空）'} → {record.routed_to}（{record.rule}）"
        self._context.message("supervisor", "supervisor", f"{said} {record.reason}")
