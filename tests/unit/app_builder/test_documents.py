"""The Session_Document schemas (seed 003 数据模型): each agent's document validates field for field, and a
document that misses a field, breaks an enum or names another agent is refused with the field that is wrong."""

from typing import Any

import pytest
from pydantic import ValidationError

from activities.app_builder.offline.analysis import analysis_document
from models.app_builder.agents import AppBrief
from models.app_builder.documents import (
    ANALYSIS_ORDER,
    ANALYSIS_READS,
    ANALYSIS_WAVES,
    DOCUMENT_MODELS,
    SESSION_DOCUMENT,
    SessionDocument,
)


def offline_documents() -> list[dict[str, Any]]:
    documents: list[SessionDocument] = []
    for index, agent in enumerate(ANALYSIS_ORDER):
        brief = AppBrief(message="做一个待办事项应用")
        documents.append(analysis_document(agent, brief, documents, document_id=f"doc-{index}", created_at=1))
    return [document.model_dump(mode="json", by_alias=True) for document in documents]


def test_each_document_validates_as_its_agents_model_by_agent_id() -> None:
    for raw, agent in zip(offline_documents(), ANALYSIS_ORDER, strict=True):
        document = SESSION_DOCUMENT.validate_python(raw)
        assert type(document) is DOCUMENT_MODELS[agent]
        assert document.version == 1 and raw["agentId"] == agent.value


@pytest.mark.parametrize(
    ("index", "path", "value", "field"),
    [
        (0, ["content", "functionalRequirements", 0, "priority"], "urgent", "priority"),
        (0, ["content", "functionalRequirements"], [], "functionalRequirements"),
        (1, ["content", "componentTree", 0, "type"], "screen", "type"),
        (1, ["content", "stateManagement", "approach"], "mobx", "approach"),
        (2, ["content", "responsiveLayout", "strategy"], "any", "strategy"),
        (2, ["content", "responsiveLayout", "breakpoints"], {"md": "wide"}, "md"),
        (3, ["content", "usabilityRecommendations", 0, "priority"], "p0", "priority"),
        (3, ["version"], 0, "version"),
    ],
)
def test_a_wrong_value_is_refused_naming_its_field(index: int, path: list[Any], value: Any, field: str) -> None:
    raw = offline_documents()[index]
    target = raw
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value

    with pytest.raises(ValidationError) as raised:
        SESSION_DOCUMENT.validate_python(raw)

    assert any(field in map(str, error["loc"]) for error in raised.value.errors())


@pytest.mark.parametrize(
    ("index", "section", "missing"),
    [
        (0, "content", "userStories"),
        (1, "content", "routeDesign"),
        (2, "content", "visualSpec"),
        (3, "content", "interactionFlows"),
        (0, None, "createdAt"),
    ],
)
def test_a_missing_field_is_refused(index: int, section: str | None, missing: str) -> None:
    raw = offline_documents()[index]
    del (raw[section] if section else raw)[missing]

    with pytest.raises(ValidationError) as raised:
        SESSION_DOCUMENT.validate_python(raw)

    assert any(error["type"] == "missing" and missing in map(str, error["loc"]) for error in raised.value.errors())


def test_an_unknown_agent_id_is_refused() -> None:
    raw = offline_documents()[0] | {"agentId": "designer"}

    with pytest.raises(ValidationError) as raised:
        SESSION_DOCUMENT.validate_python(raw)

    assert raised.value.errors()[0]["type"] == "union_tag_invalid"


def test_the_analysis_waves_follow_what_each_agent_reads() -> None:
    pm, architect, ui, ux = ANALYSIS_ORDER
    assert ((pm,), (architect,), (ui, ux)) == ANALYSIS_WAVES, "the seed's dependencies: PM → Architect → UI"
    for index, wave in enumerate(ANALYSIS_WAVES):
        earlier = {agent for before in ANALYSIS_WAVES[:index] for agent in before}
        assert all(set(ANALYSIS_READS[agent]) <= earlier for agent in wave), "a wave reads only the waves before it"
