"""The research agent's tool loop, as activities: one LLM turn (`supervisor.research_turn`: tool calls, or its
findings) and one tool call (`supervisor.research_tool`: `search_notes`, `extract_facts` over the user's notes).
A final answer that is not valid findings JSON gets a repair round through the shared JSON path (the reason sent
back); one still invalid fails the turn for good (AGENT_FAILED), and the workflow degrades to the offline loop.
The findings are stored by reference (`stores.evidence`); the state keeps the pack and the body's
outline. Without an LLM the offline policy runs the same loop (`activities.content.offline.research`)."""

import asyncio

from pydantic import ValidationError

from activities.common.llm_calls import JsonQuestion, json_answer, model_turn
from activities.content.offline.research import research_turn
from activities.content.offline.research_tools import RESEARCH_TOOLS, run_research_tool
from activities.content.prompts import AGENT_PROMPTS, agent_input
from llm import LLMClient, LLMRequest, Message, ToolError
from llm.json_output import json_instructions, parse_model, repair_prompt
from models.content import nodes
from models.content.agents import AgentName, AgentOutcome, AgentRequest, StatePatch
from models.content.artifacts import ResearchFindings
from models.content.turns import ToolCallRequest, ToolCallResult, Turn, TurnRequest
from models.errors import ErrorCode
from stores.blob_store import BlobStore
from stores.evidence import load_notes, store_findings

RESEARCH_TEMPERATURE = 0.3


class ResearchAgent:
    """research_evidence_agent's turns and tools, over the blob store and the LLM (None: offline only)."""

    def __init__(self, blobs: BlobStore, llm: LLMClient | None = None) -> None:
        self._blobs = blobs
        self._llm = llm

    @nodes.RESEARCH_TURN.defn
    async def research_turn(self, request: TurnRequest) -> Turn:
        notes = await load_notes(self._blobs, request.view.evidence_notes_ref)
        if self._llm is None or not request.use_llm:
            step = await asyncio.to_thread(research_turn, request, notes)
            if isinstance(step, Turn):
                return step
            return await self._finished(step, offline=True)
        return await self._llm_turn(self._llm, request, notes)

    @nodes.RESEARCH_TOOL.defn
    async def research_tool(self, request: ToolCallRequest) -> ToolCallResult:
        call = request.call
        notes = await load_notes(self._blobs, request.view.evidence_notes_ref)
        try:
            content, summary = await asyncio.to_thread(run_research_tool, call, notes)
        except ToolError as err:
            return ToolCallResult(call_id=call.id, name=call.name, content=str(err), is_error=True, summary=str(err))
        return ToolCallResult(call_id=call.id, name=call.name, content=content[:8000], summary=summary[:300])

    async def _llm_turn(self, llm: LLMClient, request: TurnRequest, notes: list[str]) -> Turn:
        asking = AgentRequest(
            agent=AgentName.RESEARCH_EVIDENCE,
            view=request.view,
            guidance=request.guidance,
            focus_areas=request.focus_areas,
            may_ask=False,
            fix=request.fix,
        )
        intro = f"用户提供了 {len(notes)} 份资料（note-1 … note-{len(notes)}）。" if notes else "用户没有提供资料。"
        system = (
            f"{AGENT_PROMPTS[AgentName.RESEARCH_EVIDENCE]}\n\n{json_instructions(ResearchFindings.model_json_schema())}"
        )
        call = LLMRequest(
            messages=(Message.user(f"{intro}\n{agent_input(asking)}"), *request.conversation),
            system=system,
            tools=RESEARCH_TOOLS if notes and request.tools_allowed else (),
            temperature=RESEARCH_TEMPERATURE,
        )
        response = await model_turn(llm, call)
        if response.tool_calls:
            return Turn(tool_calls=list(response.tool_calls), text=response.text[:2000], offline=False)
        try:
            findings = parse_model(ResearchFindings, response.text)
        except ValidationError as err:
            said = Message.assistant(response.text or "（空）")
            repair = JsonQuestion(
                node=AgentName.RESEARCH_EVIDENCE.value,
                schema=ResearchFindings,
                messages=[*call.messages, said, Message.user(repair_prompt(err))],
                system=AGENT_PROMPTS[AgentName.RESEARCH_EVIDENCE],
                temperature=RESEARCH_TEMPERATURE,
            )
            findings = await json_answer(llm, repair, code=ErrorCode.AGENT_FAILED)
        return await self._finished(findings, offline=False)

    async def _finished(self, findings: ResearchFindings, *, offline: bool) -> Turn:
        pack = await store_findings(self._blobs, findings)
        summary = (
            findings.summary
            or f"提炼 {pack.count} 条证据（{pack.from_notes} 条来自用户资料），大纲 {len(findings.body_blocks)} 段"
        )
        outcome = AgentOutcome(
            patch=StatePatch(evidence_pack=pack, body_blocks=findings.body_blocks),
            summary=summary[:1000],
            offline=offline,
        )
        return Turn(outcome=outcome, text=summary[:2000], offline=offline)
