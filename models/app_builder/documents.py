"""Seed 003's Session_Documents: what each analysis agent writes, field for field as the seed gives them.

`SessionDocument` is the union discriminated by `agentId`; `ANALYSIS_ORDER` is the analysis layer's fixed order
(product manager → front-end architect → UI expert → UX expert), `ANALYSIS_READS` the documents each agent reads,
`ANALYSIS_WAVES` the agents that write at once because neither reads the other's. Every field the seed declares is
required unless the seed marks it optional; an agent's output that does not fit is refused with the fields that are
wrong.
"""

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from models.base import CamelModel

Priority = Literal["high", "medium", "low"]


class AnalysisAgentID(StrEnum):
    """The four analysis agents (seed 003 `AnalysisAgentID`)."""

    PRODUCT_MANAGER = "product-manager"
    FRONTEND_ARCHITECT = "frontend-architect"
    UI_EXPERT = "ui-expert"
    UX_EXPERT = "ux-expert"


ANALYSIS_ORDER = (
    AnalysisAgentID.PRODUCT_MANAGER,
    AnalysisAgentID.FRONTEND_ARCHITECT,
    AnalysisAgentID.UI_EXPERT,
    AnalysisAgentID.UX_EXPERT,
)
"""The order of the analysis layer's documents and events (seed 003: PM → Architect → UI → UX)."""

ANALYSIS_READS: dict[AnalysisAgentID, tuple[AnalysisAgentID, ...]] = {
    AnalysisAgentID.PRODUCT_MANAGER: (),
    AnalysisAgentID.FRONTEND_ARCHITECT: (AnalysisAgentID.PRODUCT_MANAGER,),
    AnalysisAgentID.UI_EXPERT: (AnalysisAgentID.PRODUCT_MANAGER, AnalysisAgentID.FRONTEND_ARCHITECT),
    AnalysisAgentID.UX_EXPERT: (AnalysisAgentID.PRODUCT_MANAGER, AnalysisAgentID.FRONTEND_ARCHITECT),
}
"""The documents each agent reads. Seed 003 gives the dependencies that make the layer serial: the architect needs
the product requirements, the UI expert the architecture (its component styles name the architect's components).
The UX expert writes flows for the requirements through the architect's components; nothing in its document
refers to the UI expert's visual spec, so the two experts do not read each other."""


def _waves() -> tuple[tuple[AnalysisAgentID, ...], ...]:
    level: dict[AnalysisAgentID, int] = {}
    for agent in ANALYSIS_ORDER:
        level[agent] = 1 + max((level[read] for read in ANALYSIS_READS[agent]), default=-1)
    return tuple(
        tuple(agent for agent in ANALYSIS_ORDER if level[agent] == wave) for wave in range(max(level.values()) + 1)
    )


ANALYSIS_WAVES = _waves()
"""The analysis agents by wave, each wave in `ANALYSIS_ORDER`: a wave's agents read only earlier waves'
documents, so they write at once (PM; Architect; UI and UX)."""

ANALYSIS_TITLES = {
    AnalysisAgentID.PRODUCT_MANAGER: "产品需求经理",
    AnalysisAgentID.FRONTEND_ARCHITECT: "前端架构师",
    AnalysisAgentID.UI_EXPERT: "UI专家",
    AnalysisAgentID.UX_EXPERT: "UX专家",
}


class SessionDocumentBase(CamelModel):
    """What every Session_Document carries (seed 003 `SessionDocumentBase`)."""

    id: str = Field(min_length=1)
    created_at: int
    """Milliseconds since the epoch, as the seed's `createdAt: number`."""
    version: int = Field(default=1, ge=1)
    """1 as the seed writes it; each follow-up round that updates the document adds one (issue 27)."""


# ---- product-manager ----


class FunctionalRequirement(CamelModel):
    """One functional requirement of the product manager."""

    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    description: str
    priority: Priority


class UserStory(CamelModel):
    """One user story: who wants what, and why."""

    id: str = Field(min_length=1)
    persona: str
    goal: str
    benefit: str


class ProductManagerContent(CamelModel):
    """The product manager's requirements, user stories and their priority order."""

    functional_requirements: list[FunctionalRequirement] = Field(min_length=1)
    user_stories: list[UserStory]
    priority_order: list[str]
    """Requirement ids, most important first."""


class ProductManagerDocument(SessionDocumentBase):
    """产品需求经理's document."""

    agent_id: Literal[AnalysisAgentID.PRODUCT_MANAGER] = AnalysisAgentID.PRODUCT_MANAGER
    content: ProductManagerContent


# ---- frontend-architect ----


class ComponentNode(CamelModel):
    """One node of the architect's component tree."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    type: Literal["page", "layout", "component", "widget"]
    children: list[str]
    """Component ids."""
    props: dict[str, str] | None = None


class RouteDesign(CamelModel):
    """One route: its path and the component it shows."""

    path: str = Field(min_length=1)
    component_id: str = Field(min_length=1)
    guard: str | None = None


class StoreDesign(CamelModel):
    """One state store with its fields (name → type)."""

    name: str = Field(min_length=1)
    description: str
    fields: dict[str, str]


class StateManagement(CamelModel):
    """How the app holds its state, and its stores."""

    approach: Literal["zustand", "context", "redux", "jotai"]
    stores: list[StoreDesign]


class FrontendArchitectContent(CamelModel):
    """The architect's component tree, routes and state management."""

    component_tree: list[ComponentNode] = Field(min_length=1)
    route_design: list[RouteDesign]
    state_management: StateManagement


class FrontendArchitectDocument(SessionDocumentBase):
    """前端架构师's document."""

    agent_id: Literal[AnalysisAgentID.FRONTEND_ARCHITECT] = AnalysisAgentID.FRONTEND_ARCHITECT
    content: FrontendArchitectContent


# ---- ui-expert ----


class Typography(CamelModel):
    """Heading and body fonts."""

    heading: str
    body: str


class VisualSpec(CamelModel):
    """Colors, typography, spacing and corner radius."""

    color_scheme: str
    typography: Typography
    spacing: dict[str, str]
    border_radius: str


class ComponentStyle(CamelModel):
    """Styles (and variants) of one component of the architect's tree."""

    component_id: str = Field(min_length=1)
    styles: dict[str, str]
    variants: dict[str, dict[str, str]] | None = None


class ResponsiveLayout(CamelModel):
    """Breakpoints (name → px) and the responsive strategy."""

    breakpoints: dict[str, int]
    strategy: Literal["mobile-first", "desktop-first"]


class UIExpertContent(CamelModel):
    """The UI expert's visual spec, component styles and responsive layout."""

    visual_spec: VisualSpec
    component_styles: list[ComponentStyle]
    responsive_layout: ResponsiveLayout


class UIExpertDocument(SessionDocumentBase):
    """UI专家's document."""

    agent_id: Literal[AnalysisAgentID.UI_EXPERT] = AnalysisAgentID.UI_EXPERT
    content: UIExpertContent


# ---- ux-expert ----


class FlowStep(CamelModel):
    """One step of an interaction flow."""

    action: str
    expected_result: str
    error_handling: str | None = None


class InteractionFlow(CamelModel):
    """An interaction flow: its steps with expected results and error handling."""

    id: str = Field(min_length=1)
    name: str
    steps: list[FlowStep]


class UserJourney(CamelModel):
    """A persona's journey: touchpoints and pain points."""

    id: str = Field(min_length=1)
    persona: str
    touchpoints: list[str]
    pain_points: list[str]


class UsabilityRecommendation(CamelModel):
    """One usability recommendation with its priority."""

    area: str
    recommendation: str
    priority: Priority


class UXExpertContent(CamelModel):
    """The UX expert's flows, journeys and recommendations."""

    interaction_flows: list[InteractionFlow]
    user_journeys: list[UserJourney]
    usability_recommendations: list[UsabilityRecommendation]


class UXExpertDocument(SessionDocumentBase):
    """UX专家's document."""

    agent_id: Literal[AnalysisAgentID.UX_EXPERT] = AnalysisAgentID.UX_EXPERT
    content: UXExpertContent


SessionDocument = Annotated[
    ProductManagerDocument | FrontendArchitectDocument | UIExpertDocument | UXExpertDocument,
    Field(discriminator="agent_id"),
]
SESSION_DOCUMENT: TypeAdapter[SessionDocument] = TypeAdapter(SessionDocument)
"""Validates any Session_Document (JSON or dict) by its `agentId`."""

DOCUMENT_MODELS: dict[AnalysisAgentID, type[SessionDocumentBase]] = {
    AnalysisAgentID.PRODUCT_MANAGER: ProductManagerDocument,
    AnalysisAgentID.FRONTEND_ARCHITECT: FrontendArchitectDocument,
    AnalysisAgentID.UI_EXPERT: UIExpertDocument,
    AnalysisAgentID.UX_EXPERT: UXExpertDocument,
}
"""The document model each analysis agent must produce."""
