"""Seed 002's two workflow tables as data: for each workflow, its preprocessing tasks, its agents (one, or a
chain), where the writer chooses, and its post-processing; and whether a request's chain can be continued
(`chain_problem`). Pure, so the workflow, the gateway and the tests read the same table.
"""

from dataclasses import dataclass
from enum import StrEnum

from models.writing.agents import AgentName, ChainContext
from models.writing.context import PreprocessingTask
from models.writing.intents import WorkflowKind, WritingIntent


class PostProcessing(StrEnum):
    """What runs after the agent: seed 002's 后处理 column."""

    CONSISTENCY = "consistency"
    """ConsistencyAgent checks the draft before `done` (Req 3.4)."""
    RELATIONSHIPS = "relationships"
    """The relationship graph is updated by a run of its own that outlives the request (Req 4.3)."""
    KNOWLEDGE = "knowledge"
    """The setting is saved to the project's knowledge (a world note, indexed for retrieval)."""


@dataclass(frozen=True)
class WorkflowPlan:
    """One row of seed 002's tables."""

    kind: WorkflowKind
    tasks: tuple[PreprocessingTask, ...]
    agents: tuple[AgentName, ...]
    post: PostProcessing | None = None
    ask_after: int | None = None
    """The chain step (0-based) after which the writer chooses among its options."""

    @property
    def is_chain(self) -> bool:
        return len(self.agents) > 1


_T = PreprocessingTask
_A = AgentName
_W = WorkflowKind
_WRITER_CONTEXT = (_T.RAG, _T.CHARACTER_STATES, _T.STYLE_SAMPLES)

PLANS: dict[WorkflowKind, WorkflowPlan] = {
    plan.kind: plan
    for plan in (
        WorkflowPlan(_W.CONTENT_GENERATION, _WRITER_CONTEXT, (_A.WRITER,), PostProcessing.CONSISTENCY),
        WorkflowPlan(
            _W.CHARACTER_DESIGN,
            (_T.RAG, _T.CHARACTER_STATES, _T.ARCHETYPES),
            (_A.CHARACTER,),
            PostProcessing.RELATIONSHIPS,
        ),
        WorkflowPlan(_W.WORLD_BUILDING, (_T.RAG,), (_A.WORLD_BUILDER,), PostProcessing.KNOWLEDGE),
        WorkflowPlan(_W.OUTLINE_PLANNING, (_T.RAG, _T.PLOT_LOOPS), (_A.PLANNER,)),
        WorkflowPlan(_W.CONSISTENCY_CHECK, (_T.RAG, _T.PREFLIGHT), (_A.CONSISTENCY,)),
        WorkflowPlan(_W.SIMPLE_AGENT, (), (_A.SIMPLE,)),
        # the chains end with the Writer, whose draft is checked like ContentGeneration's
        WorkflowPlan(
            _W.BRAINSTORM_EXPAND,
            (*_WRITER_CONTEXT, _T.PLOT_LOOPS),
            (_A.BRAINSTORM, _A.WRITER),
            PostProcessing.CONSISTENCY,
            ask_after=0,
        ),
        WorkflowPlan(
            _W.OUTLINE_TO_CHAPTER,
            (*_WRITER_CONTEXT, _T.PLOT_LOOPS),
            (_A.PLANNER, _A.WRITER),
            PostProcessing.CONSISTENCY,
        ),
        WorkflowPlan(
            _W.CHARACTER_TO_SCENE,
            (*_WRITER_CONTEXT, _T.ARCHETYPES),
            (_A.CHARACTER, _A.WRITER),
            PostProcessing.CONSISTENCY,
        ),
    )
}

CHAIN_INTENT: dict[WorkflowKind, WritingIntent] = {
    _W.BRAINSTORM_EXPAND: WritingIntent.BRAINSTORM_AND_EXPAND,
    _W.OUTLINE_TO_CHAPTER: WritingIntent.OUTLINE_TO_CHAPTER,
    _W.CHARACTER_TO_SCENE: WritingIntent.CHARACTER_TO_SCENE,
}
"""The intent a chain serves: a continued chain (Req 14.6) is not routed again."""

AGENT_LABELS: dict[AgentName, str] = {
    _A.WRITER: "WriterAgent",
    _A.CHARACTER: "CharacterAgent",
    _A.WORLD_BUILDER: "WorldBuilderAgent",
    _A.PLANNER: "PlannerAgent",
    _A.CONSISTENCY: "ConsistencyAgent",
    _A.BRAINSTORM: "BrainstormAgent",
    _A.SIMPLE: "SimpleAgent",
}
"""The seed's names for the agents, as events and thoughts show them."""


def chain_problem(chain: ChainContext) -> str | None:
    """Why a request's `chainContext` cannot be continued (the gateway answers 422 with it), or None."""
    plan = PLANS.get(chain.workflow)
    if plan is None or not plan.is_chain:
        return f"{chain.workflow} 不是链式工作流"
    if not chain.steps:
        return "chainContext 没有已完成的步骤：直接发送请求即可开始新的链"
    if len(chain.steps) >= len(plan.agents):
        return f"{chain.workflow} 的 {len(plan.agents)} 个步骤都已完成，没有可以继续的步骤"
    for step, agent in zip(chain.steps, plan.agents, strict=False):
        if step.agent is not agent:
            return f"{chain.workflow} 的步骤顺序是 {', '.join(plan.agents)}，不是 {step.agent}"
    return None
