"""Phase 2, the Agent node, and the agent call every chain step makes too (Req 5, 6, 8).

A call selects the agent's skills for the task, builds its enhanced system prompt, emits `agent_started`, and runs
the agent: its LLM when one is configured, the offline agent when that call fails for good (an `error` event with
AGENT_DEGRADED says so), or the offline agent alone. The text streams (`workflows.writing.streaming`); the agent's
structured output (sections, issues, characters) becomes its events. A revision of a chapter that does not exist
ends the run with CHAPTER_NOT_FOUND at once (no offline answer is made up for it).
"""

from temporalio import workflow

from workflows import policies
from workflows.common.agent_stream import AgentStream, this_run
from workflows.common.run import NodeFailed, RunFailed
from workflows.writing.graph import AGENT, route_after_agent
from workflows.writing.request import WritingRequest

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode
    from models.writing import nodes
    from models.writing.agents import AgentMetadata, AgentName, AgentRequest, AgentResult
    from models.writing.errors import WritingErrorCode
    from models.writing.events import AgentStarted, CharacterDesigned, IssueReport, StructureUpdate
    from models.writing.finding_messages import ISSUE_SUMMARY
    from models.writing.plans import AGENT_LABELS
    from models.writing.prompts import base_prompt
    from models.writing.run_messages import AgentMessages, SkillMessages
    from models.writing.skills import enhanced_system_prompt, select_skills


class Agents:
    """The agent node, and `call` for any agent of the plan."""

    def __init__(self, request: WritingRequest, stream: AgentStream) -> None:
        self._request = request
        self._stream = stream

    async def agent(self) -> str:
        plan = self._request.plan()
        result = await self.call(plan.agents[0], AGENT, step=None)
        self.report(AGENT, result)
        return route_after_agent(plan)

    async def call(self, agent: AgentName, node: str, *, step: int | None) -> AgentResult:
        """Skills, `agent_started`, the agent (its LLM, else the offline agent). Raises `RunFailed` (AGENT_FAILED)
        when the agent could not answer."""
        request = self._request
        plan = request.plan()
        intent = request.intent()
        context = request.state.preprocessing_context
        choices = select_skills(request.task_text(), context, agent)
        skills = [choice.skill for choice in choices]
        names = [skill.name for skill in skills]
        english = request.english()
        if skills:
            reasons = SkillMessages.REASON_SEPARATOR.say(english).join(
                SkillMessages.REASON.say(english, name=choice.skill.name, reason=choice.reason) for choice in choices
            )
            request.thought(node, SkillMessages.INJECTED.say(english, reasons=reasons), skills=names)
        else:
            request.thought(node, SkillMessages.NONE.say(english), skills=[])
        system = enhanced_system_prompt(base_prompt(agent, intent.intent), skills)
        request.state.skills = names
        request.state.enhanced_system_prompt = system
        request.events.emit(
            "agent_started",
            node,
            AgentStarted(agent=agent, workflow=plan.kind, skills=names, context_tasks=list(plan.tasks), step=step),
        )
        agent_request = AgentRequest(
            agent=agent,
            owner=request.input.owner,
            project_id=request.input.project_id,
            text=request.request_text(),
            intent=intent,
            workflow=plan.kind,
            metadata=AgentMetadata(
                preprocessing_context=context,
                enhanced_system_prompt=system,
                skills=names,
                chain_context=request.state.chain,
            ),
            use_llm=request.input.llm_configured,
            stream=this_run(),
            session_id=request.input.session_id,
        )
        with self._stream.taking(agent):
            result = await self._run_agent(agent_request, node)
        if not result.streamed:
            self._stream.show_text(node, agent, result.text, offline=result.offline)
        request.state.result = result
        return result

    async def _run_agent(self, agent_request: AgentRequest, node: str) -> AgentResult:
        run = self._request.run
        spec = nodes.AGENTS[agent_request.agent]
        label = AGENT_LABELS[agent_request.agent]
        message = AgentMessages.DEGRADED.say(self._request.english(), agent=label)
        return await run.call_with_degrade(
            spec,
            agent_request,
            policies.WRITING_AGENT,
            summary=f"{label} (LLM, streaming)",
            use_llm=agent_request.use_llm,
            offline=agent_request.model_copy(update={"use_llm": False}),
            offline_options=policies.WRITING_AGENT_OFFLINE,
            offline_summary=f"{label} (offline)",
            degraded=lambda err: self._degraded(node, err, message),
            code=ErrorCode.AGENT_FAILED,
        )

    def _degraded(self, node: str, err: NodeFailed, message: str) -> None:
        """The LLM path failed: the offline agent answers instead, unless what failed is the request itself (a
        revision of a chapter that does not exist), which no offline agent can answer either."""
        if err.code == WritingErrorCode.CHAPTER_NOT_FOUND:
            raise RunFailed(err.error_info(node, ErrorCode.AGENT_FAILED))
        self._request.degraded(node, err, ErrorCode.AGENT_DEGRADED, message)

    def report(self, node: str, result: AgentResult) -> None:
        """The agent's structured output as the workflow's events (Req 5.3, 6.3)."""
        events = self._request.events
        if result.sections:
            context = self._request.state.preprocessing_context
            loops = context.plot_loops if context else []
            update = StructureUpdate(sections=result.sections, plot_loops=loops, proposed_plot_loops=result.plot_loops)
            events.emit("structure_update", node, update)
        if result.agent is AgentName.CONSISTENCY:
            errors = sum(issue.severity == "error" for issue in result.issues)
            warnings = sum(issue.severity == "warning" for issue in result.issues)
            counts = {"issues": len(result.issues), "errors": errors, "warnings": warnings}
            summary = ISSUE_SUMMARY.say(self._request.english(), **counts)
            report = IssueReport(issues=result.issues, errors=errors, warnings=warnings, summary=summary)
            events.emit("issue_report", node, report)
        if result.characters:
            events.emit("character_design", node, CharacterDesigned(characters=result.characters))
