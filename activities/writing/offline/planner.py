"""The offline PlannerAgent: three to five outline sections that start after the furthest chapter the context
shows (or at chapter 1), about the project's living characters (the most mentioned lead; the dead are only
remembered, in the first section's old clues) and places, "主人公" only when it has none, with every open plot loop
assigned to one of them; MANAGE_PLOTLOOP adds the loops' states and ANALYZE_PACING a note on the chapters' lengths.
Its first section sets up one new plot loop (a secret its lead keeps; unless the project has it already), which the
run proposes to the project; the text's last line says what that filing found (`filed`).

The text renders each section as `第N章《title》：summary`, the line the offline writer reads back when it
writes a section of a chain's outline. In English when the request is (`planner_en`: `Chapter N "title": summary`).
"""

from statistics import mean

from activities.common.offline_labels import offline_label
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.grounding_en import drawn_from
from activities.writing.offline.planner_en import (
    BEATS_EN,
    DEFAULT_LEAD,
    DEFAULT_OTHER,
    DEFAULT_PLACE,
    PAST_EN,
    advancing_en,
    loop_note_en,
    loop_states_en,
    outline_en,
    pacing_en,
    pacing_unknown_en,
    past_en,
    secret_en,
    section_title_en,
)
from models.writing.agents import AgentResult, OutlineSection, ProposedPlotLoop
from models.writing.context import PlotLoopState
from models.writing.intents import WritingIntent
from models.writing.projects import MAX_NAME
from models.writing.proposals import PROPOSAL_ID_PREFIX

LABEL = offline_label("大纲")
MIN_SECTIONS = 3
MAX_SECTIONS = 5
LONG_CHAPTER_RATIO = 1.5
SHORT_CHAPTER_RATIO = 0.5

_BEATS = (
    ("暗流", "{lead}在{place}察觉异样，{past}重新浮现"),
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


def _past(grounding: Grounding) -> str:
    """What surfaces again in the first section: old clues, to the death of the project's first dead character."""
    dead = grounding.dead_names
    if grounding.english:
        return past_en(dead[0]) if dead else PAST_EN
    return f"与{dead[0]}之死有关的旧线索" if dead else "旧日的线索"


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
    past = _past(grounding)
    sections = []
    for index, (beat, summary) in enumerate(_beats(count, BEATS_EN if english else _BEATS)):
        assigned = [loop for number, loop in enumerate(loops) if number % count == index]
        lead = cast[index % len(cast)]
        other = cast[(index + 1) % len(cast)] if len(cast) > 1 else DEFAULT_OTHER if english else "对手"
        anchor = assigned[0].title if assigned else places[index % len(places)]
        text = summary.format(lead=lead, other=other, place=places[index % len(places)], past=past)
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
    if secret.title not in {loop.title for loop in grounding.context.plot_loops}:  # else planted already
        first = sections[0]
        first.plot_loops.append(secret.title)
        first.summary += f'; plants a new thread "{secret.title}"' if english else f"；埋下新伏笔「{secret.title}」"

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
    else:
        sources = grounding.source_titles()
        lines += [f"参考：{'、'.join(sources)}"] if sources else []
    lines.append(_loop_note(secret, english))
    return grounding.answer("\n".join(lines), sections=sections, plot_loops=[secret])


def _loop_note(loop: ProposedPlotLoop, english: bool) -> str:
    """The outline's last line, on the new plot loop it plants: new (the writer accepts or rejects it), or, once
    filed, already proposed or already in the project when the filing found one of that title."""
    if english:
        return loop_note_en(loop)
    if loop.existing_id is None:
        return f"新伏笔（待作者确认）：「{loop.title}」——{loop.description}"
    if loop.existing_id.startswith(PROPOSAL_ID_PREFIX):
        return f"伏笔「{loop.title}」已经提出过，正等作者确认，这次不再重复提出。"
    return f"伏笔「{loop.title}」项目里已有，这次不再重复提出。"


def filed(result: AgentResult, english: bool) -> AgentResult:
    """The offline outline once `propose_plot_loops` filed its new plot loop: its last line says what the filing
    found (the outline is written before it is filed, so it first says every loop is new)."""
    text = result.text
    for loop in result.plot_loops:
        planned = _loop_note(loop.model_copy(update={"proposal_id": None, "existing_id": None}), english)
        text = text.replace(planned, _loop_note(loop, english))
    return result.model_copy(update={"text": text})


def _secret(grounding: Grounding, lead: str, start: int) -> ProposedPlotLoop:
    """The new plot loop the outline's first section plants: a secret its lead keeps."""
    if grounding.english:
        title, description = secret_en(lead, start)
    else:
        title = f"{lead}隐瞒的事"
        description = f"第{start}章埋下：{lead}有一件事瞒着身边的人，留待后文揭开。"
    return ProposedPlotLoop(title=title[:MAX_NAME], description=description, planted_in_chapter=start)
