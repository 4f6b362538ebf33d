"""The app builder's prompts: each analysis agent's role, the planner's rules (the seven agents, the tool
registry, dependencies without cycles, the repair round's issues) and the writing agents' tool-loop brief; in a
follow-up round each analysis agent updates its earlier document and the planner plans only what the change needs
against the existing file list. The analysis documents go as JSON: whole when they fit the prompt's budget, else
summarised (long texts shortened, long lists cut, each cut said in the JSON), always valid JSON."""

import json
from typing import Any

from models.app_builder.agents import AppBrief, TaskRequest
from models.app_builder.documents import ANALYSIS_TITLES, AnalysisAgentID, SessionDocument
from models.app_builder.plan import ExecutionAgentID, ExecutionPlan, PlanIssue
from models.app_builder.quality import Finding
from models.app_builder.tools import TOOL_REGISTRY, WRITE_TOOL

ANALYSIS_ROLES = {
    AnalysisAgentID.PRODUCT_MANAGER: (
        "You are the product manager. Turn the user's request into functional requirements (each with an id, a "
        "title, a description and a priority), user stories (persona, goal, benefit) and the requirements' ids in "
        "priority order. Keep the app small enough to build in one session."
    ),
    AnalysisAgentID.FRONTEND_ARCHITECT: (
        "You are the front-end architect of a React + TypeScript app. From the product manager's requirements, "
        "design the component tree (ids, names in PascalCase, type page/layout/component/widget, children ids), "
        "the routes and the state management (prefer `context` unless the app needs more) with its stores."
    ),
    AnalysisAgentID.UI_EXPERT: (
        "You are the UI expert. Give the visual spec (color scheme, typography, spacing, border radius), styles "
        "for the architect's components (by component id) and the responsive layout (breakpoints in px, strategy)."
    ),
    AnalysisAgentID.UX_EXPERT: (
        "You are the UX expert. Give the interaction flows (steps with the action, the expected result and the "
        "error handling), the user journeys (touchpoints, pain points) and usability recommendations."
    ),
}

PLANNER_SYSTEM = (
    "You are the main agent of the planning layer. From the four analysis documents, write the Execution_Plan "
    "that builds the app: tasks for the execution agents, each with a short unique id, its agentId, a concrete "
    "goal naming the files it writes, dependsOn (ids of tasks it waits for) and tools.\n"
    f"agentId must be one of: {', '.join(agent.value for agent in ExecutionAgentID)}.\n"
    "Tools must come from this registry:\n"
    + "\n".join(f"- {name}: {description}" for name, description in TOOL_REGISTRY.items())
    + "\nRules: the scaffold task comes first; tasks that can run side by side should not depend on each other; "
    "a quality-agent task checks the project after every writing task; a repair-agent task depends on it and "
    "runs only when the quality check fails; dependencies must not form a cycle; the task of a writing agent or of "
    f"the repair agent lists {WRITE_TOOL} among its tools."
)

WRITER_SYSTEM = (
    "You are the {agent} of a team that writes a React + TypeScript + Vite project. Other agents write other "
    "files at the same time; change only what your goal needs. Use list_files and read_file to see the project "
    "as it was when your wave started, and write_file to write a file's whole new text (paths relative to the "
    "project root, such as src/App.tsx). When you are done, answer with a one-sentence summary and no tool call."
)


UPDATE_DOCUMENT = (
    "This is a change to an app that exists already. Here is your document as the last round left it (version "
    "{version}):\n{document}\nUpdate your document for this change, keep what stays: change only what the change "
    "needs, keep every other item (and its id) as it is."
)
UPDATE_PLAN = (
    "This is a change to a project that exists already; its files (path: bytes):\n{files}\nPlan only the tasks "
    "this change needs: files no task writes stay as they are. Do not scaffold the project again; a task's goal "
    "names the existing files it changes and the new files it writes."
)


def analysis_input(brief: AppBrief, previous: list[SessionDocument], earlier: SessionDocument | None = None) -> str:
    lines = [brief_text(brief)]
    for document in previous:
        title = ANALYSIS_TITLES[document.agent_id]
        lines.append(
            f"\n{title}（{document.agent_id.value}）的文档：\n{document.content.model_dump_json(by_alias=True)}"
        )
    if earlier is not None:
        own = earlier.content.model_dump_json(by_alias=True)
        lines.append("\n" + UPDATE_DOCUMENT.format(version=earlier.version, document=own))
    return "\n".join(lines)


def planning_input(
    brief: AppBrief,
    documents: list[SessionDocument],
    rejected: ExecutionPlan | None,
    issues: list[PlanIssue],
    project: list[tuple[str, int]] | None = None,
) -> str:
    text = analysis_input(brief, documents)
    if project is not None:
        files = "\n".join(f"- {path}: {size}" for path, size in project) or "(none)"
        text += "\n\n" + UPDATE_PLAN.format(files=files)
    if rejected is not None or issues:
        refused = rejected.model_dump_json(by_alias=True) if rejected is not None else "(no plan)"
        problems = "\n".join(f"- {issue.message}" for issue in issues)
        text += f"\n\nYour previous plan was refused:\n{refused}\nBecause:\n{problems}\nWrite a corrected plan."
    return text


def task_input(request: TaskRequest, documents: list[SessionDocument], listing: list[str]) -> str:
    task = request.task
    lines = [
        brief_text(request.brief),
        f"Your task {task.id!r}: {task.goal}",
        "Project files now: " + (", ".join(listing) if listing else "(none yet)"),
        f"Write every file your task needs with {WRITE_TOOL}, each with its whole text.",
        "Analysis documents: " + documents_json(documents),
    ]
    if request.findings:
        lines.append("The quality check found (fix these):\n" + "\n".join(_finding(f) for f in request.findings))
    return "\n".join(lines)


DOCUMENTS_BUDGET_CHARS = 24_000
"""The analysis documents in a task's prompt; larger ones are summarised (`documents_json`)."""
_SUMMARY_LIMITS = ((400, 40), (200, 20), (120, 12), (60, 6), (30, 3))
"""(characters of a text, items of a list) kept, tried in order until the documents fit."""


def documents_json(documents: list[SessionDocument], budget: int = DOCUMENTS_BUDGET_CHARS) -> str:
    """The documents as one JSON array: whole when it fits `budget`, else each text and list shortened (the
    tightest limits last); valid JSON either way."""
    whole = [d.model_dump(mode="json", by_alias=True) for d in documents]
    text = json.dumps(whole, ensure_ascii=False)
    for chars, items in _SUMMARY_LIMITS:
        if len(text) <= budget:
            break
        text = json.dumps(_shortened(whole, chars, items), ensure_ascii=False)
    return text


def _shortened(value: Any, chars: int, items: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= chars else value[:chars] + "…"
    if isinstance(value, list):
        kept = [_shortened(item, chars, items) for item in value[:items]]
        return kept + ([f"(+{len(value) - items} more)"] if len(value) > items else [])
    if isinstance(value, dict):
        return {key: _shortened(item, chars, items) for key, item in value.items()}
    return value


def brief_text(brief: AppBrief) -> str:
    if brief.earlier_messages:
        chain = "\n".join(f"{n}. {message}" for n, message in enumerate(brief.earlier_messages, 1))
        text = f"之前的需求与修改（按顺序）：\n{chain}\n本轮修改：{brief.message}"
    else:
        text = f"用户需求：{brief.message}"
    if brief.platform:
        text += f"\n平台：{brief.platform}"
    if brief.tech_stack:
        text += f"\n技术栈：{', '.join(brief.tech_stack)}"
    return text


def _finding(finding: Finding) -> str:
    where = finding.path or "(project)"
    if finding.line is not None:
        where += f":{finding.line}"
    return f"- {where} [{finding.check}] {finding.message}"
