"""The offline SimpleAgent, by the request's intent: GENERAL_CHAT (a short reply on the project's state and what
the assistant can do), GENERATE_NAME (five names: people, places or book titles, as the request asks),
SUMMARIZE (the first sentences of the chapters the request names, else of all) and EXTRACT_ENTITY (the known
characters, quoted names and place names the request and chapters mention); in English when the request is
(`simple_en`)."""

import re

from activities.common.offline_labels import offline_label
from activities.writing.consistency import introduced_names
from activities.writing.offline.grounding import Grounding, place_names
from activities.writing.offline.names import book_titles, gender_of, invented_places, person_names
from activities.writing.offline.simple_en import chat_en, entities_en, names_en, summary_en
from activities.writing.story_facts import name_occurrences, split_sentences
from models.writing.agents import AgentResult
from models.writing.intents import WritingIntent

NAME_COUNT = 5
SUMMARY_SENTENCES = 2
SUMMARY_SENTENCE_CHARS = 80

_PLACE_REQUEST = re.compile(r"地名|城市|城镇|村名|山名|门派|宗门|place|town|city|village", re.IGNORECASE)
_TITLE_REQUEST = re.compile(r"书名|标题|章节名|章名|title", re.IGNORECASE)


def _project_state(grounding: Grounding) -> tuple[int, int]:
    chapters = len(grounding.chapters) or len({p.chapter_position for p in grounding.chapter_passages()})
    return chapters, len(grounding.characters)


def _chat(grounding: Grounding) -> str:
    chapters, characters = _project_state(grounding)
    if grounding.english:
        return chat_en(grounding, chapters, characters)
    cast = "、".join(c.name for c in grounding.characters[:3])
    known = f"（{cast}等）" if cast else ""
    return (
        f"{offline_label('回复')}\n你好！你的项目目前有{chapters}章、{characters}个角色{known}。"
        "我可以续写场景、设计角色和人物关系、搭建世界观、规划大纲和伏笔、检查前后一致性、头脑风暴几个方向、起名和总结章节。"
        "告诉我你接下来想写什么吧。"
    )


def _names(grounding: Grounding) -> str:
    text = grounding.request.text
    if grounding.english:
        kind = "title" if _TITLE_REQUEST.search(text) else "place" if _PLACE_REQUEST.search(text) else "person"
        return names_en(grounding, kind, NAME_COUNT)
    if _TITLE_REQUEST.search(text):
        anchors = grounding.places()[:2] + [c.name for c in grounding.cast(1)]
        names, kind = book_titles(text, NAME_COUNT, anchors), "书名"
    elif _PLACE_REQUEST.search(text):
        names, kind = invented_places(text, NAME_COUNT, taken=grounding.places()), "地名"
    else:
        taken = [c.name for c in grounding.characters]
        names = person_names(text, NAME_COUNT, english=grounding.english, gender=gender_of(text), taken=taken)
        kind = "人名"
    lines = [offline_label("起名"), f"按“{grounding.topic}”想了{NAME_COUNT}个{kind}："]
    lines += [f"{number}. {name}" for number, name in enumerate(names, start=1)]
    return "\n".join(lines)


def _opening(content: str, *, english: bool = False) -> str:
    """The first sentences of `content`, at most SUMMARY_SENTENCE_CHARS (twice as many in English, cut at a word)."""
    sentences = split_sentences(content)[:SUMMARY_SENTENCES]
    if not english:
        return "".join(sentences)[:SUMMARY_SENTENCE_CHARS]
    opening = " ".join(sentences)
    limit = 2 * SUMMARY_SENTENCE_CHARS
    return opening if len(opening) <= limit else opening[:limit].rsplit(" ", 1)[0] + "…"


def _summary(grounding: Grounding) -> str:
    wanted = set(grounding.requested_chapters())
    chapters = [c for c in grounding.chapters if c.position in wanted] or grounding.chapters
    if grounding.english:
        openings = [(c.position, c.title, _opening(c.content, english=True)) for c in chapters]
        excerpts = [] if chapters else grounding.chapter_passages()
        found = [(p.chapter_position, p.title, p.text[:SUMMARY_SENTENCE_CHARS]) for p in excerpts]
        return summary_en(openings, found)
    lines = [offline_label("摘要")]
    for chapter in chapters:
        lines.append(f"第{chapter.position}章《{chapter.title}》：{_opening(chapter.content) or '（暂无正文）'}")
    if not chapters:
        passages = grounding.chapter_passages()
        lines += [f"第{p.chapter_position}章《{p.title}》片段：{p.text[:SUMMARY_SENTENCE_CHARS]}" for p in passages]
    if len(lines) == 1:
        lines.append("项目里还没有可以总结的章节。")
    return "\n".join(lines)


def _entities(grounding: Grounding) -> str:
    wanted = set(grounding.requested_chapters())
    chapters = [c for c in grounding.chapters if c.position in wanted] or grounding.chapters
    material = "\n".join([grounding.request.text, *(c.content for c in chapters)])
    names = [c.name for c in grounding.characters]
    counts: dict[str, int] = {}
    for occurrence in name_occurrences(material, names):
        counts[occurrence.name] = counts.get(occurrence.name, 0) + 1
    known = {c.name for c in grounding.characters}
    introduced = [n for n in dict.fromkeys(name for name, _, _ in introduced_names(material)) if n not in known]
    introduced += [n for n in grounding.quoted_names() if n not in introduced]
    places = place_names(material)
    if grounding.english:
        return entities_en(counts, introduced, places)
    lines = [offline_label("实体提取")]
    lines.append("已知角色：" + ("、".join(f"{n}（{k}次）" for n, k in counts.items()) or "无"))
    lines.append("新出现的名字：" + ("、".join(introduced) or "无"))
    lines.append("地点：" + ("、".join(places) or "无"))
    return "\n".join(lines)


def answer(grounding: Grounding) -> AgentResult:
    """The offline SimpleAgent's reply for the request's intent; GENERAL_CHAT for any other intent."""
    intent = grounding.request.intent.intent
    if intent is WritingIntent.GENERATE_NAME:
        return grounding.answer(_names(grounding))
    if intent is WritingIntent.SUMMARIZE:
        return grounding.answer(_summary(grounding))
    if intent is WritingIntent.EXTRACT_ENTITY:
        return grounding.answer(_entities(grounding))
    return grounding.answer(_chat(grounding))
