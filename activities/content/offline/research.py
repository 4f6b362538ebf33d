"""The offline research loop's policy, one turn at a time: from the loop's conversation so far (assistant tool calls
and the tool results `run_research_tool` returned) it decides the next turn: search the notes for the topic and the
focus areas, then extract the facts of the best notes, then answer with `ResearchFindings` (the evidence, statistics
first, and the body's outline). The outline is built from the user's facts: one section per fact, headed by the
fact itself (its claim without the source before a colon), the other facts in the section they share most words
with, and a closing section that sums them up; only with fewer than two facts do the brief's key messages make
sections. Without notes it answers at once from the brief. Pure and deterministic."""

import json
import re
from typing import Any

from activities.content.offline.research_tools import (
    EXTRACT_FACTS,
    SEARCH_NOTES,
    clip,
    note_index,
    overlap_score,
    terms,
)
from llm.types import ToolCall, ToolResultPart
from models.content.artifacts import BodyBlock, EvidenceItem, ResearchFindings
from models.content.turns import Turn, TurnRequest
from models.writing.language import written_in_english

MAX_QUERIES = 3
MAX_EXTRACTS = 5
"""Notes whose facts one visit extracts: with the searches, the 8 tool calls a research visit may make."""
MAX_BLOCKS = 4
MAX_POINTS = 4
MAX_ITEMS = 40
HEADING_CHARS = 30
FACT_BLOCKS = 3
"""At most this many sections are headed by a fact; the fourth sums them up."""
SUMMARY_HEADING = {"zh": "划重点", "en": "Key takeaways"}
_SOURCE = re.compile(r"^[^：:]*[\u4e00-\u9fff][^：:]*[：:]\s*")
"""A Chinese claim's source before its colon ("营养师建议："); at most `SOURCE_CHARS` long."""
SOURCE_CHARS = 16
_NUMBER = re.compile(r"\d+(?:\.\d+)?\s?(?!年)(?:[%％‰]|[A-Za-z]{1,4}\b|[\u4e00-\u9fff]{1,2})")
"""A number with its unit (`67%`, `400 毫克`); a year (`2025 年`) is not one of them."""
_CLAUSES = re.compile(r"(?<=[，,；;])")


def _key_messages(request: TurnRequest) -> list[str]:
    brief = request.view.creative_brief
    if brief is not None and brief.key_messages:
        return list(brief.key_messages)
    return [area for area in request.focus_areas if area.strip()] or [_topic(request)]


def _topic(request: TurnRequest) -> str:
    brief = request.view.creative_brief
    return (brief.topic if brief is not None else request.view.topic).strip() or request.view.topic


def _queries(request: TurnRequest) -> list[str]:
    candidates = [_topic(request), *request.focus_areas]
    if request.view.creative_brief is not None:
        candidates += request.view.creative_brief.key_messages
    queries: list[str] = []
    for candidate in candidates:
        candidate = candidate.strip()
        if candidate and terms(candidate) and candidate.lower() not in (q.lower() for q in queries):
            queries.append(candidate)
    return queries[:MAX_QUERIES]


def _results(request: TurnRequest, name: str) -> list[dict[str, Any]]:
    """The decoded JSON of the loop's successful results of one tool (a result that is not JSON is skipped)."""
    decoded: list[dict[str, Any]] = []
    for message in request.conversation:
        if message.role != "tool":
            continue
        for part in message.parts:
            if isinstance(part, ToolResultPart) and part.name == name and not part.is_error:
                try:
                    value = json.loads(part.content)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    decoded.append(value)
    return decoded


def _best_notes(request: TurnRequest, count: int) -> list[str]:
    """The distinct note ids the searches found, best score first, ties in note order, `MAX_EXTRACTS` at most."""
    best: dict[int, float] = {}
    for result in _results(request, SEARCH_NOTES):
        for hit in result.get("hits", []):
            if not isinstance(hit, dict):
                continue
            index = note_index(str(hit.get("note_id", "")), count)
            score = hit.get("score")
            if index is None or not isinstance(score, int | float) or score <= 0:
                continue
            best[index] = max(best.get(index, 0.0), float(score))
    ranked = sorted(best, key=lambda index: (-best[index], index))
    return [f"note-{index + 1}" for index in ranked[:MAX_EXTRACTS]]


def _extracted(request: TurnRequest) -> list[EvidenceItem]:
    """Every fact the extractions returned, once each, statistics first (otherwise in the order found)."""
    items: list[EvidenceItem] = []
    seen: set[str] = set()
    for result in _results(request, EXTRACT_FACTS):
        for fact in result.get("facts", []):
            try:
                item = EvidenceItem.model_validate(fact)
            except ValueError:
                continue
            if item.claim not in seen:
                seen.add(item.claim)
                items.append(item)
    return sorted(items, key=lambda item: item.kind != "statistic")


def headline(claim: str, limit: int = HEADING_CHARS) -> str:
    """A fact as a section heading: the claim without the source before its colon ("2025 年职场调查：67% 的上班族…"
    → "67% 的上班族…") and its final punctuation; a long one keeps its clauses up to the limit, the first with a
    number included."""
    text = claim.strip()
    source = _SOURCE.match(text)
    if source is not None and len(source.group().strip()) <= SOURCE_CHARS + 1 and len(text) > source.end() + 4:
        text = text[source.end() :]
    text = text.rstrip("。.！!？?；;，, ")
    if len(text) <= limit:
        return text
    clauses = [c for c in _CLAUSES.split(text) if c.strip()]
    kept = ""
    for clause in clauses:
        if len(kept) + len(clause) > limit:
            break
        kept += clause
    return clip(kept.rstrip("，,；; ") or text, limit)


def _recap(claims: list[str], english: bool) -> str:
    """The summary section's one sentence: the facts' numbers with their units, else their first words."""
    numbers: list[str] = []
    for claim in claims:
        numbers += [n for n in _NUMBER.findall(claim) if n not in numbers]
    if numbers:
        listed = ", ".join(numbers) if english else "、".join(numbers)
        return f"The numbers to remember: {listed}." if english else f"记住这几个数字：{listed}。"
    heads = [clip(headline(claim), 12) for claim in claims]
    return f"In short: {'; '.join(heads)}." if english else f"一句话：{'；'.join(heads)}。"


def _outline(request: TurnRequest, messages: list[str], facts: list[EvidenceItem]) -> list[BodyBlock]:
    """Up to three sections headed by the facts (the other facts joining the section they share most words with,
    else the shortest), then a summary section of their numbers; with fewer than two facts, the key messages make
    the other sections (b1..b4)."""
    english = written_in_english(_topic(request))
    limit = HEADING_CHARS * (2 if english else 1)
    leading = facts[:FACT_BLOCKS]
    blocks: list[tuple[str, list[str]]] = [(headline(fact.claim, limit), [fact.claim]) for fact in leading]
    for fact in facts[FACT_BLOCKS:]:
        open_blocks = [i for i in range(len(blocks)) if len(blocks[i][1]) < MAX_POINTS]
        if open_blocks:
            best = max(
                open_blocks, key=lambda i: (overlap_score(" ".join(blocks[i][1]), fact.claim), -len(blocks[i][1]), -i)
            )
            blocks[best][1].append(fact.claim)
    if len(blocks) >= 2:
        blocks.append((SUMMARY_HEADING["en" if english else "zh"], [_recap([f.claim for f in leading], english)]))
    else:
        for message in messages:
            if len(blocks) >= MAX_BLOCKS:
                break
            blocks.append((clip(message, limit), [message]))
    return [BodyBlock(id=f"b{i + 1}", heading=heading, points=points) for i, (heading, points) in enumerate(blocks)]


def _findings(request: TurnRequest, notes: list[str]) -> ResearchFindings:
    messages = _key_messages(request)
    facts = _extracted(request) if notes else []
    tips = [EvidenceItem(claim=clip(m, 400), source="brief", kind="tip") for m in messages[:MAX_ITEMS]]
    items = facts[: MAX_ITEMS - len(tips)] + tips
    blocks = _outline(request, messages, facts)
    statistics = sum(1 for item in facts if item.kind == "statistic")
    sources = len({item.source for item in facts})
    if not notes:
        summary = f"未提供证据笔记：以 Brief 的 {len(tips)} 条核心信息作为要点，整理出 {len(blocks)} 个正文段落。"
    elif not facts:
        summary = (
            f"在 {len(notes)} 条证据笔记中没有找到可用的事实：以 Brief 的 {len(tips)} 条核心信息作为要点，"
            f"整理出 {len(blocks)} 个正文段落。"
        )
    else:
        summary = (
            f"调研完成：从 {len(notes)} 条笔记中的 {sources} 条提取 {len(facts)} 条证据（数据 {statistics} 条），"
            f"加上 Brief 的 {len(tips)} 条核心信息，整理出 {len(blocks)} 个正文段落。"
        )
    unused = _unused_notes(request, notes)
    if unused:
        listed = "、".join(f"「{clip(note, 20)}」" for note in unused[:3])
        summary += (
            f"{len(unused)} 条笔记没有用上（离线检索只用与话题有共同词的笔记，一次最多 {MAX_EXTRACTS} 条）：{listed}"
            f"{'等' if len(unused) > 3 else ''}。"
        )
    return ResearchFindings(items=items, body_blocks=blocks, summary=summary)


def _unused_notes(request: TurnRequest, notes: list[str]) -> list[str]:
    """The notes no extraction read: they shared no word with the topic, or were past `MAX_EXTRACTS`."""
    read = {
        index
        for message in request.conversation
        if message.role == "assistant"
        for call in message.tool_calls
        if call.name == EXTRACT_FACTS
        and (index := note_index(str(call.arguments.get("note_id", "")), len(notes))) is not None
    }
    return [note for index, note in enumerate(notes) if index not in read]


def _calls_made(request: TurnRequest) -> set[str]:
    return {call.name for message in request.conversation if message.role == "assistant" for call in message.tool_calls}


def research_turn(request: TurnRequest, notes: list[str]) -> Turn | ResearchFindings:
    """The research loop's next offline turn (see the module): a `Turn` of tool calls, or the findings."""
    if not notes:
        return _findings(request, notes)
    made = _calls_made(request)
    if SEARCH_NOTES not in made and EXTRACT_FACTS not in made:
        queries = _queries(request)
        if queries:
            calls = [
                ToolCall(id=f"search-{i + 1}", name=SEARCH_NOTES, arguments={"query": query, "limit": 3})
                for i, query in enumerate(queries)
            ]
            text = f"先在 {len(notes)} 条证据笔记中检索：{'、'.join(clip(q, 30) for q in queries)}。"
            return Turn(tool_calls=calls, text=text, offline=True)
    if EXTRACT_FACTS not in made:
        best = _best_notes(request, len(notes))
        if best:
            calls = [
                ToolCall(id=f"extract-{i + 1}", name=EXTRACT_FACTS, arguments={"note_id": note_id})
                for i, note_id in enumerate(best)
            ]
            text = f"从最相关的 {len(best)} 条笔记（{'、'.join(best)}）中提取事实与数据。"
            return Turn(tool_calls=calls, text=text, offline=True)
    return _findings(request, notes)
