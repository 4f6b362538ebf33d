"""The offline analysis layer: each of the four analysis agents' Session_Document, from the brief and the
documents of the agents before it.

The kind of app, its language and title come from the message; the architect builds on the product manager's
requirements, the UI expert styles the architect's components, the UX expert writes flows for the requirements
through those components. An agent whose input documents are missing raises `ValueError`; a message that names
none of the kinds the offline agents build raises `UnsupportedApp` (never another kind of app instead).
"""

from activities.app_builder.offline.app_kind import app_title, message_language, recognise_kind
from activities.app_builder.offline.architecture import architecture_content
from activities.app_builder.offline.conventions import require_document
from activities.app_builder.offline.flows import flows_content
from activities.app_builder.offline.requirements import product_content
from activities.app_builder.offline.visual import visual_content
from models.app_builder.agents import AppBrief
from models.app_builder.app_kinds import offline_refusal
from models.app_builder.documents import (
    AnalysisAgentID,
    FrontendArchitectDocument,
    ProductManagerDocument,
    SessionDocument,
    UIExpertDocument,
    UXExpertDocument,
)


class UnsupportedApp(Exception):
    """The message asks for an app the offline agents do not build; the message says which they build."""


def analysis_document(
    agent_id: AnalysisAgentID,
    brief: AppBrief,
    previous: list[SessionDocument],
    *,
    document_id: str,
    created_at: int,
) -> SessionDocument:
    kind = recognise_kind(brief.message)
    if kind is None:
        raise UnsupportedApp(offline_refusal(brief.message))
    if agent_id == AnalysisAgentID.PRODUCT_MANAGER:
        return ProductManagerDocument(id=document_id, created_at=created_at, content=product_content(kind))
    product = require_document(previous, ProductManagerDocument, agent_id)
    if agent_id == AnalysisAgentID.FRONTEND_ARCHITECT:
        language = message_language(brief.message)
        content = architecture_content(kind, language, app_title(brief.message, kind, language), product)
        return FrontendArchitectDocument(id=document_id, created_at=created_at, content=content)
    architect = require_document(previous, FrontendArchitectDocument, agent_id)
    if agent_id == AnalysisAgentID.UI_EXPERT:
        return UIExpertDocument(id=document_id, created_at=created_at, content=visual_content(kind, architect))
    return UXExpertDocument(id=document_id, created_at=created_at, content=flows_content(kind, product, architect))
