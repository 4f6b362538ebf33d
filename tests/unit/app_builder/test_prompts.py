"""The analysis documents in a writing task's prompt (issue 25): whole when they fit, summarised otherwise, and
valid JSON either way (they were cut at 12 000 characters, mid-JSON)."""

import json
from typing import Any

from activities.app_builder.offline.analysis import analysis_document
from activities.app_builder.prompts import DOCUMENTS_BUDGET_CHARS, task_input
from models.app_builder.agents import AppBrief, TaskRequest
from models.app_builder.documents import ANALYSIS_ORDER, FunctionalRequirement, SessionDocument
from models.app_builder.plan import ExecutionPlanTask
from models.app_builder.workspace import WorkspaceRef

BRIEF = AppBrief(message="做一个待办事项应用")


def documents(requirements: int = 0) -> list[SessionDocument]:
    """The offline analysis of the todo app; with `requirements`, the product manager lists that many more, each
    with a long description."""
    made: list[SessionDocument] = []
    for index, agent in enumerate(ANALYSIS_ORDER):
        made.append(analysis_document(agent, BRIEF, made, document_id=f"d{index}", created_at=0))
    extra = [
        FunctionalRequirement(id=f"FR-x{n}", title=f"需求 {n}", description="描述" * 300, priority="low")
        for n in range(requirements)
    ]
    pm = made[0]
    content = pm.content.model_copy(
        update={"functional_requirements": [*pm.content.functional_requirements, *extra]}  # type: ignore[union-attr]
    )
    made[0] = pm.model_copy(update={"content": content})
    return made


def documents_in(prompt: str) -> list[dict[str, Any]]:
    line = next(line for line in prompt.splitlines() if line.startswith("Analysis documents: "))
    parsed: list[dict[str, Any]] = json.loads(line.removeprefix("Analysis documents: "))
    return parsed


def prompt(given: list[SessionDocument]) -> str:
    request = TaskRequest(
        run_id="app-1",
        task=ExecutionPlanTask(id="pages", agent_id="page-agent", goal="写页面"),
        brief=BRIEF,
        documents_ref="blob:none",
        workspace=WorkspaceRef(),
    )
    return task_input(request, given, [])


def test_issue_25_small_documents_reach_the_task_whole() -> None:
    given = documents()

    assert documents_in(prompt(given)) == [d.model_dump(mode="json", by_alias=True) for d in given]


def test_issue_25_large_documents_are_summarised_as_valid_json_within_the_budget() -> None:
    given = documents(requirements=60)

    text = prompt(given)
    parsed = documents_in(text)

    assert [d["agentId"] for d in parsed] == [d.agent_id.value for d in given]
    listed = parsed[0]["content"]["functionalRequirements"]
    assert any(str(item).startswith("(+") for item in listed), "the cut says how many were left out"
    assert len(json.dumps(parsed, ensure_ascii=False)) <= DOCUMENTS_BUDGET_CHARS
