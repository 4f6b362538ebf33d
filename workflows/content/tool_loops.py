"""The content run's three tool loops (the Supervisor's, research's and the image agent's) on the shared
`workflows.common.tool_loop`: each loop spans two graph nodes, a turn node (`turn`, then `record` the calls) and
a tools node (`run_tools`). A turn whose LLM failed for good starts its loop again on the offline agent (an
`error` event says so); every tool call emits `tool_call` and `tool_result`, and a failed call is an error result
the model reads."""

from collections.abc import Awaitable, Callable, Sequence

from temporalio import workflow

from workflows import policies
from workflows.common.run import NodeFailed
from workflows.common.tool_loop import Conversation
from workflows.content.context import ContentRun
from workflows.content.fallbacks import fix_for
from workflows.policies import NodeOptions

with workflow.unsafe.imports_passed_through():
    from llm.types import ToolCall
    from models.content import nodes
    from models.content.agents import AgentName, ContentView
    from models.content.events import ToolCalled, ToolReturned
    from models.content.turns import ToolCallRequest, ToolCallResult, ToolLoop, Turn, TurnRequest
    from models.nodes import ActivitySpec

ToolRun = Callable[[ToolCallRequest, str], Awaitable[ToolCallResult]]
"""Runs one tool call (its request and the Web UI summary) to its result; raises `NodeFailed`."""


class ContentLoops:
    """The conversations of one content run's tool loops, and their turn and tools steps."""

    def __init__(self, context: ContentRun) -> None:
        self._context = context
        self.conversations: dict[ToolLoop, Conversation] = {
            "supervisor": Conversation(policies.SUPERVISOR_TOOL_ROUNDS),
            "research": Conversation(policies.RESEARCH_TOOL_CALLS),
            "image": Conversation(),
        }
        self._offline: set[ToolLoop] = set()

    def enter(self, loop: ToolLoop, tools_node: str) -> bool:
        """Start the loop's conversation afresh unless the run comes back from the loop's tools; True when fresh."""
        transitions = self._context.state.metadata.transitions
        if transitions and transitions[-1][0] == tools_node:
            return False
        self.conversations[loop].clear()
        self._offline.discard(loop)
        return True

    def offline(self, loop: ToolLoop) -> bool:
        """The loop runs on its offline agent (no model configured, or its LLM failed for good on this visit)."""
        return loop in self._offline or not self._context.input.llm_configured

    def go_offline(self, loop: ToolLoop) -> None:
        """The loop's offline agent takes the rest of this visit's turns."""
        self._offline.add(loop)

    async def agent_turn(
        self, spec: ActivitySpec[TurnRequest, Turn], loop: ToolLoop, summary: str, *, nudged_after: str | None = None
    ) -> Turn:
        """An agent's next turn in its loop, with the Supervisor's assignment (and, when given, the answer it is
        nudged after: `TurnRequest.nudged_after`)."""
        context = self._context
        conversation = self.conversations[loop]
        request = TurnRequest(
            loop=loop,
            view=context.view(),
            conversation=conversation.history(),
            guidance=context.assignment.guidance,
            focus_areas=context.assignment.focus_areas,
            tool_calls_made=conversation.calls_made,
            tools_allowed=conversation.tools_allowed,
            use_llm=context.input.llm_configured and loop not in self._offline,
            run_id=context.run_id,
            nudged_after=nudged_after,
            fix=fix_for(context.state, AgentName.RESEARCH_EVIDENCE) if loop == "research" else None,
        )
        turn = await self.turn(spec, request, summary)
        if turn.offline and request.use_llm:
            self._offline.add(loop)
        return turn

    async def turn(self, spec: ActivitySpec[TurnRequest, Turn], request: TurnRequest, summary: str) -> Turn:
        """One turn; when the LLM fails for good, the loop starts again offline. A failed offline turn ends the
        run through its error node."""
        llm_options, offline_options = _TURN_OPTIONS[spec.name]
        if not request.use_llm:
            return await self._context.call_or_fail(spec, request, offline_options, summary=f"{summary} (offline)")
        return await self._context.call_with_degrade(
            spec,
            request,
            request.model_copy(update={"use_llm": False, "conversation": []}),
            (llm_options, offline_options),
            summary=summary,
            node=self._context.run.node,
            then=self.conversations[request.loop].clear,
        )

    def record(self, loop: ToolLoop, text: str, calls: Sequence[ToolCall]) -> None:
        """The turn's tool calls, run by the loop's tools node next."""
        self.conversations[loop].record(text, calls)

    async def run_tools(self, loop: ToolLoop, run: ToolRun) -> list[ToolCallResult]:
        """The last turn's tool calls, side by side, each run by `run`; their results join the loop's conversation."""
        tools = _LoopTools(self._context, loop, self._context.view(), run)
        return await self.conversations[loop].run_tools(tools, side_by_side=True)

    def activity_tool(self, spec: ActivitySpec[ToolCallRequest, ToolCallResult], options: NodeOptions) -> ToolRun:
        """Tool calls that are one activity each."""
        return lambda request, summary: self._context.call(spec, request, options, summary=summary)


class _LoopTools:
    """One round of a loop's tool calls: `tool_call` before each, `tool_result` and a message after."""

    def __init__(self, context: ContentRun, loop: ToolLoop, view: ContentView, run: ToolRun) -> None:
        self._context = context
        self._loop = loop
        self._view = view
        self._run = run
        self._node = context.run.node

    async def run(self, call: ToolCall, number: int) -> ToolCallResult:
        loop = self._loop
        self._context.events.emit(
            "tool_call", self._node, ToolCalled(loop=loop, call_id=call.id, tool=call.name, arguments=call.arguments)
        )
        context = self._context
        request = ToolCallRequest(
            loop=loop, call=call, view=self._view, run_id=context.run_id, owner=context.input.owner
        )
        arguments = ", ".join(f"{name}={value}" for name, value in call.arguments.items())[:80]
        return await self._run(request, f"{loop} tool: {call.name}({arguments})")

    def failed(self, call: ToolCall, error: NodeFailed) -> ToolCallResult:
        message = f"工具 {call.name} 失败：{error.cause}"[:300]
        return ToolCallResult(call_id=call.id, name=call.name, content=message, is_error=True, summary=message)

    def returned(self, call: ToolCall, result: ToolCallResult) -> None:
        returned = ToolReturned(
            loop=self._loop, call_id=call.id, tool=call.name, summary=result.summary, is_error=result.is_error
        )
        self._context.events.emit("tool_result", self._node, returned)
        self._context.message("tool", call.name, result.summary)


_TURN_OPTIONS: dict[str, tuple[NodeOptions, NodeOptions]] = {
    nodes.SUPERVISOR_TURN.name: (policies.SUPERVISOR_TURN, policies.SUPERVISOR_TURN_OFFLINE),
    nodes.RESEARCH_TURN.name: (policies.CONTENT_AGENT, policies.CONTENT_AGENT_OFFLINE),
    nodes.IMAGE_TURN.name: (policies.CONTENT_AGENT, policies.CONTENT_AGENT_OFFLINE),
}
"""Each loop's turn: with the LLM, and offline."""
