"""The chain workflows' nodes: ChainStep, UserSelection and ChainSummary, and a chain continued by a later
request (Req 13, 14).

A chain runs its plan's agents one step at a time, each step reading the steps before it; where the plan asks,
the writer chooses among the last step's options (`workflows.common.human_input.HumanInput`) before the chain goes
on. A step that fails ends the chain with CHAIN_STEP_FAILED, but a step that found the project gone (deleted while
the chain waited) ends it with PROJECT_NOT_FOUND, as any run on a deleted project ends. A chain that ended (done,
failed or unanswered) says where it got to in `chain_summary`, whose `chainContext` a later request sends back to
continue it. The pause takes an offered option's id or the writer's own idea (the question says
`allowFreeText`), and a continued chain works on the request that started it (`ChainContext.request`). The
pause speaks the request's language: its question, option labels and free-text hint are English when the request
that started the chain is (`models.writing.language.written_in_english`, the offline agents' rule).
"""

from datetime import timedelta

from temporalio import workflow

from workflows.common.graph import START
from workflows.common.human_input import HumanInput
from workflows.common.run import RunFailed
from workflows.writing.agents import Agents
from workflows.writing.graph import CHAIN_STEP, CHAIN_SUMMARY, ERROR_HANDLER, GRAPH, USER_SELECTION, route_in_chain
from workflows.writing.request import WritingRequest

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode, ErrorInfo
    from models.human_input import InputOption
    from models.writing.agents import ChainContext, ChainStepOutput
    from models.writing.errors import WritingErrorCode
    from models.writing.events import ChainSummary, IntentRecognized
    from models.writing.intents import PHASE_OF_INTENT, IntentResult
    from models.writing.plans import AGENT_LABELS, CHAIN_INTENT, PLANS
    from models.writing.run_messages import ChainMessages


class Chains:
    """The chain_step, user_selection and chain_summary nodes."""

    def __init__(self, request: WritingRequest, agents: Agents, human: HumanInput) -> None:
        self._request = request
        self._agents = agents
        self._human = human

    def continue_chain(self, chain: ChainContext) -> None:
        """Req 14.6–14.7: a request with a `chainContext` goes on with that chain after its last step; at the
        chain's interaction point, the request's text is the writer's choice."""
        request = self._request
        plan = PLANS[chain.workflow]
        intent_name = CHAIN_INTENT[plan.kind]
        intent = IntentResult(intent=intent_name, confidence=1.0, phase=PHASE_OF_INTENT[intent_name], source="rules")
        request.select(intent)
        continued = chain.model_copy(deep=True)
        if plan.ask_after is not None and len(continued.steps) == plan.ask_after + 1 and continued.selection is None:
            continued.selection = request.input.text
        request.state.chain = continued
        recognized = IntentRecognized(intent=intent, workflow=plan.kind, continued_chain=True)
        request.events.emit("intent_recognized", START, recognized)

    async def chain_step(self) -> str:
        request = self._request
        plan = request.plan()
        chain = request.chain()
        index = len(chain.steps)
        agent = plan.agents[index]
        english = request.english()
        before = AGENT_LABELS[plan.agents[index - 1]] if index else ChainMessages.START.say(english)
        request.thought(
            CHAIN_STEP,
            ChainMessages.STEP.say(
                english, before=before, agent=AGENT_LABELS[agent], step=index + 1, steps=len(plan.agents)
            ),
            transition=(before, AGENT_LABELS[agent]),
        )
        try:
            result = await self._agents.call(agent, CHAIN_STEP, step=index + 1)
        except RunFailed as failed:
            gone = failed.error.code == WritingErrorCode.PROJECT_NOT_FOUND
            return request.run.fail_with(
                ErrorInfo(
                    code=failed.error.code if gone else WritingErrorCode.CHAIN_STEP_FAILED,
                    message=ChainMessages.STEP_FAILED.say(
                        english, step=index + 1, agent=AGENT_LABELS[agent], cause=failed.error.message
                    ),
                    node=CHAIN_STEP,
                )
            )
        chain.steps.append(ChainStepOutput(agent=agent, text=result.text[:20_000], options=result.options))
        self._agents.report(CHAIN_STEP, result)
        return route_in_chain(plan, chain)

    async def user_selection(self) -> str:
        request = self._request
        chain = request.chain()
        english = request.english()
        colon = ChainMessages.OPTION_COLON.say(english)
        offered = chain.steps[-1].options
        options = [InputOption(id=option.id, label=f"{option.title}{colon}{option.summary}") for option in offered]
        answer = await self._human.ask(
            USER_SELECTION,
            ChainMessages.PAUSE_QUESTION.say(english),
            options,
            timeout=timedelta(seconds=request.input.input_timeout_seconds),
            allow_free_text=True,
        )
        if answer is None:
            return request.run.fail_with(
                ErrorInfo(
                    code=ErrorCode.INPUT_EXPIRED,
                    message=ChainMessages.PAUSE_EXPIRED.say(english),
                    node=USER_SELECTION,
                )
            )
        chain.selection = answer.answer
        chosen = answer.option.label if answer.option else answer.answer
        request.thought(USER_SELECTION, ChainMessages.CHOSEN.say(english, chosen=chosen))
        return CHAIN_STEP

    async def chain_summary(self) -> str:
        self.summarise(completed=True)
        return GRAPH.end

    def summarise(self, *, completed: bool) -> None:
        """The chain's steps so far, and its context to continue it with, as `chain_summary`."""
        chain = self._request.chain()
        summary = ChainSummary(workflow=chain.workflow, steps=chain.steps, completed=completed, chain_context=chain)
        self._request.events.emit("chain_summary", CHAIN_SUMMARY if completed else ERROR_HANDLER, summary)
