"""The app builder's model calls carry the run's real choices (`activities.common.llm_calls.narrowed`): the UI
expert styles components of the architect's tree, the planner's schema names the registries' agents and tools, a
writing task must have `write_file`, and a writing agent's `read_file` names the files there are."""

import pytest
from pydantic import ValidationError

from activities.app_builder.analysis import content_model
from activities.app_builder.offline.analysis import analysis_document
from activities.app_builder.planner import PlanAnswer, plan_answer_model
from activities.app_builder.task_loop import offered_tools
from models.app_builder.agents import AppBrief
from models.app_builder.documents import ANALYSIS_ORDER, AnalysisAgentID, SessionDocument, UIExpertContent
from models.app_builder.plan import ExecutionAgentID, ExecutionPlanTask
from models.app_builder.tools import TOOL_REGISTRY

WRITERS = ["scaffold-agent", "page-agent", "interaction-agent", "state-agent", "style-agent", "repair-agent"]


def test_the_ui_expert_styles_components_of_the_architect_s_tree() -> None:
    documents: list[SessionDocument] = []
    for index, agent in enumerate(ANALYSIS_ORDER[:2]):
        brief = AppBrief(message="做一个待办事项应用")
        documents.append(analysis_document(agent, brief, documents, document_id=f"d{index}", created_at=0))
    components = [node.id for node in documents[1].content.component_tree]  # type: ignore[union-attr]

    schema = content_model(AnalysisAgentID.UI_EXPERT, documents)

    assert schema.model_json_schema()["$defs"]["ComponentStyle"]["properties"]["componentId"]["enum"] == components
    content = {
        "visualSpec": {
            "colorScheme": "light",
            "typography": {"heading": "a", "body": "b"},
            "spacing": {},
            "borderRadius": "4px",
        },
        "componentStyles": [{"componentId": "Sidebar", "styles": {}}],
        "responsiveLayout": {"breakpoints": {"md": 768}, "strategy": "mobile-first"},
    }
    with pytest.raises(ValidationError, match=r"componentStyles\.0\.componentId"):
        schema.model_validate(content)
    content["componentStyles"] = [{"componentId": components[0], "styles": {}}]
    assert isinstance(schema.model_validate(content), UIExpertContent)
    assert content_model(AnalysisAgentID.UI_EXPERT, []) is UIExpertContent


def test_the_plan_s_schema_lists_the_agents_and_tools_a_model_may_name() -> None:
    schema = plan_answer_model().model_json_schema()

    writing, quality = schema["$defs"]["WritingTask"]["properties"], schema["$defs"]["QualityTask"]["properties"]
    assert writing["agentId"]["enum"] == WRITERS and quality["agentId"]["const"] == ExecutionAgentID.QUALITY
    assert writing["tools"]["items"]["enum"] == quality["tools"]["items"]["enum"] == list(TOOL_REGISTRY)
    assert writing["tools"]["contains"] == {"const": "write_file"} and "contains" not in quality["tools"]
    assert schema["properties"]["tasks"]["items"]["discriminator"]["propertyName"] == "agentId"


def test_an_answer_in_the_plan_s_schema_is_a_plan_answer_of_plain_tasks() -> None:
    tasks = [
        {"id": "scaffold", "agentId": "scaffold-agent", "goal": "g", "tools": ["write_file"]},
        {"id": "check", "agentId": "quality-agent", "goal": "g", "dependsOn": ["scaffold"], "tools": ["build"]},
    ]

    answer = plan_answer_model().model_validate({"tasks": tasks})

    assert isinstance(answer, PlanAnswer)
    assert [ExecutionPlanTask.model_validate(t.model_dump()).tools for t in answer.tasks] == [["write_file"], ["build"]]


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        ({"agentId": "designer-agent", "tools": ["write_file"]}, "tag 'designer-agent'"),
        ({"agentId": "page-agent", "tools": ["write_file", "rm_rf"]}, "Input should be 'list_files'"),
        ({"agentId": "page-agent", "tools": ["read_file"]}, "needs the write_file tool"),
        ({"agentId": "repair-agent"}, "needs the write_file tool"),
    ],
)
def test_a_task_outside_the_choices_is_refused_with_the_reason(task: dict[str, object], reason: str) -> None:
    with pytest.raises(ValidationError) as refused:
        plan_answer_model().model_validate({"tasks": [{"id": "t", "goal": "g", **task}]})

    assert reason in str(refused.value)


def test_read_file_names_the_files_there_are_and_only_the_task_s_tools_are_offered() -> None:
    offered = offered_tools(["read_file", "write_file"], ["package.json", "src/App.tsx"])

    assert [tool.name for tool in offered] == ["read_file", "write_file"]
    assert offered[0].input_schema["properties"]["path"]["enum"] == ["package.json", "src/App.tsx"]
    assert "enum" not in offered[1].input_schema["properties"]["path"]
    assert "enum" not in offered_tools(["read_file"], [])[0].input_schema["properties"]["path"]
