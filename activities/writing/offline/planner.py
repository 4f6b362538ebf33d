"""The offline PlannerAgent: three to five outline sections that start after the furthest chapter the context
shows (or at chapter 1), with every open plot loop assigned to one of them; MANAGE_PLOTLOOP adds the loops'
states and ANALYZE_PACING a note on the chapters' lengths. Its first section sets up one new plot loop (a secret
its lead keeps), which the run proposes to the project.

The text renders each section as `第N章《title》：summary`, the line the offline writer reads back when it
writes a section of a chain's outline. In English when the request is (`planner_en`: `Chapter N "title": summary`).
"""

from statistics import mean

from activities.writing.offline.grounding import Grounding, offline_label
from activities.writing.offline.grounding_en import drawn_from
from activities.writing.offline.planner_en import (
    BEATS_EN,
    DEFAULT_LEAD,
    DEFAULT_OTHER,
    DEFAULT_PLACE,
    advancing_en,
    loop_states_en,
    outline_en,
    pacing_en,
    pacing_unknown_en,
    secret_en,
    section_title_en,
)
from models.writing.agents import AgentResult, OutlineSection, ProposedPlotLoop
from models.writing.context import PlotLoopState
from models.writing.intents import WritingIntent
from models.writing.projects import MAX_NAME

LABEL = offline_label("大纲")
MIN_SECTIONS = 3
MAX_SECTIONS = 5
LONG_CHAPTER_RATIO = 1.5
SHORT_CHAPTER_RATIO = 0.5

_BEATS = (
    ("暗流", "{lead}在{place}察觉异样，旧日的线索重新浮现"),
    ("交锋", "{lead}与{other}正面相对，双方的立场第一次摆上台面"),
    ("失守", "计划出了岔子，{lead}付出代价，局势急转直下"),
    ("破局", "{lead}找到破局之法，{other}的选择成为关键"),
    ("余波", "尘埃落定，{lead}带着新的疑问踏上下一段路"),
)
"""The beats of an outline of five; shorter outlines take the first, the middle and the last."""


def _beats(count: int, beats: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    if count == MAX_SECTIONS:
        return list(beats)
    if count == MIN_SECTIONS:
        return [beats[0], beats[2], beats[4]]
    return [beats[0], beats[1], beats[2], beats[4]]


def _pacing(grounding: Grounding) -> list[str]:
    english = grounding.english
    if grounding.chapters:
        lengths = {c.position: len(c.content.strip()) for c in grounding.chapters}
        average = mean(lengths.values())
        long = [p for p, length in lengths.items() if average and length > average * LONG_CHAPTER_RATIO]
        short = [p for p, length in lengths.items() if length < average * SHORT_CHAPTER_RATIO]
        if english:
            return pacing_en(lengths, average, long, short)
        lines = [f"节奏观察：共{len(lengths)}章，平均{average:.0f}字。"]
        lines += [f"- 第{p}章{lengths[p]}字，明显偏长，可能拖沓，考虑拆分或删减铺陈。" for p in long]
        lines += [f"- 第{p}章只有{lengths[p]}字，明显偏短，情节可能推进过快。" for p in short]
        if len(lines) == 1:
            lines.append("- 各章篇幅相近，节奏平稳；可在高潮章适当加长。")
        return lines
    seen = sorted({p.chapter_position for p in grounding.chapter_passages() if p.chapter_position is not None})
    if english:
        return pacing_unknown_en(seen)
    if seen:
        return [f"节奏观察：检索到的片段来自第{'、'.join(map(str, seen))}章，看不到各章全文，篇幅无法比较。"]
    return ["节奏观察：项目里还没有章节，暂无篇幅可比。"]


def _loop_states(loops: list[PlotLoopState]) -> list[str]:
    if not loops:
        return ["伏笔状态：项目里还没有记录伏笔。"]
    lines = ["伏笔状态："]
    for loop in loops:
        planted = f"第{loop.planted_in_chapter}章埋下" if loop.planted_in_chapter else "埋设章节未记"
        state = f"第{loop.resolved_in_chapter}章已回收" if loop.status == "resolved" else "尚未回收"
        lines.append(f"- 「{loop.title}」：{planted}，{state}。")
    return lines


def plan(grounding: Grounding) -> AgentResult:
    """The offline outline (see the module)."""
    english = grounding.english
    last = grounding.last_chapter_position()
    start = last + 1 if last is not None else 1
    loops = grounding.open_loops()
    count = min(max(len(loops), MIN_SECTIONS), MAX_SECTIONS)
    cast = [c.name for c in grounding.cast(3)] or [DEFAULT_LEAD if english else "主人公"]
    places = grounding.places() or [DEFAULT_PLACE if english else "故事的中心"]
    sections = []
    for index, (beat, summary) in enumerate(_beats(count, BEATS_EN if english else _BEATS)):
        assigned = [loop for number, loop in enumerate(loops) if number % count == index]
        lead = cast[index % len(cast)]
        other = cast[(index + 1) % len(cast)] if len(cast) > 1 else DEFAULT_OTHER if english else "对手"
        anchor = assigned[0].title if assigned else places[index % len(places)]
        text = summary.format(lead=lead, other=other, place=places[index % len(places)])
        if english:
            title, text = section_title_en(anchor, beat), text + advancing_en(assigned)
        else:
            title = f"{anchor}·{beat}"
            text += "；" + "；".join(f"推进伏笔「{loop.title}」" for loop in assigned) if assigned else ""
        sections.append(
            OutlineSection(
                position=start + index, title=title, summary=text, plot_loops=[loop.title for loop in assigned]
            )
        )

    secret = _secret(grounding, cast[0], start)
    sections[0].plot_loops.append(secret.title)
    sections[0].summary += f'; plants a new thread "{secret.title}"' if english else f"；埋下新伏笔「{secret.title}」"

    intent = grounding.request.intent.intent
    if english:
        lines = outline_en(grounding, last, sections, len(loops))
        if intent is WritingIntent.MANAGE_PLOTLOOP:
            lines += loop_states_en(grounding.context.plot_loops)
    else:
        after = f"接续第{last}章之后" if last is not None else "从第1章开始"
        lines = [
            LABEL,
            f"{after}，规划第{start}—{start + count - 1}章（围绕“{grounding.topic}”，排入{len(loops)}条未回收伏笔）：",
        ]
        lines += [f"第{s.position}章《{s.title}》：{s.summary}" for s in sections]
        if intent is WritingIntent.MANAGE_PLOTLOOP:
            lines += _loop_states(grounding.context.plot_loops)
    if intent is WritingIntent.ANALYZE_PACING:
        lines += _pacing(grounding)
    if english:
        lines += drawn_from(grounding)
        lines.append(f'New plot loop (the writer accepts or rejects it): "{secret.title}": {secret.description}')
    else:
        sources = grounding.source_titles()
        lines += [f"参考：{'、'.join(sources)}"] if sources else []
        lines.append(f"新伏笔（待作者确认）：「{secret.title}」——{secret.description}")
    return grounding.answer("\n".join(lines), sections=sections, plot_loops=[secret])


def _secret(grounding: Grounding, lead: str, start: int) -> ProposedPlotLoop:
    """The new plot loop the outline's first section plants: a secret its lead keeps."""
    if grounding.english:
        title, description = secret_en(lead, start)
    else:
        title = f"{lead}隐瞒的事"
        description = f"第{start}章埋下：{lead}有一件事瞒着身边的人，留待后文揭开。"
    return ProposedPlotLoop(title=title[:MAX_NAME], description=description, planted_in_chapter=start)
