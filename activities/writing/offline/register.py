"""The setting register of a story, for the offline writer: modern (phones, a police station, a taxi), period
(swords, sects, inns, horses, spiritual power) or neutral (no cue either way), read from the project's own words
(`setting_register`); and the sentence pools sorted by register (`Pool`), so a modern detective story never gets a
sword and a story with no cue gets details that fit both.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Register = Literal["modern", "period", "neutral"]

_MODERN_ZH = (
    "手机", "电话", "短信", "警局", "警察", "警车", "刑警", "侦探", "法医", "地铁", "出租车", "汽车", "开车", "电脑",
    "网络", "公寓", "电梯", "大厦", "办公室", "监控", "记者", "咖啡", "酒吧", "高铁", "火车", "公交", "医院", "屏幕",
)  # fmt: skip
_PERIOD_ZH = (
    "剑", "刀鞘", "江湖", "宗门", "门派", "掌门", "客栈", "镖局", "衙门", "捕快", "朝廷", "王朝", "皇帝", "皇上",
    "骑马", "策马", "马蹄", "马车", "战马", "灵力", "修仙", "修炼", "仙门", "内力", "武功", "轻功", "侠", "道长",
)  # fmt: skip
_MODERN_EN = re.compile(
    r"\b(?:phones?|cellphone|police|detectives?|cops?|cars?|taxis?|cabs?|subway|train|computers?|laptops?"
    r"|apartments?|office|email|reporters?|elevator|cameras?|coffee|bars?|hospital)\b",
    re.IGNORECASE,
)
_PERIOD_EN = re.compile(
    r"\b(?:swords?|blades?|horses?|hoofbeats|kings?|queens?|castles?|knights?|lords?|magic|spells?|inns?|taverns?"
    r"|sects?|empire|emperor|wizards?|dragons?)\b",
    re.IGNORECASE,
)


def setting_register(texts: Iterable[str]) -> Register:
    """The register `texts` read in: the one with more cues (words like 手机/警局/phone or 剑/江湖/sword), neutral
    when neither has more (no cue at all, or as many of each)."""
    modern = period = 0
    for text in texts:
        modern += sum(text.count(cue) for cue in _MODERN_ZH) + len(_MODERN_EN.findall(text))
        period += sum(text.count(cue) for cue in _PERIOD_ZH) + len(_PERIOD_EN.findall(text))
    return "modern" if modern > period else "period" if period > modern else "neutral"


@dataclass(frozen=True)
class Pool:
    """Sentences for one slot of a draft: the neutral ones fit every story, the others only their register's."""

    neutral: tuple[str, ...]
    modern: tuple[str, ...] = ()
    period: tuple[str, ...] = ()

    def of(self, register: Register) -> tuple[str, ...]:
        """The sentences a story in `register` may use: the neutral ones and its own."""
        own = {"modern": self.modern, "period": self.period, "neutral": ()}[register]
        return self.neutral + own
