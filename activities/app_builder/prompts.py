"""The app builder's prompts: each analysis agent's role, the planner's rules (the seven agents, the tool
registry, dependencies without cycles, the repair round's issues) and the writing agents' tool-loop brief."""

import json

from models.app_builder.agents import AppBrief, TaskRequest
from models.app_builder.documents import ANALYSIS_TITLES, AnalysisAgentID, SessionDocument
from models.app_builder.plan import ExecutionAgentID, ExecutionPlan, PlanIssue
from models.app_builder.quality import Finding
from models.app_builder.tools import TOOL_REGISTRY

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
    "runs only when the quality check fails; dependencies must not form a cycle."
)

WRITER_SYSTEM = (
    "You are the {agent} of a team that writes a React + TypeScript + Vite project. Other agents write other "
    "files at the same time; change only what your goal needs. Use list_files and read_file to see the project "
    "as it was when your wave started, and write_file to write a file's whole new text (paths relative to the "
    "project root, such as src/App.tsx). When you are done, answer with a one-sentence summary and no tool call."
)


def analysis_input(brief: AppBrief, previous: list[SessionDocument]) -> str:
    lines = [brief_text(brief)]
    for document in previous:
        title = ANALYSIS_TITLES[document.agent_id]
        lines.append(
            f"\n{title}（{document.agent_id.value}）的文档：\n{document.content.model_dump_json(by_alias=True)}"
        )
    return "\n".join(lines)


def planning_input(
    brief: AppBrief, documents: list[SessionDocument], rejected: ExecutionPlan | None, issues: list[PlanIssue]
) -> str:
    text = analysis_input(brief, documents)
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
        "Analysis documents: " + json.dumps([d.model_dump(mode="json", by_alias=True) for d in documents])[:12000],
    ]
    if request.findings:
        lines.append("The quality check found (fix these):\n" + "\n".join(_finding(f) for f in request.findings))
    return "\n".join(lines)


def brief_text(brief: AppBrief) -> str:
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
