"""The offline analysis agents: the kind, language and title read from the message (no kind when it names none of
the four: refused, never another app), four documents that validate and build on each other, and a refusal when
a needed document is missing."""

import pytest

from activities.app_builder.offline.analysis import UnsupportedApp, analysis_document
from activities.app_builder.offline.app_kind import app_title, message_language, recognise_kind
from models.app_builder.agents import AppBrief
from models.app_builder.documents import (
    ANALYSIS_ORDER,
    DOCUMENT_MODELS,
    SESSION_DOCUMENT,
    AnalysisAgentID,
    FrontendArchitectDocument,
    FunctionalRequirement,
    ProductManagerDocument,
    SessionDocument,
    UIExpertDocument,
    UXExpertDocument,
)

PM, ARCHITECT, UI, UX = ANALYSIS_ORDER


def run(agent: AnalysisAgentID, message: str, previous: list[SessionDocument]) -> SessionDocument:
    return analysis_document(agent, AppBrief(message=message), previous, document_id=f"doc-{agent}", created_at=7)


def documents_for(message: str) -> list[SessionDocument]:
    documents: list[SessionDocument] = []
    for agent in ANALYSIS_ORDER:
        documents.append(run(agent, message, documents))
    return documents


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("做一个待办事项应用", "todo"),
        ("Build me a todo app", "todo"),
        ("帮我做一个购物清单", "shopping"),
        ("a grocery list for the weekend", "shopping"),
        ("做一个笔记应用，可以搜索", "notes"),
        ("I need a simple notes app", "notes"),
        ("做一个计数器", "counter"),
        ("build a click counter", "counter"),
        ("做一个购物用的待办清单", "shopping"),
    ],
)
def test_the_kind_is_the_earliest_keyword(message: str, kind: str) -> None:
    recognised = recognise_kind(message)
    assert recognised is not None and recognised.name == kind


@pytest.mark.parametrize(
    "message",
    [
        "做一个好看的网页",
        "a weather dashboard with a city search",
        "a markdown blog editor",
        "a markdown blog editor called Inkwell",
    ],
)
def test_issue_27_a_message_naming_no_kind_is_no_kind_and_its_analysis_refuses_naming_the_kinds(message: str) -> None:
    assert recognise_kind(message) is None
    with pytest.raises(UnsupportedApp) as refused:
        run(PM, message, [])
    assert "todo list" in str(refused.value) and "counter" in str(refused.value)
    assert "LLM_PROVIDER" in str(refused.value)


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("做一个待办应用，叫“周末计划”", "周末计划"),
        ("做一个笔记本，名为「灵感库」，要能搜索", "灵感库"),
        ("做一个叫家庭采购的购物清单", "家庭采购"),
        ("a shopping list app called Weekend Groceries", "Weekend Groceries"),
        ("a counter named 'Push-ups' for my workouts", "Push-ups"),
        ("做一个计数器", "计数器"),
        ("build a notes app", "Notes"),
    ],
)
def test_the_title_is_the_name_the_message_gives_else_the_kinds(message: str, title: str) -> None:
    kind = recognise_kind(message)
    assert kind is not None
    assert app_title(message, kind, message_language(message)) == title


def test_each_agent_writes_its_own_document_and_every_document_validates() -> None:
    documents = documents_for("做一个待办应用")
    assert [document.agent_id for document in documents] == list(ANALYSIS_ORDER)
    for document in documents:
        assert isinstance(document, DOCUMENT_MODELS[document.agent_id])
        assert document.id == f"doc-{document.agent_id}"
        assert document.created_at == 7
        wire = document.model_dump(mode="json", by_alias=True)
        assert SESSION_DOCUMENT.validate_python(wire) == document


def test_the_product_manager_orders_requirements_by_priority() -> None:
    product = documents_for("做一个待办应用")[0]
    assert isinstance(product, ProductManagerDocument)
    requirements = {req.id: req for req in product.content.functional_requirements}
    assert set(product.content.priority_order) == set(requirements)
    ranks = [("high", "medium", "low").index(requirements[req].priority) for req in product.content.priority_order]
    assert ranks == sorted(ranks)
    assert len(product.content.user_stories) == len(requirements)


def test_the_architect_builds_components_and_store_fields_from_the_requirements() -> None:
    message = "做一个待办应用"
    product = run(PM, message, [])
    assert isinstance(product, ProductManagerDocument)
    full = run(ARCHITECT, message, [product])
    assert isinstance(full, FrontendArchitectDocument)
    ids = {node.id for node in full.content.component_tree}
    assert {"add-form", "filter-bar", "item-list", "item-row", "summary-bar"} <= ids
    assert full.content.state_management.approach == "context"
    assert set(full.content.state_management.stores[0].fields) == {"items", "filter"}

    kept = [req for req in product.content.functional_requirements if req.id not in ("req-filter", "req-clear")]
    narrower = product.model_copy(
        update={"content": product.content.model_copy(update={"functional_requirements": kept})}
    )
    reduced = run(ARCHITECT, message, [narrower])
    assert isinstance(reduced, FrontendArchitectDocument)
    reduced_ids = {node.id for node in reduced.content.component_tree}
    assert "filter-bar" not in reduced_ids
    assert "summary-bar" not in reduced_ids
    assert "add-form" in reduced_ids
    assert set(reduced.content.state_management.stores[0].fields) == {"items"}


def test_the_architect_reads_requirements_another_agent_named_by_their_titles() -> None:
    product = ProductManagerDocument(
        id="pm",
        created_at=1,
        content={
            "functionalRequirements": [
                FunctionalRequirement(id="FR-1", title="添加待办", description="", priority="high"),
                FunctionalRequirement(id="FR-2", title="清除已完成的待办", description="", priority="low"),
            ],
            "userStories": [],
            "priorityOrder": ["FR-1", "FR-2"],
        },
    )
    architect = run(ARCHITECT, "做一个待办应用", [product])
    assert isinstance(architect, FrontendArchitectDocument)
    page = next(node for node in architect.content.component_tree if node.type == "page")
    assert page.children == ["add-form", "item-list", "summary-bar"]


def test_the_tree_is_one_layout_around_the_routed_page_with_the_title_and_ui_text() -> None:
    architect = documents_for("做一个待办应用，叫“周末计划”")[1]
    assert isinstance(architect, FrontendArchitectDocument)
    tree = {node.id: node for node in architect.content.component_tree}
    layout = architect.content.component_tree[0]
    assert layout.type == "layout"
    assert (layout.props or {})["title"] == "周末计划"
    assert [route.component_id for route in architect.content.route_design] == layout.children
    for node in tree.values():
        assert set(node.children) <= set(tree)
    assert tree["item-list"].children == ["item-row"]
    assert (tree["add-form"].props or {})["submitLabel"] == "添加"

    english = documents_for("Build me a todo app")[1]
    assert isinstance(english, FrontendArchitectDocument)
    form = next(node for node in english.content.component_tree if node.id == "add-form")
    assert (form.props or {})["submitLabel"] == "Add"


def test_the_ui_expert_styles_exactly_the_architects_components() -> None:
    for message in ("做一个待办应用", "做一个计数器", "做一个笔记应用", "a shopping list"):
        _, architect, ui, _ = documents_for(message)
        assert isinstance(architect, FrontendArchitectDocument)
        assert isinstance(ui, UIExpertDocument)
        styled = [style.component_id for style in ui.content.component_styles]
        assert styled == [node.id for node in architect.content.component_tree]
        assert all(style.styles for style in ui.content.component_styles)
        assert ui.content.responsive_layout.strategy == "mobile-first"
        assert "primary #" in ui.content.visual_spec.color_scheme


def test_the_ux_expert_writes_a_flow_per_requirement_quoting_the_components_text() -> None:
    product, architect, _, ux = documents_for("做一个待办应用")
    assert isinstance(product, ProductManagerDocument)
    assert isinstance(architect, FrontendArchitectDocument)
    assert isinstance(ux, UXExpertDocument)
    flow_ids = [flow.id for flow in ux.content.interaction_flows]
    expected = [f"flow-{req.id.removeprefix('req-')}" for req in product.content.functional_requirements]
    assert flow_ids == [*expected, "flow-browse"]
    errors = [step.error_handling or "" for flow in ux.content.interaction_flows for step in flow.steps]
    assert any("请先输入待办内容" in error for error in errors)

    form = next(node for node in architect.content.component_tree if node.id == "add-form")
    reworded = form.model_copy(update={"props": {**(form.props or {}), "emptyError": "写点什么再添加"}})
    tree = [reworded if node.id == "add-form" else node for node in architect.content.component_tree]
    changed = architect.model_copy(update={"content": architect.content.model_copy(update={"component_tree": tree})})
    rewritten = run(UX, "做一个待办应用", [product, changed])
    assert isinstance(rewritten, UXExpertDocument)
    steps = [step.error_handling or "" for flow in rewritten.content.interaction_flows for step in flow.steps]
    assert any("写点什么再添加" in error for error in steps)
    touchpoints = rewritten.content.user_journeys[0].touchpoints
    assert touchpoints == [
        node.name for node in architect.content.component_tree if node.type not in ("layout", "page")
    ]


def test_an_agent_without_the_documents_it_reads_refuses() -> None:
    product = run(PM, "做一个待办应用", [])
    with pytest.raises(ValueError, match="product-manager"):
        run(ARCHITECT, "做一个待办应用", [])
    with pytest.raises(ValueError, match="frontend-architect"):
        run(UI, "做一个待办应用", [product])
    architect = run(ARCHITECT, "做一个待办应用", [product])
    with pytest.raises(ValueError, match="product-manager"):
        run(UX, "做一个待办应用", [architect])
