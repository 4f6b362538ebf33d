"""Post-processing's consistency check (seed 002 Req 3.4–3.5, the migrated `triggerConsistencyCheck`): a draft
held against the writer's project. The deterministic checks of `activities.writing.consistency` always run; with
an LLM, its review adds what rules cannot see (each issue placed by the excerpt it quotes). A review the model
answered with unreadable JSON (after the repair round) leaves the rules' findings, marked `degraded`."""

import asyncio

from pydantic import BaseModel, Field

from activities.common.llm_calls import JsonQuestion, json_answer_or_invalid
from activities.writing.consistency import check_draft
from activities.writing.project_access import ProjectReader
from activities.writing.story_facts import character_states
from llm import LLMClient, Message
from llm.errors import OutputValidationError
from models.writing.agents import AgentName
from models.writing.checks import CheckResult, ConsistencyCheckRequest
from models.writing.context import CharacterState, ConsistencyIssue, Severity, TextLocation
from models.writing.intents import WritingIntent
from models.writing.nodes import CONSISTENCY_CHECK
from models.writing.prompts import base_prompt
from models.writing.run_messages import CheckSummaryMessages as Say

MAX_REVIEW_ISSUES = 10


class ReviewedIssue(BaseModel):
    """One issue the LLM's review found in the draft, quoting it."""

    kind: str
    severity: Severity
    message: str
    excerpt: str


class DraftReview(BaseModel):
    """The JSON the review asks for."""

    issues: list[ReviewedIssue] = Field(default_factory=list, max_length=MAX_REVIEW_ISSUES)


class ConsistencyChecker:
    """The `writing.consistency_check` activity."""

    def __init__(self, reader: ProjectReader, llm: LLMClient | None = None) -> None:
        self._reader = reader
        self._llm = llm

    @CONSISTENCY_CHECK.defn
    async def check(self, request: ConsistencyCheckRequest) -> CheckResult:
        owner, project = request.owner, request.project_id
        chapters = await self._reader.chapters(owner, project)
        states = request.context.characters if request.context and request.context.characters else None
        if states is None:
            characters = await self._reader.characters(owner, project)
            states = await asyncio.to_thread(character_states, characters, chapters)
        issues = await asyncio.to_thread(check_draft, request.text, states, request.english)
        review: list[ConsistencyIssue] | OutputValidationError | None = None
        if self._llm is not None and request.use_llm:
            review = await self._review(self._llm, request.text, states)
        if isinstance(review, list):
            issues += review
        errors = sum(issue.severity == "error" for issue in issues)
        english = request.english
        message = Say.CHECKED.say(english, characters=len(states), chapters=len(chapters))
        message += Say.FOUND.say(english, issues=len(issues), errors=errors) if issues else Say.CLEAN.say(english)
        if isinstance(review, OutputValidationError):
            message += Say.REVIEW_UNREADABLE.say(english, error=review)
        return CheckResult(
            passed=errors == 0,
            issues=issues,
            characters_checked=len(states),
            chapters_checked=len(chapters),
            degraded=isinstance(review, OutputValidationError),
            offline=not isinstance(review, list),
            message=message,
        )

    async def _review(
        self, llm: LLMClient, draft: str, states: list[CharacterState]
    ) -> list[ConsistencyIssue] | OutputValidationError:
        roster = "\n".join(f"- {s.name}：{s.description}（{s.status or '状态未知'}）" for s in states)
        prompt = f"## 角色\n{roster}\n\n## 草稿\n{draft}\n\n找出草稿与角色设定矛盾之处；excerpt 逐字摘自草稿。"
        system = base_prompt(AgentName.CONSISTENCY, WritingIntent.CHECK_CONSISTENCY)
        question = JsonQuestion(
            node=CONSISTENCY_CHECK.node, schema=DraftReview, messages=[Message.user(prompt)], system=system
        )
        review = await json_answer_or_invalid(llm, question)
        if isinstance(review, OutputValidationError):
            return review  # the rules' findings stand, and the result says the review is missing
        return [_placed(issue, draft) for issue in review.issues]


def _placed(issue: ReviewedIssue, draft: str) -> ConsistencyIssue:
    start = draft.find(issue.excerpt) if issue.excerpt else -1
    location = None
    if start >= 0:
        location = TextLocation(source="draft", start=start, end=start + len(issue.excerpt), excerpt=issue.excerpt)
    return ConsistencyIssue(kind=issue.kind, severity=issue.severity, message=issue.message, location=location)
