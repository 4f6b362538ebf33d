"""A writing agent with a model, as a tool loop the workflow runs (ARCHITECTURE rule 11): `app_builder.task_turn`
is one LLM turn, `app_builder.task_tool` one tool call.

The tools read the snapshot the task's wave started from, overlaid with the task's own earlier writes; a
`write_file` call returns a patch intent (the workflow merges the wave's intents afterwards). Files travel by blob
key, not through the history: the turn stores the text of each `write_file` call the model made and hands the
workflow the call with `content_key` instead of `content`, and a `read_file` result is a reference to the file's
blob (`[file <path> as read: <key>]`) that the next turn puts the text back in for the model. While the model
writes a file, its code is on the readers' screens as live text (`activities.app_builder.live_code`).

The model is offered only the tools its task lists, and a call to another is refused as an error result;
`read_file`'s `path` lists the files there are (`enum`, built for the turn from its listing), and a path outside
them is answered `no such file`. A bad path, an oversized file, a tool the task was not given or a call whose
arguments were not JSON is the tool's error for the model to read, not a failed activity: a turn whose tool-call
arguments could not be read becomes a call of that tool with `UNREADABLE` set, which the tool answers with the
reason.
"""

import asyncio
import re
from typing import Any

from temporalio.exceptions import ApplicationError

from activities.app_builder.documents_store import load_documents
from activities.app_builder.live_code import live_code
from activities.app_builder.prompts import WRITER_SYSTEM, task_input
from activities.common.failures import permanent
from activities.common.llm_calls import model_turn
from llm import LLMClient, Message
from llm.errors import MalformedResponseError
from llm.types import LLMRequest, Part, ToolCall, ToolDefinition, ToolResultPart
from models.app_builder import nodes
from models.app_builder.agents import TaskToolRequest, TaskToolResult, TaskTurn, TaskTurnRequest
from models.app_builder.documents import SessionDocument
from models.app_builder.workspace import PatchIntent, WorkspaceRef
from models.errors import ErrorCode
from stores.app_workspace import (
    FILE_KIND,
    WorkspacePathError,
    load_manifest,
    read_text,
    store_text,
    workspace_path,
)
from stores.blob_store import BlobStore

MAX_FILE_CHARS = 200_000
READ_CHARS = 60_000
LLM_TEMPERATURE = 0.2
CONTENT_KEY = "content_key"
"""A `write_file` call's argument once the turn stored its `content`: the blob key of the text."""
UNREADABLE = "unreadable_arguments"
"""The argument of a call whose arguments the model sent as something other than a JSON object: why."""
_UNREADABLE_TOOL = re.compile(r"arguments of tool '([^']+)'")
READ_REFERENCE = re.compile(rf"\[file (?P<path>\S+) as read: (?P<key>{FILE_KIND}/[^\s\]]+)\]")
"""A `read_file` result as the history carries it: the path and the blob key of the text the model reads."""

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


def offered_tools(names: list[str], listing: list[str]) -> list[ToolDefinition]:
    """The workspace tools a task lists, `read_file`'s path one of the files in `listing` when there are any."""
    given = [tool for tool in TOOLS if tool.name in names]
    if not listing:
        return given
    paths = {"type": "object", "properties": {"path": {**_PATH["path"], "enum": listing}}, "required": ["path"]}
    return [tool.model_copy(update={"input_schema": paths}) if tool.name == "read_file" else tool for tool in given]


class TaskLoop:
    """The writing agents' turns and tools over the blob store and the LLM."""

    def __init__(self, blobs: BlobStore, llm: LLMClient | None) -> None:
        self._blobs = blobs
        self._llm = llm

    @nodes.TASK_TURN.defn
    async def task_turn(self, request: TaskTurnRequest) -> TaskTurn:
        if self._llm is None:
            message = "这个 worker 没有配置大模型（the gateway thinks one is configured: check LLM_PROVIDER on both）"
            raise permanent(ErrorCode.AGENT_FAILED, message)
        task = request.request
        documents, listing = await asyncio.to_thread(self._context, request)
        conversation = await asyncio.to_thread(self._with_files_read, request.conversation)
        messages = [Message.user(task_input(task, documents, listing)), *conversation]
        given = offered_tools(task.task.tools, listing)
        llm_request = LLMRequest(
            messages=tuple(messages),
            system=WRITER_SYSTEM.format(agent=task.task.agent_id),
            tools=tuple(given) if request.tools_allowed else (),
            temperature=LLM_TEMPERATURE,
        )
        code = live_code(task.task)
        try:
            response = await model_turn(self._llm, llm_request, on_stream=code.on_event if code else None)
        except ApplicationError as err:
            unreadable = _unreadable_call(err, request.tool_calls_made)
            if unreadable is None:
                raise
            return TaskTurn(tool_calls=[unreadable])
        calls = await asyncio.to_thread(lambda: [self._by_key(call) for call in response.tool_calls])
        return TaskTurn(text=response.text, tool_calls=calls)

    def _with_files_read(self, conversation: list[Message]) -> list[Message]:
        """The conversation with each `read_file` reference replaced by the file's text (at most `READ_CHARS`)."""

        def read(part: Part) -> Part:
            if not isinstance(part, ToolResultPart) or (found := READ_REFERENCE.fullmatch(part.content)) is None:
                return part
            return part.model_copy(update={"content": read_text(self._blobs, found["key"])[:READ_CHARS]})

        return [
            message.model_copy(update={"parts": tuple(read(part) for part in message.parts)})
            if message.role == "tool"
            else message
            for message in conversation
        ]

    def _by_key(self, call: ToolCall) -> ToolCall:
        """A `write_file` call with its text stored as a blob and named by key: no file text in the history."""
        content = call.arguments.get("content")
        if call.name != "write_file" or not isinstance(content, str):
            return call
        arguments: dict[str, Any] = {key: value for key, value in call.arguments.items() if key != "content"}
        arguments |= {CONTENT_KEY: store_text(self._blobs, content), "chars": len(content)}
        return call.model_copy(update={"arguments": arguments})

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

        given = request.request.task.tools
        if call.name not in given:
            return answer(f"tool {call.name!r} was not given to this task; its tools: {', '.join(given)}", error=True)
        if UNREADABLE in call.arguments:
            return answer(f"{call.name} was not run: {call.arguments[UNREADABLE]}; send one JSON object", error=True)
        if call.name == "list_files":
            return answer("\n".join(f"{path} ({self._blobs.size(key)} bytes)" for path, key in sorted(files.items())))
        try:
            path = workspace_path(str(call.arguments.get("path", "")))
        except WorkspacePathError as err:
            return answer(str(err), error=True)
        if call.name == "read_file":
            if path not in files:
                return answer(f"no such file: {path}", error=True)
            return answer(f"[file {path} as read: {files[path]}]")
        if call.name == "write_file":
            key = self._written(call.arguments)
            if key is None:
                return answer("write_file needs `content`, the file's whole text", error=True)
            chars = len(read_text(self._blobs, key))
            if chars > MAX_FILE_CHARS:
                return answer(f"{path}: {chars} characters; at most {MAX_FILE_CHARS}", error=True)
            task = request.request.task
            base = load_manifest(self._blobs, request.request.workspace).get(path)
            intent = PatchIntent(
                task_id=task.id,
                agent_id=task.agent_id,
                path=path,
                base_key=base,
                new_key=key,
                summary="changed" if base else "created",
            )
            return answer(f"wrote {path} ({chars} characters)", intent=intent)
        return answer(f"unknown tool {call.name!r}; use list_files, read_file or write_file", error=True)

    def _written(self, arguments: dict[str, Any]) -> str | None:
        """The blob key of a `write_file` call's text: the one its turn stored, or its `content` stored now."""
        key = arguments.get(CONTENT_KEY)
        if isinstance(key, str) and key.startswith(f"{FILE_KIND}/") and self._blobs.exists(key):
            return key
        content = arguments.get("content")
        return store_text(self._blobs, content) if isinstance(content, str) else None


def _unreadable_call(err: ApplicationError, calls_made: int) -> ToolCall | None:
    """The turn whose tool-call arguments were not a JSON object, as a call of that tool the tool answers with the
    reason; None for any other failure."""
    cause = err.__cause__
    if not isinstance(cause, MalformedResponseError):
        return None
    named = _UNREADABLE_TOOL.search(cause.message)
    if named is None:
        return None
    return ToolCall(id=f"unreadable-{calls_made + 1}", name=named.group(1), arguments={UNREADABLE: cause.message})
