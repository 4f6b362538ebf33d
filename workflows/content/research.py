"""Research's nodes: a tool loop (`research_evidence` asks the next turn, `research_evidence_tools` runs its
calls: note search and fact extraction, one activity each) until it answers with its evidence."""

from temporalio import workflow

from workflows import policies
from workflows.common.patches import patched
from workflows.content.context import ContentRun
from workflows.content.fallbacks import CANNOT_IMPROVE
from workflows.content.patches import apply_patch
from workflows.content.routing import RESEARCH_TOOLS, SUPERVISOR, should_continue_research
from workflows.content.tool_loops import ContentLoops

with workflow.unsafe.imports_passed_through():
    from models.content import nodes
    from models.content.agents import AGENT_LABELS, AgentName
    from models.errors import ErrorCode, ErrorInfo


class ResearchNodes:
    """The `research_evidence` and `research_evidence_tools` nodes."""

    def __init__(self, context: ContentRun, loops: ContentLoops) -> None:
        self._context = context
        self._loops = loops

    async def research(self) -> str:
        agent = AgentName.RESEARCH_EVIDENCE
        self._loops.enter("research", RESEARCH_TOOLS)
        turn = await self._loops.agent_turn(nodes.RESEARCH_TURN, "research", f"{AGENT_LABELS[agent]} turn")
        if should_continue_research(len(turn.tool_calls)) == RESEARCH_TOOLS:
            self._loops.record("research", turn.text, turn.tool_calls)
            return RESEARCH_TOOLS
        if turn.outcome is None:
            return self._context.run.fail_with(
                ErrorInfo(code=ErrorCode.AGENT_FAILED, message="调研没有给出证据也没有调用工具", node=agent)
            )
        unchanged_kept = patched(CANNOT_IMPROVE)
        fields = apply_patch(self._context.state, agent, turn.outcome.patch, unchanged_kept=unchanged_kept)
        self._context.agent_finished(agent, turn.outcome.summary, fields, turn.outcome.offline)
        return SUPERVISOR

    async def research_tools(self) -> str:
        await self._loops.run_tools(
            "research", self._loops.activity_tool(nodes.RESEARCH_TOOL, policies.SUPERVISOR_TOOL)
        )
        return AgentName.RESEARCH_EVIDENCE
