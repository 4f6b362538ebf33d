"""The consistency findings' messages and suggestions (`activities.writing.preflight`, `activities.writing.consistency`)
and the agent's `issue_report` summary, in the request's language: each a Chinese and an English template
(`models.writing.run_messages.Message`); a request written in English gets the English ones."""

from models.writing.run_messages import Message


class PreflightMessages:
    """The preflight checks of a project's chapters and characters (Req 6.2)."""

    EMPTY = Message("第{position}章《{title}》还没有正文。", "Chapter {position} ({title}) has no text yet.")
    EMPTY_FIX = Message("补上正文，或删除这一章。", "Write its text, or delete the chapter.")
    SHORT = Message(
        "第{position}章《{title}》只有{length}个字，可能还没写完。",
        "Chapter {position} ({title}) has only {length} characters; it may not be finished.",
    )
    DUPLICATE_TITLE = Message(
        "第{position}章与第{earlier}章同名：《{title}》。", "Chapters {earlier} and {position} share a title: {title}."
    )
    DUPLICATE_TITLE_FIX = Message("给其中一章换个标题。", "Give one of them another title.")
    SAME_CHAPTER = Message("本章", "this chapter")
    OTHER_CHAPTER = Message("第{position}章", "chapter {position}")
    REPEATED = Message(
        "第{position}章有一段与{where}第{start}字起的段落完全相同。",
        "A paragraph of chapter {position} repeats the one at character {start} of {where} word for word.",
    )
    REPEATED_FIX = Message("删去重复的一段，或改写其中之一。", "Delete the repeated paragraph, or rewrite one of them.")
    NO_CHARACTERS = Message(
        "第{position}章《{title}》没有提到角色表里的任何角色。",
        "Chapter {position} ({title}) mentions none of the characters in the character list.",
    )
    NO_CHARACTERS_FIX = Message(
        "若本章有新角色，请把他们加入角色表。", "If the chapter has new characters, add them to the character list."
    )
    UNMENTIONED = Message("角色“{name}”还没有在任何章节中出现。", "{name} does not appear in any chapter yet.")
    UNMENTIONED_FIX = Message(
        "安排他出场，或从角色表中移除。", "Bring them on stage, or remove them from the character list."
    )


class ConsistencyMessages:
    """The deterministic consistency checks of a draft and of the chapters."""

    DRAFT = Message("草稿", "the draft")
    CHAPTER = Message("第{position}章", "chapter {position}")
    MORE = Message("（共{count}处）", " ({count} places)")
    DEAD_IN_DRAFT = Message(
        "{name}已故，草稿里却在说话或行动：“{span}”。", '{name} is dead, yet speaks or acts in the draft: "{span}".'
    )
    DEAD_IN_CHAPTER = Message(
        "{name}已在第{died}章身故，第{position}章却在说话或行动：“{span}”。",
        '{name} died in chapter {died}, yet speaks or acts in chapter {position}: "{span}".',
    )
    DEAD_FIX = Message(
        "{name}已故：改成回忆、他人转述，或换一个在世的角色。",
        "{name} is dead: make it a memory, someone else's account, or a living character.",
    )
    VARIANT = Message(
        "{where}的“{spelling}”与角色名“{name}”只差一个字，可能是笔误。",
        '"{spelling}" in {where} is one letter away from the character name "{name}": maybe a typo.',
    )
    UNKNOWN = Message(
        "草稿里出现了新名字“{name}”，不在角色表中。",
        'The draft introduces a new name, "{name}", not in the character list.',
    )
    UNKNOWN_FIX = Message(
        "若“{name}”是新角色，请把它加入角色表；否则检查是否写错了名字。",
        'If "{name}" is a new character, add them to the character list; otherwise check the spelling.',
    )
    TRAIT = Message(
        "第{position}章写{name}的{feature}是{colour}色，角色设定是{expected}色。",
        "Chapter {position} gives {name} {colour} {feature}; the character's description says {expected}.",
    )
    TRAIT_FIX = Message("{expected}色{feature}", "{expected} {feature}")


FEATURES_EN = {"眼睛": "eyes", "头发": "hair"}
"""The features a description fixes (`consistency._TRAITS`), in English."""
COLOURS_EN = {
    "蓝": "blue", "绿": "green", "棕": "brown", "灰": "grey", "黑": "black", "琥珀": "amber", "紫": "violet",
    "金": "golden", "红": "red", "白": "white",
}  # fmt: skip
"""The colours the checks name (`consistency._COLOURS`' values), in English."""

ISSUE_SUMMARY = Message(
    "发现 {issues} 处问题：{errors} 个错误，{warnings} 个警告",
    "{issues} issues found: {errors} errors, {warnings} warnings",
)
"""The agent's `issue_report` summary."""
