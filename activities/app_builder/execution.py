"""The execution layer's agents without a model, one activity each (`app_builder.scaffold_agent`, `.page_agent`,
`.state_agent`, `.style_agent`, `.interaction_agent`, `.repair_agent`).

Each reads the documents and the snapshot its wave started from, runs its offline rules
(`activities.app_builder.offline`) and returns patch intents: every new text is stored as a blob first, so the
result carries keys, never file contents (ARCHITECTURE rule 4), and a retried attempt stores the same blobs again
(content-addressed) without harm. A file whose text did not change is no intent.
"""

import asyncio
from collections.abc import Callable

from activities.app_builder.documents_store import load_documents
from activities.app_builder.offline.interaction import interaction_files
from activities.app_builder.offline.pages import page_files
from activities.app_builder.offline.repair import repair_files
from activities.app_builder.offline.scaffold import scaffold_files
from activities.app_builder.offline.state import state_files
from activities.app_builder.offline.styles import style_files
from models.app_builder import nodes
from models.app_builder.agents import TaskOutcome, TaskRequest
from models.app_builder.documents import SessionDocument
from models.app_builder.plan import ExecutionAgentID
from models.app_builder.workspace import PatchIntent
from stores.app_workspace import load_manifest, read_text, store_text, workspace_path
from stores.blob_store import BlobStore

AgentRules = Callable[[list[SessionDocument], dict[str, str], str], dict[str, str]]

WRITERS: dict[ExecutionAgentID, AgentRules] = {
    ExecutionAgentID.SCAFFOLD: scaffold_files,
    ExecutionAgentID.PAGE: page_files,
    ExecutionAgentID.STATE: state_files,
    ExecutionAgentID.STYLE: style_files,
    ExecutionAgentID.INTERACTION: interaction_files,
}


class ExecutionAgents:
    """The offline execution agents over the blob store."""

    def __init__(self, blobs: BlobStore) -> None:
        self._blobs = blobs

    @nodes.EXECUTION[ExecutionAgentID.SCAFFOLD].defn
    async def scaffold_agent(self, request: TaskRequest) -> TaskOutcome:
        return await asyncio.to_thread(self._run, request)

    @nodes.EXECUTION[ExecutionAgentID.PAGE].defn
    async def page_agent(self, request: TaskRequest) -> TaskOutcome:
        return await asyncio.to_thread(self._run, request)

    @nodes.EXECUTION[ExecutionAgentID.STATE].defn
    async def state_agent(self, request: TaskRequest) -> TaskOutcome:
        return await asyncio.to_thread(self._run, request)

    @nodes.EXECUTION[ExecutionAgentID.STYLE].defn
    async def style_agent(self, request: TaskRequest) -> TaskOutcome:
        return await asyncio.to_thread(self._run, request)

    @nodes.EXECUTION[ExecutionAgentID.INTERACTION].defn
    async def interaction_agent(self, request: TaskRequest) -> TaskOutcome:
        return await asyncio.to_thread(self._run, request)

    @nodes.EXECUTION[ExecutionAgentID.REPAIR].defn
    async def repair_agent(self, request: TaskRequest) -> TaskOutcome:
        return await asyncio.to_thread(self._run, request)

    def _run(self, request: TaskRequest) -> TaskOutcome:
        task = request.task
        agent = ExecutionAgentID(task.agent_id)
        manifest = load_manifest(self._blobs, request.workspace)
        files = {path: read_text(self._blobs, key) for path, key in manifest.items()}
        if agent == ExecutionAgentID.REPAIR:
            written = repair_files(files, request.findings)
        else:
            written = WRITERS[agent](load_documents(self._blobs, request.documents_ref), files, task.goal)
        intents = []
        for raw_path, text in sorted(written.items()):
            path = workspace_path(raw_path)
            if files.get(path) == text:
                continue
            intents.append(
                PatchIntent(
                    task_id=task.id,
                    agent_id=task.agent_id,
                    path=path,
                    base_key=manifest.get(path),
                    new_key=store_text(self._blobs, text),
                    summary="changed" if path in manifest else "created",
                )
            )
        created = [i.path for i in intents if i.base_key is None]
        summary = f"{agent.value}（离线）：新建 {len(created)} 个文件，修改 {len(intents) - len(created)} 个"
        if agent == ExecutionAgentID.REPAIR:
            summary += f"；针对 {len(request.findings)} 处问题"
        return TaskOutcome(task_id=task.id, intents=intents, summary=summary, offline=True)
