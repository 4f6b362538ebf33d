"""A writing agent's task with a model, on the shared `workflows.common.tool_loop` inside one node: one activity
per LLM turn (`<task>-turn-<n>`), one per workspace tool call (`<task>-tool-<n>`), in order, each seeing the
task's earlier writes; its `write_file` calls become the task's patch intents (a later write to the same path
replaces an earlier one). A tool call that failed for good is an error result the model reads."""

from temporalio import workflow

from workflows import policies
from workflows.common.run import GraphRun, NodeFailed
from workflows.common.tool_loop import Conversation

with workflow.unsafe.imports_passed_through():
    from llm.types import ToolCall
    from models.app_builder import nodes
    from models.app_builder.agents import (
        TaskOutcome,
        TaskRequest,
        TaskToolRequest,
        TaskToolResult,
        TaskTurn,
        TaskTurnRequest,
    )
    from models.app_builder.workspace import PatchIntent

SUMMARY_CHARS = 60


def task_activity_id(request: TaskRequest) -> str:
    """A task's activities are named after it in the Web UI: `pages`, `pages-turn-2`, `pages-tool-3`; a repair
    round's carry the round: `repair-round-2`."""
    task_id = request.task.id
    return f"{task_id}-round-{request.repair_round}" if request.repair_round else task_id


async def run_task_loop(run: GraphRun, request: TaskRequest) -> TaskOutcome:
    """The task's loop to the model's last turn; raises `NodeFailed` when a turn failed for good."""
    task = request.task
    tools = _WorkspaceTools(run, request)

    async def ask(conversation: Conversation) -> TaskTurn:
        turn = conversation.rounds + 1
        turn_request = TaskTurnRequest(
            request=request,
            conversation=conversation.history(),
            intents=list(tools.intents),
            tool_calls_made=conversation.calls_made,
            tools_allowed=conversation.tools_allowed,
        )
        return await run.call(
            nodes.TASK_TURN,
            turn_request,
            policies.APP_TASK_TURN,
            summary=f"{task.id} · {task.agent_id} turn {turn}",
            activity_id=f"{task_activity_id(request)}-turn-{turn}",
        )

    last = await Conversation(policies.APP_TASK_TOOL_CALLS).run(ask, tools)
    summary = last.text.strip()[:300] or f"{task.agent_id} 写了 {len(tools.intents)} 个文件"
    return TaskOutcome(task_id=task.id, intents=tools.intents, summary=summary, offline=False)


class _WorkspaceTools:
    """A task's workspace tool calls, one activity each; `intents` are its writes so far."""

    def __init__(self, run: GraphRun, request: TaskRequest) -> None:
        self._run = run
        self._request = request
        self.intents: list[PatchIntent] = []

    async def run(self, call: ToolCall, number: int) -> TaskToolResult:
        path = str(call.arguments.get("path", ""))[:SUMMARY_CHARS]
        return await self._run.call(
            nodes.TASK_TOOL,
            TaskToolRequest(request=self._request, call=call, intents=list(self.intents)),
            policies.APP_TASK_TOOL,
            summary=f"{self._request.task.id} · {call.name}({path})",
            activity_id=f"{task_activity_id(self._request)}-tool-{number}",
        )

    def failed(self, call: ToolCall, error: NodeFailed) -> TaskToolResult:
        return TaskToolResult(call_id=call.id, tool=call.name, content=f"工具失败：{error.cause}"[:300], is_error=True)

    def returned(self, call: ToolCall, result: TaskToolResult) -> None:
        if result.intent is not None:
            self.intents = [intent for intent in self.intents if intent.path != result.intent.path] + [result.intent]
