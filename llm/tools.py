"""Running the tools a model asked for: the executor protocol, the error a tool raises to tell the model it
failed, and one round of (parallel) calls turned into the tool-result message of the next turn."""

import asyncio
from typing import Protocol

from llm.types import Message, ToolCall, ToolResultPart


class ToolError(Exception):
    """Raised by a tool to report a failure to the model (sent back as an error result), not to the caller."""


class ToolExecutor(Protocol):
    """Runs one tool call and returns its result text; raise `ToolError` to report a failure to the model."""

    async def __call__(self, call: ToolCall) -> str: ...


async def run_tool_calls(calls: tuple[ToolCall, ...], executor: ToolExecutor) -> Message:
    """Runs every call of one turn concurrently; results keep the order of the calls."""

    async def run(call: ToolCall) -> ToolResultPart:
        try:
            content, failed = await executor(call), False
        except ToolError as err:
            content, failed = str(err), True
        return ToolResultPart(call_id=call.id, name=call.name, content=content, is_error=failed)

    return Message.tool_results(list(await asyncio.gather(*(run(c) for c in calls))))
