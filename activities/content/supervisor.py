"""The Supervisor's activities: one LLM turn (`supervisor.supervisor_turn`: a JSON decision, or tool calls) and
one tool call (`supervisor.supervisor_tool`: `inspect_artifact`). Without an LLM, or with `use_llm` off after
the LLM failed for good, the offline policy decides (labelled offline)."""

import json

from pydantic import ValidationError

from activities.common.llm_calls import model_turn
from activities.content.offline.supervisor_policy import decide
from activities.content.prompts import state_summary, supervisor_prompt
from llm import LLMClient, LLMRequest, Message, ToolDefinition
from llm.json_output import extract_json
from models.content import nodes
from models.content.agents import SupervisorDecision
from models.content.turns import ToolCallRequest, ToolCallResult, Turn, TurnRequest
from stores.blob_store import LocalBlobStore
from stores.evidence import load_items

SUPERVISOR_TEMPERATURE = 0.2
TOOL_RESULT_CHARS = 8000
ARTIFACTS = (
    "brief",
    "evidence",
    "body_blocks",
    "reference_analyses",
    "layout",
    "image_plans",
    "content",
    "images",
    "review",
)
INSPECT_ARTIFACT = ToolDefinition(
    name="inspect_artifact",
    description="读取某个产出的完整内容（例如证据全文、正文全文），用于做出路由决策。",
    input_schema={
        "type": "object",
        "properties": {"name": {"type": "string", "enum": list(ARTIFACTS)}},
        "required": ["name"],
    },
)


class SupervisorAgent:
    """The Supervisor's turn and tools, over the blob store (evidence) and the LLM (None: offline only)."""

    def __init__(self, blobs: LocalBlobStore, llm: LLMClient | None = None) -> None:
        self._blobs = blobs
        self._llm = llm

    @nodes.SUPERVISOR_TURN.defn
    async def supervisor_turn(self, request: TurnRequest) -> Turn:
        progress = request.progress
        if progress is None:
            raise ValueError("the Supervisor's turn needs the run's progress")
        if self._llm is None or not request.use_llm:
            decision = decide(progress, request.view)
            return Turn(decision=decision, text=decision.guidance, offline=True)
        call = LLMRequest(
            messages=(Message.user(state_summary(request.view, progress)), *request.conversation),
            system=supervisor_prompt(),
            tools=(INSPECT_ARTIFACT,) if request.tools_allowed else (),
            temperature=SUPERVISOR_TEMPERATURE,
        )
        response = await model_turn(self._llm, call)
        if response.tool_calls:
            return Turn(tool_calls=list(response.tool_calls), text=response.text[:2000], offline=False)
        return Turn(decision=parse_decision(response.text), text=response.text[:2000], offline=False)

    @nodes.SUPERVISOR_TOOL.defn
    async def supervisor_tool(self, request: ToolCallRequest) -> ToolCallResult:
        call = request.call
        name = call.arguments.get("name")
        if call.name != INSPECT_ARTIFACT.name or name not in ARTIFACTS:
            message = f"未知的工具或产出：{call.name}({name!r})；可用：inspect_artifact(name ∈ {', '.join(ARTIFACTS)})"
            return ToolCallResult(call_id=call.id, name=call.name, content=message, is_error=True, summary=message)
        content = await self._artifact(request, str(name))
        return ToolCallResult(
            call_id=call.id,
            name=call.name,
            content=content[:TOOL_RESULT_CHARS],
            summary=f"读取 {name}（{len(content)} 字符）",
        )

    async def _artifact(self, request: ToolCallRequest, name: str) -> str:
        view = request.view
        value: object
        if name == "evidence":
            items = await load_items(self._blobs, view.evidence_pack)
            value = [item.model_dump(by_alias=True) for item in items]
        else:
            field = {
                "brief": "creativeBrief",
                "body_blocks": "bodyBlocks",
                "reference_analyses": "referenceAnalyses",
                "layout": "layoutSpec",
                "image_plans": "imagePlans",
                "content": "generatedContent",
                "images": "generatedImageAssetIds",
                "review": "reviewFeedback",
            }[name]
            value = view.model_dump(by_alias=True).get(field)
        return json.dumps(value, ensure_ascii=False) if value not in (None, [], {}) else f"{name}：还没有"


def parse_decision(text: str) -> SupervisorDecision | None:
    """The JSON decision in the Supervisor's answer, or None when there is none (routing asks it again)."""
    try:
        return SupervisorDecision.model_validate_json(extract_json(text))
    except ValidationError:
        return None
