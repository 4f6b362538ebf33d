"""The writing agents as activities (seed 002's WriterAgent, CharacterAgent, ...): one activity per agent, all
stateless (Req 15–16): everything a call needs is in its `AgentRequest`, nothing is kept between calls.

An agent reads `metadata.preprocessingContext` first and retrieves from the project itself only when the request
has none (Req 10.2, 11.2–11.4). With an LLM, the writer, the world builder and the simple agents stream their
text to the run (`activities.common.streaming`); the brainstorm, planner, character and consistency agents ask
for JSON, which becomes their structured output, and they stream its readable part as it is written
(`activities.common.answer_text`). Without one (or once the LLM path has failed and the workflow
asks again with `use_llm=False`), the deterministic offline agents of `activities.writing.offline_agents` answer.
In a conversation every agent gets its recent turns (`activities.writing.memory`); a revision (REVISE_CHAPTER)
reads the chapter it targets (`activities.writing.revision`) and answers with a proposed new version of it, which
nothing here writes into the project.
"""

import asyncio
from typing import TypeVar

from pydantic import BaseModel, Field

from activities.common.answer_text import ReadableAnswer, shown_answer
from activities.common.failures import permanent
from activities.common.llm_calls import JsonQuestion, json_answer, model_turn
from activities.common.streaming import ContentStreamer
from activities.writing.agent_prompt import user_prompt
from activities.writing.answer_text import layout
from activities.writing.consistency import check_chapters
from activities.writing.memory import ConversationMemory
from activities.writing.offline.planner import filed
from activities.writing.offline_agents import compose
from activities.writing.project_access import ProjectReader
from activities.writing.project_updates import propose_plot_loops
from activities.writing.revision import offline_revision, revision_section, revision_target, with_target
from activities.writing.story_facts import character_states
from activities.writing.story_so_far import REVIEW_LIST_CHARS, ChapterPiece, chapter_list, review_chunks
from llm import LLMClient, LLMRequest, Message
from models.errors import ErrorCode
from models.writing.agents import (
    MAX_OPTIONS,
    AgentName,
    AgentRequest,
    AgentResult,
    BrainstormOption,
    CharacterSketch,
    ContextSource,
    OutlineSection,
    PlotLoopSketch,
    ProposedPlotLoop,
    RelationshipEdge,
)
from models.writing.context import ConsistencyIssue, PreprocessingContext, Severity, TextLocation
from models.writing.errors import WritingErrorCode
from models.writing.intents import WritingIntent
from models.writing.language import has_cjk, written_in_english
from models.writing.nodes import AGENTS
from models.writing.projects import Chapter
from models.writing.prompts import base_prompt

AnswerT = TypeVar("AnswerT", bound=BaseModel)
LLM_TEMPERATURE = 0.8
EXCERPT_CHARS = 40


class BrainstormAnswer(BaseModel):
    """The JSON the brainstorm agent asks for."""

    options: list[BrainstormOption] = Field(min_length=2, max_length=MAX_OPTIONS)
    text: str


class PlanAnswer(BaseModel):
    """The JSON the planner asks for."""

    sections: list[OutlineSection] = Field(min_length=1, max_length=20)
    plot_loops: list[PlotLoopSketch] = Field(default_factory=list, max_length=5, description="这份大纲新埋下的伏笔")
    text: str


class CharacterAnswer(BaseModel):
    """The JSON the character agent asks for."""

    characters: list[CharacterSketch] = Field(min_length=1, max_length=5)
    relationships: list[RelationshipEdge] = Field(default_factory=list, max_length=20)
    text: str


class FoundIssue(BaseModel):
    """One issue as the consistency agent's LLM reports it: `excerpt` is copied from the text, to find its place."""

    kind: str
    severity: Severity
    message: str
    excerpt: str
    suggestion: str | None = None


class ConsistencyAnswer(BaseModel):
    """The JSON the consistency agent asks for."""

    issues: list[FoundIssue] = Field(default_factory=list, max_length=30)
    text: str


class WritingAgents:
    """Every writing agent, over the writer's project and the LLM (None: offline only)."""

    def __init__(
        self, reader: ProjectReader, llm: LLMClient | None = None, memory: ConversationMemory | None = None
    ) -> None:
        self._reader = reader
        self._llm = llm
        self._memory = memory

    @AGENTS[AgentName.WRITER].defn
    async def writer(self, request: AgentRequest) -> AgentResult:
        return await self._answer(AgentName.WRITER, request)

    @AGENTS[AgentName.CHARACTER].defn
    async def character(self, request: AgentRequest) -> AgentResult:
        return await self._answer(AgentName.CHARACTER, request)

    @AGENTS[AgentName.WORLD_BUILDER].defn
    async def world_builder(self, request: AgentRequest) -> AgentResult:
        return await self._answer(AgentName.WORLD_BUILDER, request)

    @AGENTS[AgentName.PLANNER].defn
    async def planner(self, request: AgentRequest) -> AgentResult:
        """The outline; the new plot loops it sets up are proposed to the project (`propose_plot_loops`), and the
        offline outline's text then says which of them the project or a pending proposal had already (`filed`)."""
        result = await propose_plot_loops(self._reader, request, await self._answer(AgentName.PLANNER, request))
        return filed(result, written_in_english(request.text)) if result.offline else result

    @AGENTS[AgentName.CONSISTENCY].defn
    async def consistency(self, request: AgentRequest) -> AgentResult:
        return await self._answer(AgentName.CONSISTENCY, request)

    @AGENTS[AgentName.BRAINSTORM].defn
    async def brainstorm(self, request: AgentRequest) -> AgentResult:
        return await self._answer(AgentName.BRAINSTORM, request)

    @AGENTS[AgentName.SIMPLE].defn
    async def simple(self, request: AgentRequest) -> AgentResult:
        return await self._answer(AgentName.SIMPLE, request)

    async def _answer(self, agent: AgentName, request: AgentRequest) -> AgentResult:
        if request.agent is not agent:
            raise permanent(ErrorCode.AGENT_FAILED, f"{agent} 收到了给 {request.agent} 的请求")
        context, source = await self._context(request)
        chapters = await self._reader.chapters(request.owner, request.project_id)
        if agent in (AgentName.CONSISTENCY, AgentName.PLANNER) and not context.characters:
            # the cast is the material under check (consistency) or who the outline's sections are about (planner),
            # yet their plans preprocess no character states (seed 002's table), so the agent reads them itself
            characters = await self._reader.characters(request.owner, request.project_id)
            states = await asyncio.to_thread(character_states, characters, chapters)
            context = context.model_copy(update={"characters": states})
        prepared = request.model_copy(
            update={"metadata": request.metadata.model_copy(update={"preprocessing_context": context})}
        )
        memory = self._memory
        turns = [] if memory is None else await memory.turns(request.owner, request.project_id, request.session_id)
        target = None
        if agent is AgentName.WRITER and request.intent.intent is WritingIntent.REVISE_CHAPTER:
            found = revision_target(request.text, request.intent, chapters, turns)
            if found.chapter is None:
                raise permanent(WritingErrorCode.CHAPTER_NOT_FOUND, found.problem)
            target = found.chapter
        if self._llm is None or not request.use_llm:
            if target is not None:
                text = offline_revision(target, english=not has_cjk(request.text))
                placeholder = AgentResult(agent=agent, text=text, offline=True, context_source=source)
                return with_target(placeholder, target)
            result = await asyncio.to_thread(compose, prepared, chapters)
            return result.model_copy(update={"context_source": source})
        extra = [memory.prompt_section(turns) if memory else None, revision_section(target) if target else None]
        prompt = Message.user(user_prompt(prepared, context, chapters, [s for s in extra if s]))
        result = await self._with_llm(self._llm, prepared, context, prompt, chapters, source)
        return result if target is None else with_target(result, target)

    async def _context(self, request: AgentRequest) -> tuple[PreprocessingContext, ContextSource]:
        """The preprocessing context when the workflow sent one; else the agent's own retrieval (Req 10.2)."""
        given = request.metadata.preprocessing_context
        if given is not None:
            return given, "preprocessing"
        owner, project = request.owner, request.project_id
        passages = await self._reader.passages(owner, project, request.text)
        characters, chapters = await asyncio.gather(
            self._reader.characters(owner, project), self._reader.chapters(owner, project)
        )
        states = await asyncio.to_thread(character_states, characters, chapters)
        return PreprocessingContext(passages=passages, characters=states), "own_retrieval"

    async def _with_llm(
        self,
        llm: LLMClient,
        request: AgentRequest,
        context: PreprocessingContext,
        prompt: Message,
        chapters: list[Chapter],
        source: ContextSource,
    ) -> AgentResult:
        system = request.metadata.enhanced_system_prompt or base_prompt(request.agent, request.intent.intent)
        messages = [prompt]
        base = AgentResult(agent=request.agent, text="", offline=False, context_source=source)
        shown = _readable(request)
        if request.agent is AgentName.BRAINSTORM:
            ideas = await _json_answer(llm, request, BrainstormAnswer, messages, system, shown)
            streamed = await shown.finish(ideas) if shown else False
            return base.model_copy(update={"text": ideas.text, "options": ideas.options, "streamed": streamed})
        if request.agent is AgentName.PLANNER:
            plan = await _json_answer(llm, request, PlanAnswer, messages, system, shown)
            streamed = await shown.finish(plan) if shown else False
            loops = [ProposedPlotLoop.model_validate(loop.model_dump()) for loop in plan.plot_loops]
            update = {"text": plan.text, "sections": plan.sections, "plot_loops": loops, "streamed": streamed}
            return base.model_copy(update=update)
        if request.agent is AgentName.CHARACTER:
            design = await _json_answer(llm, request, CharacterAnswer, messages, system, shown)
            streamed = await shown.finish(design) if shown else False
            update = {
                "text": design.text,
                "characters": design.characters,
                "relationships": design.relationships,
                "streamed": streamed,
            }
            return base.model_copy(update=update)
        if request.agent is AgentName.CONSISTENCY:
            english = written_in_english(request.text)
            ruled = await asyncio.to_thread(check_chapters, chapters, context.characters, english)
            texts: list[str] = []
            located: list[ConsistencyIssue] = []
            listing = chapter_list([c for c in chapters if c.content.strip()], REVIEW_LIST_CHARS)
            streamed = False
            for chunk in review_chunks(chapters):
                asked = [Message.user(_chapters_prompt(request, chunk, listing))]
                found = await _json_answer(llm, request, ConsistencyAnswer, asked, system, shown)
                if shown is not None:
                    streamed = await shown.finish(found)
                    shown = shown.next_question()
                texts.append(found.text)
                located += [_located(issue, chunk) for issue in found.issues]
            update = {"text": "\n\n".join(texts), "issues": ruled + located, "streamed": streamed}
            return base.model_copy(update=update)
        text, streamed = await self._write(llm, request, system, messages)
        return base.model_copy(update={"text": text, "streamed": streamed})

    async def _write(
        self, llm: LLMClient, request: AgentRequest, system: str, messages: list[Message]
    ) -> tuple[str, bool]:
        """The agent's text, streamed to the run while it is written when the request says where to."""
        call = LLMRequest(messages=tuple(messages), system=system, temperature=LLM_TEMPERATURE)
        if request.stream is None:
            return (await model_turn(llm, call)).text, False
        streamer = ContentStreamer(request.stream, request.agent)
        response = await model_turn(llm, call, on_text=streamer.add)
        await streamer.flush()
        return response.text, streamer.streamed


def _readable(request: AgentRequest) -> ReadableAnswer | None:
    """Where a JSON-answering agent streams the readable part of its answer, when the request says where to."""
    return shown_answer(request.stream, request.agent, layout(request.agent, written_in_english(request.text)))


async def _json_answer(
    llm: LLMClient,
    request: AgentRequest,
    schema: type[AnswerT],
    messages: list[Message],
    system: str,
    shown: ReadableAnswer | None = None,
) -> AnswerT:
    """The agent's JSON answer (its readable part streamed to `shown`); one still invalid after the repair round
    is AGENT_FAILED."""
    question = JsonQuestion(node=request.agent.value, schema=schema, messages=messages, system=system, shown=shown)
    return await json_answer(llm, question, code=ErrorCode.AGENT_FAILED)


def _chapters_prompt(request: AgentRequest, chunk: list[ChapterPiece], listing: str) -> str:
    """The consistency agent reads the chapters themselves (the material under check, not retrieved context), one
    chunk of them per call (`review_chunks`), with the whole book's chapter list and summaries (Req 5.2) so a
    chunk is read against the rest."""
    bodies = "\n\n".join(
        f"### 第{p.chapter.position}章 {p.chapter.title}"
        + (f"（自第 {p.start} 字起）" if p.start else "")
        + f"\n{p.text}"
        for p in chunk
    )
    book = f"## 全书章节概要\n{listing}\n\n" if listing else ""
    return f"## 作者的请求\n{request.text}\n\n{book}## 章节原文\n{bodies}\n\n每个问题的 excerpt 必须逐字摘自章节原文。"


def _located(issue: FoundIssue, chunk: list[ChapterPiece]) -> ConsistencyIssue:
    """An LLM-reported issue with its place: the first chapter piece containing its excerpt (None when none does)."""
    location = None
    excerpt = issue.excerpt.strip()
    for piece in chunk:
        chapter = piece.chapter
        found = piece.text.find(excerpt) if excerpt else -1
        start = piece.start + found
        if found >= 0:
            location = TextLocation(
                source="chapter",
                chapter_id=chapter.chapter_id,
                chapter_position=chapter.position,
                start=start,
                end=start + len(excerpt),
                excerpt=excerpt[: EXCERPT_CHARS * 2],
            )
            break
    return ConsistencyIssue(
        kind=issue.kind, severity=issue.severity, message=issue.message, location=location, suggestion=issue.suggestion
    )
