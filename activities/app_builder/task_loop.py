"""A writing agent with a model, as a tool loop the workflow runs (ARCHITECTURE rule 11): `app_builder.task_turn`
is one LLM turn, `app_builder.task_tool` one tool call.

The tools read the snapshot the task's wave started from, overlaid with the task's own earlier writes; a
`write_file` call stores the text as a blob and returns a patch intent (the workflow merges the wave's intents
afterwards). A bad path or an oversized file is the tool's error for the model to read, not a failed activity.
"""

import asyncio

from activities.app_builder.documents_store import load_documents
from activities.app_builder.prompts import WRITER_SYSTEM, task_input
from activities.common.failures import permanent
from activities.common.llm_calls import model_turn
from llm import LLMClient, Message
from llm.types import LLMRequest, ToolDefinition
from models.app_builder import nodes
from models.app_builder.agents import TaskToolRequest, TaskToolResult, TaskTurn, TaskTurnRequest
from models.app_builder.documents import SessionDocument
from models.app_builder.workspace import PatchIntent, WorkspaceRef
from models.errors import ErrorCode
from stores.app_workspace import (
    WorkspacePathError,
    load_manifest,
    read_text,
    store_text,
    workspace_path,
)
from stores.blob_store import LocalBlobStore

MAX_FILE_CHARS = 200_000
READ_CHARS = 60_000
LLM_TEMPERATURE = 0.2

_PATH = {"path": {"type": "string", "description": "relative to the project root, e.g. src/App.tsx"}}
TOOLS = (
    ToolDefinition(name="list_files", description="List the project's files with their sizes."),
    ToolDefinition(
        name="read_file",
        description="Read one project file.",
        input_schema={"type": "object", "properties": _PATH, "required": ["path"]},
    ),
    ToolDefinition(
        name="write_file",
        description="Write one project file: its whole new text.",
        input_schema={
            "type": "object",
            "properties": {**_PATH, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
)


class TaskLoop:
    """The writing agents' turns and tools over the blob store and the LLM."""

    def __init__(self, blobs: LocalBlobStore, llm: LLMClient | None) -> None:
        self._blobs = blobs
        self._llm = llm

    @nodes.TASK_TURN.defn
    async def task_turn(self, request: TaskTurnRequest) -> TaskTurn:
        if self._llm is None:
            message = "这个 worker 没有配置大模型（the gateway thinks one is configured: check LLM_PROVIDER on both）"
            raise permanent(ErrorCode.AGENT_FAILED, message)
        task = request.request
        documents, listing = await asyncio.to_thread(self._context, request)
        messages = [Message.user(task_input(task, documents, listing)), *request.conversation]
        llm_request = LLMRequest(
            messages=tuple(messages),
            system=WRITER_SYSTEM.format(agent=task.task.agent_id),
            tools=TOOLS if request.tools_allowed else (),
            temperature=LLM_TEMPERATURE,
        )
        response = await model_turn(self._llm, llm_request)
        return TaskTurn(text=response.text, tool_calls=list(response.tool_calls))

    @nodes.TASK_TOOL.defn
    async def task_tool(self, request: TaskToolRequest) -> TaskToolResult:
        return await asyncio.to_thread(self._tool, request)

    def _context(self, request: TaskTurnRequest) -> tuple[list[SessionDocument], list[str]]:
        documents = load_documents(self._blobs, request.request.documents_ref)
        return documents, sorted(self._files(request.request.workspace, request.intents))

    def _files(self, workspace: WorkspaceRef, intents: list[PatchIntent]) -> dict[str, str]:
        """Path → blob key of the snapshot with the task's own writes on top."""
        files = load_manifest(self._blobs, workspace)
        for intent in intents:
            if intent.new_key is None:
                files.pop(intent.path, None)
            else:
                files[intent.path] = intent.new_key
        return files

    def _tool(self, request: TaskToolRequest) -> TaskToolResult:
        call = request.call
        files = self._files(request.request.workspace, request.intents)

        def answer(content: str, *, error: bool = False, intent: PatchIntent | None = None) -> TaskToolResult:
            return TaskToolResult(call_id=call.id, tool=call.name, content=content, is_error=error, intent=intent)

        if call.name == "list_files":
            return answer("\n".join(f"{path} ({self._blobs.size(key)} bytes)" for path, key in sorted(files.items())))
        try:
            path = workspace_path(str(call.arguments.get("path", "")))
        except WorkspacePathError as err:
            return answer(str(err), error=True)
        if call.name == "read_file":
            if path not in files:
                return answer(f"no such file: {path}", error=True)
            return answer(read_text(self._blobs, files[path])[:READ_CHARS])
        if call.name == "write_file":
            content = call.arguments.get("content")
            if not isinstance(content, str):
                return answer("write_file needs `content`, the file's whole text", error=True)
            if len(content) > MAX_FILE_CHARS:
                return answer(f"{path}: {len(content)} characters; at most {MAX_FILE_CHARS}", error=True)
            task = request.request.task
            base = load_manifest(self._blobs, request.request.workspace).get(path)
            intent = PatchIntent(
                task_id=task.id,
                agent_id=task.agent_id,
                path=path,
                base_key=base,
                new_key=store_text(self._blobs, content),
                summary="changed" if base else "created",
            )
            return answer(f"wrote {path} ({len(content)} characters)", intent=intent)
        return answer(f"unknown tool {call.name!r}; use list_files, read_file or write_file", error=True)
