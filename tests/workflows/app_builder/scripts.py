"""A scripted LLM for app runs (OpenAI Chat wire format on the loopback server), answering by what each request
is: an analysis agent's document content, the planner's plan, or a writing agent's turn for its task. Tasks run
side by side, so answers are picked by the request's content, not by their order.

The project it writes is tiny but real: `scaffold` writes package.json, index.html, src/main.tsx and src/App.tsx;
other tasks write the files a test gives them (`writes`), one `write_file` call per file, then a summary.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from activities.app_builder.offline.analysis import analysis_document
from models.app_builder.agents import AppBrief
from models.app_builder.documents import ANALYSIS_ORDER, AnalysisAgentID, SessionDocument
from tests.llm.answers import chat_completion, chat_tool_calls
from tests.llm.loopback import Fixture, RecordedRequest
from tests.workflows.app_builder.harness import TODO_APP

REFUSED = Fixture.json({"error": {"message": "scripted refusal", "type": "invalid_request_error"}}, status=400)
"""An LLM call that fails for good (HTTP 400 is not retried)."""

SCAFFOLD_FILES = {
    "package.json": json.dumps(
        {
            "name": "scripted-app",
            "private": True,
            "type": "module",
            "dependencies": {"react": "18.3.1", "react-dom": "18.3.1"},
        }
    ),
    "index.html": '<!doctype html>\n<html><body><div id="root"></div>'
    '<script type="module" src="/src/main.tsx"></script></body></html>\n',
    "src/main.tsx": 'import { createRoot } from "react-dom/client";\nimport App from "./App";\n\n'
    'createRoot(document.getElementById("root")!).render(<App />);\n',
    "src/App.tsx": "export default function App() {\n  return <main>scripted</main>;\n}\n",
}

ROLES = {
    "You are the product manager": AnalysisAgentID.PRODUCT_MANAGER,
    "You are the front-end architect": AnalysisAgentID.FRONTEND_ARCHITECT,
    "You are the UI expert": AnalysisAgentID.UI_EXPERT,
    "You are the UX expert": AnalysisAgentID.UX_EXPERT,
}


def task(
    task_id: str, agent: str, depends_on: list[str] | None = None, tools: list[str] | None = None
) -> dict[str, Any]:
    return {
        "id": task_id,
        "agentId": agent,
        "goal": f"{task_id} 的目标",
        "dependsOn": depends_on or [],
        "tools": tools if tools is not None else ["list_files", "read_file", "write_file"],
    }


def offline_contents() -> dict[AnalysisAgentID, dict[str, Any]]:
    """The offline agents' document contents for the todo app: what the scripted model answers."""
    documents: list[SessionDocument] = []
    for index, agent in enumerate(ANALYSIS_ORDER):
        documents.append(
            analysis_document(agent, AppBrief(message=TODO_APP), documents, document_id=f"d{index}", created_at=0)
        )
    return {d.agent_id: d.content.model_dump(mode="json", by_alias=True) for d in documents}


@dataclass
class ScriptedModel:
    """Answers app runs' LLM calls. `plans` are given out in order (the second one answers the repair round);
    `writes[task_id]` are the files a task writes (per repair round for `repair` tasks: `repairs[round]`);
    `refuse` names tasks whose turns fail for good; `garble` tasks whose first turn's tool-call arguments are not
    JSON (their next turn writes); `strays[task_id]` is a tool a task's first turn calls (on `src/App.tsx`) before
    it writes; `documents` overrides an analysis agent's answer; `turns[task_id]` are the request bodies of a
    task's turns; `plan_schemas` the JSON Schemas the planner's requests asked for, `plan_repairs` the client's
    repair prompts to the planner."""

    plans: list[list[dict[str, Any]]]
    writes: dict[str, dict[str, str]] = field(default_factory=dict)
    repairs: list[dict[str, str]] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)
    garble: set[str] = field(default_factory=set)
    strays: dict[str, str] = field(default_factory=dict)
    turns: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    documents: dict[AnalysisAgentID, Fixture] = field(default_factory=dict)
    planner_requests: list[str] = field(default_factory=list)
    repair_requests: list[str] = field(default_factory=list)
    plan_schemas: list[dict[str, Any]] = field(default_factory=list)
    plan_repairs: list[str] = field(default_factory=list)
    _contents: dict[AnalysisAgentID, dict[str, Any]] = field(default_factory=offline_contents)

    def __call__(self, request: RecordedRequest) -> Fixture:
        body = request.json()
        messages = body["messages"]
        system = messages[0]["content"] if messages[0]["role"] == "system" else ""
        user = next(m["content"] for m in messages if m["role"] == "user")
        for prefix, agent in ROLES.items():
            if system.startswith(prefix):
                return self.documents.get(agent) or chat_completion(self._contents[agent])
        if "main agent of the planning layer" in system:
            users = [m["content"] for m in messages if m["role"] == "user"]
            if len(users) > 1:
                self.plan_repairs.append(users[-1])
            self.plan_schemas.append(body["response_format"]["json_schema"]["schema"])
            self.planner_requests.append(user)
            plan = self.plans[min(len(self.planner_requests), len(self.plans)) - 1]
            return chat_completion({"tasks": plan})
        task_id = re.search(r"Your task '([^']+)'", user)
        assert task_id is not None, f"an unexpected LLM request: {system[:80]}"
        self.turns.setdefault(task_id.group(1), []).append(body)
        return self._turn(task_id.group(1), user, messages)

    def _turn(self, task_id: str, user: str, messages: list[dict[str, Any]]) -> Fixture:
        if task_id in self.refuse:
            return REFUSED
        results = [str(m["content"]) for m in messages if m["role"] == "tool"]
        if task_id in self.garble and not results:
            return garbled_call(task_id)
        if task_id in self.strays and not results:
            return chat_tool_calls([(f"call-{task_id}-stray", self.strays[task_id], {"path": "src/App.tsx"})])
        if results and not (task_id in self.garble and all("was not run" in r for r in results)):
            return chat_completion(f"{task_id} done")
        if "The quality check found" in user:
            self.repair_requests.append(user)
            files = (
                self.repairs[len(self.repair_requests) - 1] if len(self.repair_requests) <= len(self.repairs) else {}
            )
        else:
            files = SCAFFOLD_FILES if task_id == "scaffold" else self.writes.get(task_id, {})
        if not files:
            return chat_completion(f"{task_id}: nothing to write")
        calls = [
            (f"call-{task_id}-{index}", "write_file", {"path": path, "content": text})
            for index, (path, text) in enumerate(sorted(files.items()))
        ]
        return chat_tool_calls(calls)


def garbled_call(task_id: str) -> Fixture:
    """A turn whose one `write_file` call has arguments that are not JSON (a model that lost track of escaping)."""
    call = {
        "id": f"call-{task_id}-garbled",
        "type": "function",
        "function": {"name": "write_file", "arguments": '{"path": "src/App.tsx", "content": "<main>"oops"</main>"}'},
    }
    body = {
        "id": "chatcmpl-garbled",
        "object": "chat.completion",
        "created": 1763700000,
        "model": "gpt-4.1-mini-2025-04-14",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 150, "completion_tokens": 20, "total_tokens": 170},
    }
    return Fixture.json(body)
