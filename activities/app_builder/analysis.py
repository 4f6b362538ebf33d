"""The analysis layer's agents, one activity each (`app_builder.product_manager`, `.frontend_architect`,
`.ui_expert`, `.ux_expert`).

Each reads the brief and every document before it and returns its Session_Document; in a follow-up round it also
reads its own earlier document and returns it updated for the change (its `version` one higher). With a model, the model
writes the document's `content` as JSON in the seed's schema (one repair round inside the client when it does
not fit), narrowed for the request where it names what an earlier document made: the UI expert's component
styles name components of the architect's tree (`content_model`). A content that still does not fit is
DOCUMENT_INVALID, non-retryable, naming the agent and the fields, which stops the layer. While the model writes,
the document's readable values stream to the run when the request says where (`activities.app_builder.answer_text`);
the document is the parsed answer. Without a model the
offline agent writes it (labelled offline); a message that names none of the kinds it builds is
OFFLINE_APP_UNSUPPORTED, non-retryable, naming the kinds and telling the user to configure a model.
"""

import time
import uuid

from pydantic import BaseModel, ValidationError

from activities.app_builder.answer_text import ANALYSIS_LAYOUTS
from activities.app_builder.offline.analysis import UnsupportedApp, analysis_document
from activities.app_builder.prompts import ANALYSIS_ROLES, analysis_input
from activities.common.answer_text import shown_answer
from activities.common.failures import permanent
from activities.common.llm_calls import JsonQuestion, choice, json_answer, narrowed
from llm import LLMClient, Message
from models.app_builder import nodes
from models.app_builder.agents import AnalysisOutcome, AnalysisRequest
from models.app_builder.documents import (
    DOCUMENT_MODELS,
    SESSION_DOCUMENT,
    AnalysisAgentID,
    ComponentStyle,
    FrontendArchitectContent,
    ProductManagerContent,
    SessionDocument,
    UIExpertContent,
    UXExpertContent,
)
from models.app_builder.errors import AppBuilderErrorCode

LLM_TEMPERATURE = 0.4
CONTENT_MODELS: dict[AnalysisAgentID, type[BaseModel]] = {
    AnalysisAgentID.PRODUCT_MANAGER: ProductManagerContent,
    AnalysisAgentID.FRONTEND_ARCHITECT: FrontendArchitectContent,
    AnalysisAgentID.UI_EXPERT: UIExpertContent,
    AnalysisAgentID.UX_EXPERT: UXExpertContent,
}


class AnalysisAgents:
    """The four analysis agents over the LLM (None: offline only)."""

    def __init__(self, llm: LLMClient | None = None) -> None:
        self._llm = llm

    @nodes.ANALYSIS[AnalysisAgentID.PRODUCT_MANAGER].defn
    async def product_manager(self, request: AnalysisRequest) -> AnalysisOutcome:
        return await self._document(request)

    @nodes.ANALYSIS[AnalysisAgentID.FRONTEND_ARCHITECT].defn
    async def frontend_architect(self, request: AnalysisRequest) -> AnalysisOutcome:
        return await self._document(request)

    @nodes.ANALYSIS[AnalysisAgentID.UI_EXPERT].defn
    async def ui_expert(self, request: AnalysisRequest) -> AnalysisOutcome:
        return await self._document(request)

    @nodes.ANALYSIS[AnalysisAgentID.UX_EXPERT].defn
    async def ux_expert(self, request: AnalysisRequest) -> AnalysisOutcome:
        return await self._document(request)

    async def _document(self, request: AnalysisRequest) -> AnalysisOutcome:
        agent = request.agent_id
        document_id = f"{agent.value}-{uuid.uuid4().hex[:12]}"
        created_at = int(time.time() * 1000)
        if self._llm is None or not request.use_llm:
            try:
                document = analysis_document(
                    agent, request.brief, request.previous_documents, document_id=document_id, created_at=created_at
                )
            except UnsupportedApp as err:
                raise permanent(AppBuilderErrorCode.OFFLINE_APP_UNSUPPORTED, str(err)) from err
            except ValueError as err:
                raise permanent(AppBuilderErrorCode.DOCUMENT_INVALID, f"{agent.value}：{err}") from err
            return AnalysisOutcome(document=document, offline=True)
        content = await self._ask(self._llm, request)
        version = request.earlier.version + 1 if request.earlier is not None else 1
        raw = {
            "id": document_id,
            "agentId": agent.value,
            "createdAt": created_at,
            "version": version,
            "content": content,
        }
        try:
            document = SESSION_DOCUMENT.validate_python(raw)
        except ValidationError as err:
            raise permanent(AppBuilderErrorCode.DOCUMENT_INVALID, _invalid_message(agent, err.errors())) from err
        return AnalysisOutcome(document=document, offline=False)

    async def _ask(self, llm: LLMClient, request: AnalysisRequest) -> dict[str, object]:
        agent = request.agent_id
        schema = content_model(agent, request.previous_documents)
        shown = shown_answer(request.stream, agent.value, ANALYSIS_LAYOUTS.get(agent))
        question = JsonQuestion(
            node=agent.value,
            schema=schema,
            messages=[Message.user(analysis_input(request.brief, request.previous_documents, request.earlier))],
            system=ANALYSIS_ROLES[agent],
            temperature=LLM_TEMPERATURE,
            shown=shown,
        )
        answer = await json_answer(
            llm,
            question,
            code=AppBuilderErrorCode.DOCUMENT_INVALID,
            message=lambda err: _invalid_message(agent, err.errors),
        )
        if shown is not None:
            await shown.finish(answer)
        dumped: dict[str, object] = answer.model_dump(mode="json", by_alias=True)
        return dumped


def content_model(agent: AnalysisAgentID, previous: list[SessionDocument]) -> type[BaseModel]:
    """The schema of `agent`'s content for this request: the UI expert's `componentStyles[].componentId` is one of
    the components of the architect's tree (when there is one)."""
    schema = CONTENT_MODELS[agent]
    components = [
        node.id
        for document in previous
        if isinstance(document.content, FrontendArchitectContent)
        for node in document.content.component_tree
    ]
    if agent != AnalysisAgentID.UI_EXPERT or not components:
        return schema
    style = narrowed(ComponentStyle, component_id=choice(list(dict.fromkeys(components))))
    return narrowed(UIExpertContent, component_styles=list[style])  # type: ignore[valid-type]


def _invalid_message(agent: AnalysisAgentID, errors: object) -> str:
    """DOCUMENT_INVALID's message: the agent, its document's model and the first fields that do not fit."""
    fields = []
    for error in errors if isinstance(errors, list) else []:
        location = ".".join(str(part) for part in error.get("loc", ())) or "(root)"
        fields.append(f"{location}: {error.get('msg', '')}")
    model = DOCUMENT_MODELS[agent].__name__
    detail = "; ".join(fields[:8]) or "not a JSON object"
    return f"{agent.value} 的文档不符合 {model} 的格式：{detail}"
