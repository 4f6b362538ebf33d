"""The one tool loop every family runs in its workflow (ARCHITECTURE rule 11): each model turn is one activity and
each tool call another, so a retried turn never repeats a tool's side effects and the Web UI shows every call.

A loop is a `Conversation`, carried by the workflow between those activities, with its `ToolLimit` from
`workflows.policies`. Its steps:

- ask the next turn: the family builds its turn request from `history()`, `calls_made` / `rounds` and
  `tools_allowed` (False once the limit is spent: the model is asked for its answer alone) and runs its turn
  activity;
- `record(text, calls)`: the turn's tool calls join the conversation;
- `run_tools(tools)`: the last turn's tool calls, one activity each (side by side, or in order when each call must
  see what the one before it did); a call that failed for good becomes an error result the model reads, and
  every result joins the conversation for the next turn. A call whose arguments could not be read (the model
  was cut off at its output limit in the middle of them: `ToolCall.arguments_error`) is not run: the model reads
  why as that call's error result.

`run(ask, tools)` is the whole loop inside one node (turn, tools, turn ... until the model answers without tool
calls or its limit is spent); a loop that spans two graph nodes (a turn node and a tools node) takes the steps one
node at a time. A family's `Tools` runs a call (its activity, its events) and says what a failure reads like.
"""

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from workflows.common.run import NodeFailed
from workflows.policies import ToolLimit

with workflow.unsafe.imports_passed_through():
    from llm.types import Message, ToolCall, ToolResultPart


class ModelTurn(Protocol):
    """What a loop reads from a model's turn: its text and the tool calls it asks for."""

    @property
    def text(self) -> str: ...

    @property
    def tool_calls(self) -> Sequence[ToolCall]: ...


class ToolOutput(Protocol):
    """A tool call's result, as the model reads it in the next turn."""

    def as_part(self) -> ToolResultPart: ...


ResultT = TypeVar("ResultT", bound=ToolOutput)
TurnT = TypeVar("TurnT", bound=ModelTurn)


class Tools(Protocol[ResultT]):
    """A family's tools for one round of calls."""

    async def run(self, call: ToolCall, number: int) -> ResultT:
        """Run one call (`number` counts the loop's calls from 1); raises `NodeFailed` when it failed for good."""
        ...

    def failed(self, call: ToolCall, error: NodeFailed) -> ResultT:
        """The error result the model reads for a call that failed for good."""
        ...

    def returned(self, call: ToolCall, result: ResultT) -> None:
        """After each call, with its result (or its error result): the family's events and state."""
        ...


class Conversation:
    """One tool loop's conversation: the model's turns with tool calls and their results."""

    def __init__(self, limit: ToolLimit | None = None) -> None:
        self.limit = limit
        """None: the loop itself never stops the tools (its family's routing does)."""
        self._messages: list[Message] = []

    def history(self) -> list[Message]:
        """The conversation so far, for the next turn's request."""
        return list(self._messages)

    @property
    def calls_made(self) -> int:
        return sum(len(message.tool_calls) for message in self._messages)

    @property
    def rounds(self) -> int:
        """Rounds of tool calls whose results came back."""
        return sum(1 for message in self._messages if message.role == "tool")

    @property
    def tools_allowed(self) -> bool:
        limit = self.limit
        if limit is None:
            return True
        if limit.calls is not None and self.calls_made >= limit.calls:
            return False
        return limit.rounds is None or self.rounds < limit.rounds

    def clear(self) -> None:
        """Start the loop afresh (a new visit, or the model's answer was taken)."""
        self._messages = []

    def record(self, text: str, calls: Sequence[ToolCall]) -> None:
        """A turn that asked for `calls`: they are run next (`run_tools`)."""
        self._messages.append(Message.assistant(text, tuple(calls)))

    async def run_tools(self, tools: Tools[ResultT], *, side_by_side: bool) -> list[ResultT]:
        """Run the last recorded turn's tool calls with `tools`; their results join the conversation."""
        last = self._messages[-1] if self._messages else None
        calls = last.tool_calls if last is not None and last.role == "assistant" else []
        done = sum(len(message.parts) for message in self._messages if message.role == "tool")
        numbered = [(call, done + index + 1) for index, call in enumerate(calls)]
        if side_by_side:
            results = list(await asyncio.gather(*(_call(tools, call, number) for call, number in numbered)))
        else:
            results = [await _call(tools, call, number) for call, number in numbered]
        self._messages.append(Message.tool_results([result.as_part() for result in results]))
        return results

    async def run(
        self, ask: Callable[["Conversation"], Awaitable[TurnT]], tools: Tools[ResultT], *, side_by_side: bool = False
    ) -> TurnT:
        """The whole loop inside one node: the model's last turn, the one without tool calls (or after the limit)."""
        while True:
            turn = await ask(self)
            if not turn.tool_calls or not self.tools_allowed:
                return turn
            self.record(turn.text, turn.tool_calls)
            await self.run_tools(tools, side_by_side=side_by_side)


TOOL_ARGUMENTS_UNREADABLE = "TOOL_ARGUMENTS_UNREADABLE"
"""The type of the failure a call with unreadable arguments gets instead of being run."""


async def _call(tools: Tools[ResultT], call: ToolCall, number: int) -> ResultT:
    try:
        if call.arguments_error is not None:
            unreadable = ApplicationError(call.arguments_error, type=TOOL_ARGUMENTS_UNREADABLE, non_retryable=True)
            raise NodeFailed(unreadable)
        result = await tools.run(call, number)
    except NodeFailed as err:
        result = tools.failed(call, err)
    tools.returned(call, result)
    return result
