"""The kinds of app the offline builder builds, how a message names one, and what it says when none is named.

Without a model (no `LLM_PROVIDER`) the app builder builds only these four kinds; a message that names none of them
is refused with OFFLINE_APP_UNSUPPORTED (at the gateway before a run starts, or by the product manager in a run
whose analysis ran offline), never answered with another kind of app. A kind is named by a keyword in the message
(the earliest match wins; English words as whole words, plurals allowed).
"""

import re
from typing import Literal

KindName = Literal["todo", "shopping", "notes", "counter"]

KIND_KEYWORDS: dict[KindName, tuple[str, ...]] = {
    "todo": ("待办", "任务清单", "任务列表", "todo", "to-do", "task", "checklist"),
    "shopping": ("购物", "采购", "买菜", "shopping", "grocery", "groceries"),
    "notes": ("笔记", "便签", "记事", "备忘", "note", "notes", "notebook", "memo"),
    "counter": ("计数", "点击次数", "counter", "tally", "click count"),
}
"""Each kind's keywords; the order breaks a tie between keywords at one position."""

OFFLINE_KINDS = "todo list (待办清单), shopping list (购物清单), notes (笔记), counter (计数器)"


def _position(text: str, word: str) -> int | None:
    """Where a keyword first occurs in the lowercase text (English words as whole words, plurals allowed)."""
    if word.isascii():
        match = re.search(rf"(?<![a-z]){re.escape(word)}(?:s|es)?(?![a-z])", text)
        return match.start() if match is not None else None
    position = text.find(word)
    return position if position >= 0 else None


def kind_named(text: str) -> KindName | None:
    """The kind whose keyword occurs first in the text; None when the text names none of them."""
    lowered = text.lower()
    found: list[tuple[int, int, KindName]] = []
    for order, (name, keywords) in enumerate(KIND_KEYWORDS.items()):
        positions = [p for p in (_position(lowered, word) for word in keywords) if p is not None]
        if positions:
            found.append((min(positions), order, name))
    return min(found)[2] if found else None


def offline_refusal(message: str) -> str:
    """OFFLINE_APP_UNSUPPORTED's message: what the offline builder builds and how to get any other app."""
    return (
        f"离线模式（未配置模型）只会生成这几种应用：{OFFLINE_KINDS}；“{message.strip()[:40]}”不属于其中任何一种，"
        "不会被当成别的应用生成。要生成它，请配置模型（设置 LLM_PROVIDER 及其密钥）后重试。"
        f" Offline (no model configured) the app builder only builds: {OFFLINE_KINDS}. "
        "Configure a model (LLM_PROVIDER) to build anything else."
    )
