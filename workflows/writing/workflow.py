"""WritingWorkflow: one request to the InkFlow writing assistant as a durable run (seed 002).

The router names the intent; the intent selects a workflow of seed 002's tables (`workflows.writing.plans`); the
run then goes through that workflow's phases: parallel preprocessing (one activity per task, started together),
the agent (or a chain of agents, pausing for the writer's choice where the chain asks for one), and
post-processing. This module declares the nodes; `workflows.common.run.GraphRun` walks them (deadline,
cancellation, recorded transitions, the terminal `done`), `workflows.common.human_input.HumanInput` asks the
writer, and every activity's options come from `workflows.policies`.

An agent with an LLM streams its text into the run as `content_delta` signals (batches); the run turns each batch
into a `content` event. The agent's whole text is in the state once it returns.
"""

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.workflow import ParentClosePolicy

from workflows import policies
from workflows.common.event_log import EventLog
from workflows.common.graph import START
from workflows.common.human_input import HumanInput
from workflows.common.run import GraphRun, NodeFailed
from workflows.writing.graph import (
    AGENT,
    CHAIN_STEP,
    CHAIN_SUMMARY,
    ERROR_HANDLER,
    GRAPH,
    POSTPROCESSING,
    PREPROCESSING,
    ROUTER,
    USER_SELECTION,
    route_after_agent,
    route_after_postprocessing,
    route_after_preprocessing,
    route_after_router,
    route_in_chain,
)
from workflows.writing.relationships import RelationshipGraphWorkflow

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode, ErrorInfo
    from models.events import RunStatus
    from models.human_input import InputOption
    from models.search_attributes import INTENT_ACTION, OWNER, SESSION_ID
    from models.writing import nodes
    from models.writing.agents import (
        CONTENT_SIGNAL,
        AgentMetadata,
        AgentName,
        AgentRequest,
        AgentResult,
        ChainContext,
        ChainStepOutput,
        ContentDelta,
        StreamTarget,
    )
    from models.writing.checks import CheckResult, ConsistencyCheckRequest
    from models.writing.context import PreprocessingContext, PreprocessingTask, PreprocessPart, PreprocessRequest
    from models.writing.events import (
        WRITING_EVENTS,
        AgentStarted,
        ChainSummary,
        CharacterDesigned,
        ContentChunk,
        IntentRecognized,
        IssueReport,
        KnowledgeUpdate,
        PreprocessingStarted,
        ProcessingCheck,
        RelationshipUpdate,
        StructureUpdate,
        TaskTiming,
        WritingThought,
    )
    from models.writing.intents import PHASE_OF_INTENT, WORKFLOW_FOR_INTENT, IntentResult
    from models.writing.nodes import KnowledgeUpdateRequest, RelationshipUpdateRequest, RouteRequest
    from models.writing.plans import AGENT_LABELS, CHAIN_INTENT, PLANS, PostProcessing, WorkflowPlan, chain_problem
    from models.writing.prompts import base_prompt
    from models.writing.runs import (
        RelationshipRunInput,
        WritingMetadata,
        WritingResult,
        WritingRunInput,
        WritingState,
    )
    from models.writing.skills import enhanced_system_prompt, select_skills

CONTENT_EVENT_CHARS = 2000
"""A text that did not stream reaches the event stream in pieces of at most this many characters."""


class _Stream:
    """The agent call whose `content_delta` batches the run is taking now."""

    def __init__(self, agent: AgentName) -> None:
        self.agent = agent
        self.attempt = 0
        self.next_index = 0
        self.chars = 0


@workflow.defn
class WritingWorkflow:
    """One writing request: its state is queryable as `state`, its events stream until `done`."""

    @workflow.init
    def __init__(self, input: WritingRunInput) -> None:
        self._input = input
        self._state = WritingState(
            project_id=input.project_id,
            text=input.text,
            metadata=WritingMetadata(current_node=START, start_time=workflow.now()),
        )
        self._events = EventLog(WRITING_EVENTS)
        self._run = GraphRun(GRAPH, self._events, self._state, error_node=ERROR_HANDLER)
        self._human = HumanInput(self._events)
        self._plan: WorkflowPlan | None = None
        self._stream: _Stream | None = None
        self._streamed_before = False
        """Whether an earlier agent call of this run streamed text: the next one's first piece restarts."""

    @workflow.query(name="state")
    def state(self) -> WritingState:
        return self._state

    @workflow.signal(name=CONTENT_SIGNAL)
    def content_delta(self, delta: ContentDelta) -> None:
        """A batch of the agent's text: shown as `content`, once, in order; a new attempt voids the last one's."""
        stream = self._stream
        if stream is None or delta.agent != stream.agent or delta.attempt < stream.attempt:
            return
        restart = False
        if delta.attempt > stream.attempt:
            restart = stream.chars > 0 or self._streamed_before
            stream.attempt, stream.next_index, stream.chars = delta.attempt, 0, 0
        if delta.index != stream.next_index:
            return
        stream.next_index += 1
        stream.chars += len(delta.text)
        chunk = ContentChunk(agent=delta.agent, text=delta.text, attempt=delta.attempt, restart=restart)
        self._events.emit("content", self._run.node, chunk)
        self._events.publish()

    @workflow.run
    async def run(self, input: WritingRunInput) -> WritingResult:
        first = ROUTER
        if input.chain_context is not None and chain_problem(input.chain_context) is None:
            first = PREPROCESSING  # the gateway refused any other chainContext
            self._continue_chain(input.chain_context)
        status = await self._run.execute(
            {
                ROUTER: self._router,
                PREPROCESSING: self._preprocessing,
                AGENT: self._agent,
                CHAIN_STEP: self._chain_step,
                USER_SELECTION: self._user_selection,
                POSTPROCESSING: self._postprocessing,
                CHAIN_SUMMARY: self._chain_summary,
                ERROR_HANDLER: self._error_handler,
            },
            first=first,
            deadline=timedelta(seconds=input.deadline_seconds + input.input_timeout_seconds),
        )
        return self._result(status)

    # ---- nodes: each returns the next node ----

    async def _router(self) -> str:
        request = RouteRequest(text=self._input.text, use_llm=self._input.llm_configured)
        try:
            intent = await self._route(request)
        except NodeFailed as err:
            if not request.use_llm:
                return self._run.fail(err, ErrorCode.ROUTER_FAILED)
            self._thought(ROUTER, "LLM 路由失败，改用关键词规则", level="warning")
            try:
                intent = await self._route(request.model_copy(update={"use_llm": False}))
            except NodeFailed as err:
                return self._run.fail(err, ErrorCode.ROUTER_FAILED)
        plan = self._select(intent)
        self._events.emit("intent_recognized", ROUTER, IntentRecognized(intent=intent, workflow=plan.kind))
        return route_after_router(plan)

    async def _route(self, request: RouteRequest) -> IntentResult:
        if request.use_llm:
            return await self._run.call(nodes.ROUTER, request, policies.WRITING_ROUTER, summary="route intent (LLM)")
        options = policies.WRITING_ROUTER_RULES
        return await self._run.call(nodes.ROUTER, request, options, summary="route intent (rules)")

    async def _preprocessing(self) -> str:
        plan = self._require_plan()
        names = "、".join(task.value for task in plan.tasks)
        started = PreprocessingStarted(
            workflow=plan.kind,
            tasks=list(plan.tasks),
            message=f"并行预处理：{names}（{len(plan.tasks)} 个任务同时开始）",
        )
        self._events.emit("workflow_preprocessing", PREPROCESSING, started)
        request = PreprocessRequest(
            owner=self._input.owner,
            project_id=self._input.project_id,
            text=self._task_text(),
            entity_names=[entity.text for entity in self._require_intent().entities],
        )
        parts = await asyncio.gather(*(self._preprocess(task, request) for task in plan.tasks))
        context = PreprocessingContext()
        for task, part in zip(plan.tasks, parts, strict=True):
            if part is None:
                context.warnings.append(f"{task.value} 预处理失败，继续使用其余上下文")
                continue
            for field in PreprocessingContext.model_fields:
                if field != "warnings" and (found := getattr(part.context, field)):
                    setattr(context, field, found)
        self._state.preprocessing_context = context
        return route_after_preprocessing(plan)

    async def _preprocess(self, task: PreprocessingTask, request: PreprocessRequest) -> PreprocessPart | None:
        """One task; a failure leaves a warning and the other tasks' context (Req 2.5)."""
        try:
            part = await self._run.call(
                nodes.PREPROCESSING[task], request, policies.WRITING_PREPROCESS, summary=f"preprocess: {task.value}"
            )
        except NodeFailed as err:
            warning = f"{task.value} 失败：{err.cause}"[:300]
            self._timing(TaskTiming(task=task, status="failed", warning=warning))
            self._thought(PREPROCESSING, f"预处理任务 {task.value} 失败，继续使用其余上下文", level="warning")
            return None
        self._timing(
            TaskTiming(
                task=task,
                status="ok",
                elapsed_ms=part.elapsed_ms,
                started_at=part.started_at,
                finished_at=part.finished_at,
                items=part.items,
            )
        )
        return part

    async def _agent(self) -> str:
        plan = self._require_plan()
        result = await self._call_agent(plan.agents[0], AGENT, step=None)
        if result is None:
            return ERROR_HANDLER
        self._report(AGENT, result)
        return route_after_agent(plan)

    async def _chain_step(self) -> str:
        plan = self._require_plan()
        chain = self._require_chain()
        index = len(chain.steps)
        agent = plan.agents[index]
        before = AGENT_LABELS[plan.agents[index - 1]] if index else "开始"
        self._thought(
            CHAIN_STEP,
            f"链式执行：{before} → {AGENT_LABELS[agent]}（第 {index + 1}/{len(plan.agents)} 步）",
            transition=(before, AGENT_LABELS[agent]),
        )
        result = await self._call_agent(agent, CHAIN_STEP, step=index + 1)
        if result is None:
            error = self._state.error
            reason = error.message if error else "未知错误"
            return self._run.fail_with(
                ErrorInfo(
                    code=ErrorCode.CHAIN_STEP_FAILED,
                    message=f"链式步骤 {index + 1}（{AGENT_LABELS[agent]}）失败，链已中止：{reason}",
                    node=CHAIN_STEP,
                )
            )
        chain.steps.append(ChainStepOutput(agent=agent, text=result.text[:20_000], options=result.options))
        self._report(CHAIN_STEP, result)
        return route_in_chain(plan, chain)

    async def _user_selection(self) -> str:
        chain = self._require_chain()
        offered = chain.steps[-1].options
        options = [InputOption(id=option.id, label=f"{option.title}：{option.summary}") for option in offered]
        answer = await self._human.ask(
            USER_SELECTION,
            "请选择一个方案，我会据此继续写下去（回答选项的 id）",
            options,
            timeout=timedelta(seconds=self._input.input_timeout_seconds),
        )
        if answer is None:
            return self._run.fail_with(
                ErrorInfo(
                    code=ErrorCode.INPUT_EXPIRED,
                    message="截止时间前没有收到选择，链已结束；带上 chain_summary 的 chainContext 重新发送即可继续",
                    node=USER_SELECTION,
                )
            )
        chain.selection = answer.answer
        chosen = answer.option.label if answer.option else answer.answer
        self._thought(USER_SELECTION, f"作者选择了：{chosen}")
        return CHAIN_STEP

    async def _postprocessing(self) -> str:
        plan = self._require_plan()
        post = plan.post
        if post is PostProcessing.CONSISTENCY:
            await self._check_consistency()
        elif post is PostProcessing.RELATIONSHIPS:
            await self._schedule_relationship_update()
        elif post is PostProcessing.KNOWLEDGE:
            await self._update_knowledge()
        return route_after_postprocessing(plan)

    async def _chain_summary(self) -> str:
        self._summarise_chain(completed=True)
        return GRAPH.end

    async def _error_handler(self) -> str:
        error = self._state.error or ErrorInfo(code=ErrorCode.UNKNOWN_ERROR, message="未知错误", node="unknown")
        self._events.emit("error", ERROR_HANDLER, error)
        if self._state.chain is not None and self._state.chain.steps:
            self._summarise_chain(completed=False)
        return GRAPH.end

    # ---- the agent phase ----

    async def _call_agent(self, agent: AgentName, node: str, *, step: int | None) -> AgentResult | None:
        """Skills, `agent_started`, the agent (its LLM, else the offline agent); None when both failed."""
        plan = self._require_plan()
        intent = self._require_intent()
        context = self._state.preprocessing_context
        text = self._task_text()
        choices = select_skills(text, context, agent)
        skills = [choice.skill for choice in choices]
        names = [skill.name for skill in skills]
        if skills:
            reasons = "；".join(f"{choice.skill.name}（{choice.reason}）" for choice in choices)
            self._thought(node, f"注入技能：{reasons}", skills=names)
        else:
            self._thought(node, "没有适用的技能，使用 Agent 基础能力", skills=[])
        system = enhanced_system_prompt(base_prompt(agent, intent.intent), skills)
        self._state.skills = names
        self._state.enhanced_system_prompt = system
        self._events.emit(
            "agent_started",
            node,
            AgentStarted(agent=agent, workflow=plan.kind, skills=names, context_tasks=list(plan.tasks), step=step),
        )
        info = workflow.info()
        request = AgentRequest(
            agent=agent,
            owner=self._input.owner,
            project_id=self._input.project_id,
            text=self._input.text,
            intent=intent,
            workflow=plan.kind,
            metadata=AgentMetadata(
                preprocessing_context=context,
                enhanced_system_prompt=system,
                skills=names,
                chain_context=self._state.chain,
            ),
            use_llm=self._input.llm_configured,
            stream=StreamTarget(workflow_id=info.workflow_id, run_id=info.run_id),
        )
        label = AGENT_LABELS[agent]
        self._stream = _Stream(agent)
        try:
            result = await self._agent_call(request, label)
        except NodeFailed as err:
            if not request.use_llm:
                self._run.fail(err, ErrorCode.AGENT_FAILED)
                return None
            self._degraded(node, err, ErrorCode.AGENT_DEGRADED, f"{label} 的大模型调用失败，改用离线 Agent")
            try:
                result = await self._agent_call(request.model_copy(update={"use_llm": False}), label)
            except NodeFailed as err:
                self._run.fail(err, ErrorCode.AGENT_FAILED)
                return None
        finally:
            streamed = self._stream is not None and self._stream.chars > 0
            self._streamed_before = self._streamed_before or streamed
            self._stream = None
        if not result.streamed:
            for start in range(0, len(result.text), CONTENT_EVENT_CHARS):
                piece = result.text[start : start + CONTENT_EVENT_CHARS]
                restart = start == 0 and self._streamed_before
                self._events.emit("content", node, ContentChunk(agent=agent, text=piece, restart=restart))
        self._state.result = result
        return result

    async def _agent_call(self, request: AgentRequest, label: str) -> AgentResult:
        spec = nodes.AGENTS[request.agent]
        if request.use_llm:
            return await self._run.call(spec, request, policies.WRITING_AGENT, summary=f"{label} (LLM, streaming)")
        return await self._run.call(spec, request, policies.WRITING_AGENT_OFFLINE, summary=f"{label} (offline)")

    def _report(self, node: str, result: AgentResult) -> None:
        """The agent's structured output as the workflow's events (Req 5.3, 6.3)."""
        if result.sections:
            loops = self._state.preprocessing_context.plot_loops if self._state.preprocessing_context else []
            self._events.emit("structure_update", node, StructureUpdate(sections=result.sections, plot_loops=loops))
        if result.agent is AgentName.CONSISTENCY:
            errors = sum(issue.severity == "error" for issue in result.issues)
            warnings = sum(issue.severity == "warning" for issue in result.issues)
            summary = f"发现 {len(result.issues)} 处问题：{errors} 个错误，{warnings} 个警告"
            report = IssueReport(issues=result.issues, errors=errors, warnings=warnings, summary=summary)
            self._events.emit("issue_report", node, report)
        if result.characters:
            self._events.emit("character_design", node, CharacterDesigned(characters=result.characters))

    # ---- post-processing ----

    async def _check_consistency(self) -> None:
        """Req 3.4–3.5: the draft is checked before `done`; a check that cannot run says so and the run ends."""
        result = self._state.result
        assert result is not None, "post-processing runs after an agent answered"
        self._events.emit(
            "processing_check",
            POSTPROCESSING,
            ProcessingCheck(checks=["consistency"], message="正在进行一致性检查（人物状态、人名、设定）..."),
        )
        request = ConsistencyCheckRequest(
            owner=self._input.owner,
            project_id=self._input.project_id,
            text=result.text,
            context=self._state.preprocessing_context,
            use_llm=self._input.llm_configured,
        )
        try:
            check = await self._run.call(
                nodes.CONSISTENCY_CHECK, request, policies.WRITING_CHECK, summary="check the draft's consistency"
            )
        except NodeFailed as err:
            self._degraded(POSTPROCESSING, err, ErrorCode.CHECK_FAILED, "一致性检查失败，草稿未经检查")
            check = CheckResult(passed=True, degraded=True, message="一致性检查未能完成，草稿未经检查")
        self._state.check_result = check
        self._events.emit("check_result", POSTPROCESSING, check)

    async def _schedule_relationship_update(self) -> None:
        """Req 4.3: the relationship graph is updated by a run of its own, which outlives this request."""
        result = self._state.result
        assert result is not None, "post-processing runs after an agent answered"
        self._events.emit(
            "processing_check",
            POSTPROCESSING,
            ProcessingCheck(checks=["relationships"], message="关系图更新已在后台开始（不阻塞本次回答）"),
        )
        child_id = f"{workflow.info().workflow_id}-relationships"
        attributes = [SearchAttributePair(OWNER, self._input.owner)]
        if self._input.session_id is not None:
            attributes.append(SearchAttributePair(SESSION_ID, self._input.session_id))
        request = RelationshipUpdateRequest(
            owner=self._input.owner,
            project_id=self._input.project_id,
            characters=result.characters,
            relationships=result.relationships,
            text=result.text,
        )
        await workflow.start_child_workflow(
            RelationshipGraphWorkflow.run,
            RelationshipRunInput(request=request, requested_by=workflow.info().workflow_id),
            id=child_id,
            parent_close_policy=ParentClosePolicy.ABANDON,
            search_attributes=TypedSearchAttributes(attributes),
            static_summary=f"relationship graph update for {self._input.project_id}",
        )
        self._state.relationship_run_id = child_id
        update = RelationshipUpdate(
            status="scheduled",
            run_id=child_id,
            added=result.relationships,
            message=f"关系图更新在 {child_id} 中进行，完成后在它的事件流里发出 relationship_update",
        )
        self._events.emit("relationship_update", POSTPROCESSING, update)

    async def _update_knowledge(self) -> None:
        result = self._state.result
        assert result is not None, "post-processing runs after an agent answered"
        self._events.emit(
            "processing_check",
            POSTPROCESSING,
            ProcessingCheck(checks=["knowledge"], message="正在把设定写入项目知识库..."),
        )
        request = KnowledgeUpdateRequest(
            owner=self._input.owner,
            project_id=self._input.project_id,
            title=f"设定：{self._input.text[:40]}",
            content=result.text,
        )
        try:
            saved = await self._run.call(
                nodes.UPDATE_KNOWLEDGE, request, policies.WRITING_POSTPROCESS, summary="save the setting"
            )
        except NodeFailed as err:
            self._degraded(POSTPROCESSING, err, ErrorCode.KNOWLEDGE_UPDATE_FAILED, "设定未能写入知识库")
            return
        self._events.emit(
            "knowledge_update",
            POSTPROCESSING,
            KnowledgeUpdate(note_id=saved.note_id, title=saved.title, chars=saved.chars),
        )

    # ---- helpers ----

    def _select(self, intent: IntentResult) -> WorkflowPlan:
        """Req 1.1: the workflow of the intent's row; a chain starts with no steps."""
        plan = PLANS[WORKFLOW_FOR_INTENT[intent.intent]]
        self._state.intent, self._state.workflow, self._plan = intent, plan.kind, plan
        if plan.is_chain:
            self._state.chain = ChainContext(workflow=plan.kind)
        self._run.tag(INTENT_ACTION.value_set(intent.intent.value))
        return plan

    def _continue_chain(self, chain: ChainContext) -> None:
        """Req 14.6–14.7: a request with a `chainContext` goes on with that chain after its last step; at the
        chain's interaction point, the request's text is the writer's choice."""
        plan = PLANS[chain.workflow]
        intent_name = CHAIN_INTENT[plan.kind]
        intent = IntentResult(intent=intent_name, confidence=1.0, phase=PHASE_OF_INTENT[intent_name], source="rules")
        self._select(intent)
        continued = chain.model_copy(deep=True)
        if plan.ask_after is not None and len(continued.steps) == plan.ask_after + 1 and continued.selection is None:
            continued.selection = self._input.text
        self._state.chain = continued
        recognized = IntentRecognized(intent=intent, workflow=plan.kind, continued_chain=True)
        self._events.emit("intent_recognized", START, recognized)

    def _summarise_chain(self, *, completed: bool) -> None:
        chain = self._require_chain()
        summary = ChainSummary(workflow=chain.workflow, steps=chain.steps, completed=completed, chain_context=chain)
        self._events.emit("chain_summary", CHAIN_SUMMARY if completed else ERROR_HANDLER, summary)

    def _task_text(self) -> str:
        """What the agents work on: the request, and in a continued chain the writer's choice with it."""
        chain = self._state.chain
        if chain is not None and chain.selection and chain.selection != self._input.text:
            return f"{self._input.text}\n{chain.selection}"
        return self._input.text

    def _timing(self, timing: TaskTiming) -> None:
        self._state.task_timings.append(timing)
        self._events.emit("preprocessing_task", PREPROCESSING, timing)

    def _degraded(self, node: str, err: NodeFailed, code: ErrorCode, message: str) -> None:
        """Req 1.5: a failed phase is reported as an `error` event, and the run goes on without it."""
        self._events.emit("error", node, ErrorInfo(code=code, message=f"{message}：{err.cause}"[:500], node=node))
        self._thought(node, message, level="warning")

    def _thought(
        self,
        node: str,
        message: str,
        *,
        level: str | None = None,
        skills: list[str] | None = None,
        transition: tuple[str, str] | None = None,
    ) -> None:
        thought = WritingThought.model_validate(
            {"node": node, "message": message, "level": level, "skills": skills, "transition": transition}
        )
        self._events.emit("thought_log", node, thought)

    def _result(self, status: RunStatus) -> WritingResult:
        result = self._state.result
        return WritingResult(
            status=status,
            workflow=self._state.workflow,
            text=result.text if result else (self._state.error.message if self._state.error else ""),
            chain_context=self._state.chain,
        )

    def _require_plan(self) -> WorkflowPlan:
        assert self._plan is not None, "the router (or a continued chain) selects the workflow first"
        return self._plan

    def _require_intent(self) -> IntentResult:
        assert self._state.intent is not None, "the router sets the intent first"
        return self._state.intent

    def _require_chain(self) -> ChainContext:
        assert self._state.chain is not None, "chain nodes run only in chain workflows"
        return self._state.chain
