"""The Supervisor's activities: one LLM turn (`supervisor.supervisor_turn`: a JSON decision, or tool calls) and
one tool call (`supervisor.supervisor_tool`: `inspect_artifact`). Without an LLM, or with `use_llm` off after
the LLM failed for good, the offline policy decides (labelled offline).

Each turn's message ends with the decision's JSON Schema, whose `next_agent` lists the choices that move the run
on now (`useful_choices`: a stage missing or stale, the quality fallback after a failed review, END once the run
may end): a model that picks from them does not loop over finished stages. Any agent of the graph (or END) is
still read as a decision; the routing rules judge it. An answer with no usable decision gets one repair round
(the same call without tools, the reason sent back); one still unusable comes back as `Turn.unreadable`, the
reason, for the workflow to count."""

import json
from typing import Any

from pydantic import Field, ValidationError, field_validator

from activities.common.llm_calls import model_turn
from activities.content.offline.supervisor_policy import ORDER, decide
from activities.content.prompts import state_summary, supervisor_prompt
from llm import LLMClient, LLMRequest, Message, ToolDefinition
from llm.json_output import extract_json, json_instructions, repair_prompt
from models.content import nodes
from models.content.agents import END, AgentName, ContentView, SupervisorDecision
from models.content.turns import Progress, ToolCallRequest, ToolCallResult, Turn, TurnRequest
from stores.blob_store import BlobStore
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


NEXT_AGENTS = (*(agent.value for agent in AgentName), END)


class ReadableDecision(SupervisorDecision):
    """A decision the run can use: `next_agent` names one of the graph's agents, or END."""

    next_agent: str = Field(alias="next_agent", max_length=64, json_schema_extra={"enum": list(NEXT_AGENTS)})

    @field_validator("next_agent")
    @classmethod
    def _known(cls, value: str) -> str:
        if value.strip() not in NEXT_AGENTS:
            raise ValueError(f"next_agent {value[:40]!r} is not one of {', '.join(NEXT_AGENTS)}")
        return value.strip()


def useful_choices(progress: Progress, view: ContentView) -> list[str]:
    """The choices that move the run on now, in the seed's normal order: every stage missing or stale (reference
    analysis only with reference images), the quality fallback's agent after a failed review, and END once the run
    may end; every choice when none is left (the routing rules then say why)."""
    choices = [
        agent.value
        for agent in ORDER
        if progress.artifacts[agent] != "done"
        and (agent is not AgentName.REFERENCE_INTELLIGENCE or view.reference_images)
    ]
    fallback = progress.quality_fallback
    if fallback is not None and not progress.review_passed and fallback.agent.value not in choices:
        choices.append(fallback.agent.value)
    if progress.can_end:
        choices.append(END)
    return choices or list(NEXT_AGENTS)


def decision_instructions(choices: list[str]) -> str:
    """The decision's format for this turn: the JSON Schema, `next_agent` one of `choices`."""
    schema: dict[str, Any] = ReadableDecision.model_json_schema(by_alias=True)
    schema["properties"]["next_agent"]["enum"] = choices
    return f"本轮可选的 next_agent：{', '.join(choices)}。\n{json_instructions(schema)}"


class SupervisorAgent:
    """The Supervisor's turn and tools, over the blob store (evidence) and the LLM (None: offline only)."""

    def __init__(self, blobs: BlobStore, llm: LLMClient | None = None) -> None:
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
        summary = state_summary(request.view, progress, request.messages)
        instructions = decision_instructions(useful_choices(progress, request.view))
        messages = (Message.user(f"{summary}\n\n{instructions}"), *request.conversation)
        call = LLMRequest(
            messages=messages,
            system=supervisor_prompt(),
            tools=(INSPECT_ARTIFACT,) if request.tools_allowed else (),
            temperature=SUPERVISOR_TEMPERATURE,
        )
        response = await model_turn(self._llm, call)
        if response.tool_calls:
            return Turn(tool_calls=list(response.tool_calls), text=response.text[:2000], offline=False)
        read = read_decision(response.text)
        if isinstance(read, SupervisorDecision):
            return Turn(decision=read, text=response.text[:2000], offline=False)
        repair = call.model_copy(
            update={
                "messages": (*messages, Message.assistant(response.text[:2000] or "（空）"), Message.user(read)),
                "tools": (),
            }
        )
        repaired = await model_turn(self._llm, repair)
        reread = read_decision(repaired.text)
        if isinstance(reread, SupervisorDecision):
            return Turn(decision=reread, text=repaired.text[:2000], offline=False)
        reason = f"Supervisor 的回答在修复后仍无法使用：{reread}"[:500]
        return Turn(text=repaired.text[:2000], unreadable=reason, offline=False)

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


def read_decision(text: str) -> SupervisorDecision | str:
    """The usable JSON decision in the Supervisor's answer, or what is wrong with it (sent back to the model)."""
    try:
        decision = ReadableDecision.model_validate_json(extract_json(text))
    except ValidationError as err:
        return f"你的回答里没有可用的 JSON 决策。{repair_prompt(err)}"
    return SupervisorDecision.model_validate(decision.model_dump(by_alias=True))
