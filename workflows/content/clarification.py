"""The clarification node: the question an agent asked goes to the user through the shared ask-and-wait
(`HumanInput`), and the answer goes back to that agent. Once the run has asked `maxClarificationRounds` times
the agent is told to assume; a question nobody answers before its deadline ends the run with what exists."""

from datetime import timedelta

from temporalio import workflow

from workflows.content.context import ContentRun
from workflows.content.graph import CLARIFICATION

with workflow.unsafe.imports_passed_through():
    from models.content.agents import ClarificationAnswer
    from models.human_input import InputOption

ASSUME = "（不再询问用户：请按最常见的情况自行假设，并把假设写明）"


class ClarificationNode:
    """The `clarification` node."""

    def __init__(self, context: ContentRun) -> None:
        self._context = context

    async def clarification(self) -> str:
        context = self._context
        state = context.state
        asking = context.asking
        assert asking is not None, "an agent asked before the run came here"
        context.asking = None
        agent, question = asking.agent, asking.clarification
        answers = context.answers.setdefault(agent, [])
        if not asking.allowed:
            answers.append(ClarificationAnswer(key=question.key, question=question.question, answer=ASSUME))
            rounds = context.input.max_clarification_rounds
            context.thought(CLARIFICATION, f"已问过 {rounds} 次（上限）：{agent.value} 自行假设", level="warning")
            return agent
        state.clarification_rounds += 1
        state.agent_clarification_keys.append(question.key)
        options = [InputOption(id=option_id, label=label) for option_id, label in question.options]
        answer = await context.human.ask(
            CLARIFICATION,
            question.question,
            options,
            timeout=timedelta(seconds=context.input.input_timeout_seconds),
            allow_free_text=True,
        )
        if answer is None:
            return context.end(
                "clarification_expired", f"澄清问题“{question.question}”在截止前无人回答：按现有结果结束"
            )
        chosen = answer.option.label if answer.option else answer.answer
        answers.append(ClarificationAnswer(key=question.key, question=question.question, answer=chosen))
        context.message("clarification", question.key, f"{question.question} → {chosen}")
        return agent
