"""Which small app the user's message asks for, and what that kind of app can do.

The four kinds the offline agents build (`models.app_builder.app_kinds`): a todo list, a shopping list, notes and
a counter. Each kind lists its capabilities (the product manager's requirements, `req-<key>`), the shape of its
items and the name of its one store. The kind is the one the message names (None when it names none: the offline
builder builds nothing else), the UI language comes from the message's script, the app's title from a phrase that
names it ("叫…", "called …").
"""

import re
from dataclasses import dataclass
from typing import Literal

from models.app_builder.app_kinds import KindName, kind_named
from models.app_builder.documents import Priority

Language = Literal["zh", "en"]

TITLE_CHARS = 30


@dataclass(frozen=True)
class Capability:
    """One thing the app lets its user do: a functional requirement and the user story behind it."""

    key: str
    title: str
    description: str
    priority: Priority
    goal: str
    benefit: str

    @property
    def requirement_id(self) -> str:
        return f"req-{self.key}"


@dataclass(frozen=True)
class ItemShape:
    """The fields of one item of a list app (besides `id` and `createdAt`)."""

    text: str
    """The item's required text field."""
    detail: str | None
    """An optional second field: a number (`quantity`) or a longer text (`body`)."""
    detail_type: Literal["number", "string"] | None
    flag: str
    """The boolean field the toggle capability flips."""
    flag_control: Literal["checkbox", "pin"]

    @property
    def ts_type(self) -> str:
        """The item as a TypeScript object type."""
        fields = ["id: string", f"{self.text}: string"]
        if self.detail is not None and self.detail_type is not None:
            fields.append(f"{self.detail}: {self.detail_type}")
        fields += [f"{self.flag}: boolean", "createdAt: number"]
        return "{ " + "; ".join(fields) + " }"


@dataclass(frozen=True)
class AppKind:
    """One kind of app: how to recognise it and what its documents and code are made of."""

    name: KindName
    noun: str
    """What one item is called in the documents (待办, 商品, ...)."""
    persona: str
    prefix: str
    """Prefix of its component names (`Todo` → `TodoList`)."""
    store: str
    item: ItemShape | None
    """None for the counter, which keeps a number rather than a list."""
    capabilities: tuple[Capability, ...]
    titles: dict[Language, str]
    palette: str
    """The UI expert's color scheme: a mode and `name #hex` pairs."""


def _persist(what: str) -> Capability:
    return Capability(
        "persist",
        "本地保存",
        f"{what}保存在浏览器本地（localStorage），刷新或重新打开页面后仍在。",
        "medium",
        "关掉页面再打开时内容还在",
        "不用重复输入",
    )


TODO = AppKind(
    name="todo",
    noun="待办",
    persona="忙碌的上班族",
    prefix="Todo",
    store="todoStore",
    item=ItemShape(text="text", detail=None, detail_type=None, flag="done", flag_control="checkbox"),
    capabilities=(
        Capability(
            "add",
            "添加待办",
            "在输入框写下内容，按 Enter 或点击按钮添加一条待办；内容为空时不添加并给出提示。",
            "high",
            "随手记下要做的事",
            "不会忘记任何一件事",
        ),
        Capability(
            "toggle",
            "标记完成",
            "勾选一条待办表示完成，再次勾选恢复未完成；已完成的待办划线显示。",
            "high",
            "做完一件就勾掉一件",
            "一眼看出进度",
        ),
        Capability("remove", "删除待办", "删除一条不再需要的待办。", "medium", "删掉不再需要的待办", "列表保持清爽"),
        Capability(
            "filter",
            "按状态筛选",
            "在全部、未完成、已完成之间切换显示的待办。",
            "medium",
            "只看还没做完的事",
            "专注当下",
        ),
        Capability(
            "clear",
            "清除已完成",
            "显示剩余未完成的数量，一键清除所有已完成的待办。",
            "low",
            "一次清掉所有已完成的待办",
            "省去逐条删除",
        ),
        _persist("待办"),
    ),
    titles={"zh": "待办清单", "en": "Todo List"},
    palette="light; primary #4f46e5; on-primary #ffffff; background #f5f7fb; surface #ffffff; text #1f2937; "
    "muted #6b7280; border #e5e7eb; danger #dc2626",
)

SHOPPING = AppKind(
    name="shopping",
    noun="商品",
    persona="周末去超市采购的人",
    prefix="Shopping",
    store="shoppingStore",
    item=ItemShape(text="name", detail="quantity", detail_type="number", flag="bought", flag_control="checkbox"),
    capabilities=(
        Capability(
            "add",
            "添加商品",
            "输入商品名称和数量加入清单；名称为空时不添加并给出提示，数量至少为 1。",
            "high",
            "把要买的东西和数量记下来",
            "逛超市时不漏买",
        ),
        Capability(
            "toggle",
            "标记已购买",
            "买到一件就勾选它，已购买的商品划线显示。",
            "high",
            "边买边勾",
            "清楚还差什么没买",
        ),
        Capability(
            "remove", "删除商品", "把不需要再买的商品从清单中删除。", "medium", "删掉不再需要的东西", "清单只留必要的"
        ),
        Capability(
            "filter",
            "按购买状态筛选",
            "在全部、待购买、已购买之间切换显示的商品。",
            "medium",
            "只看还没买的",
            "买得更快",
        ),
        Capability(
            "clear",
            "清除已购买",
            "显示待购买的件数，一键清除已购买的商品。",
            "low",
            "买完后清掉已购买的商品",
            "下次购物从干净的清单开始",
        ),
        _persist("清单"),
    ),
    titles={"zh": "购物清单", "en": "Shopping List"},
    palette="light; primary #15803d; on-primary #ffffff; background #f3f8f4; surface #ffffff; text #1c2a21; "
    "muted #5f6f64; border #dbe7de; danger #b91c1c",
)

NOTES = AppKind(
    name="notes",
    noun="笔记",
    persona="爱记录灵感的人",
    prefix="Note",
    store="notesStore",
    item=ItemShape(text="title", detail="body", detail_type="string", flag="pinned", flag_control="pin"),
    capabilities=(
        Capability(
            "add",
            "新建笔记",
            "填写标题和正文保存一条笔记；标题为空时不保存并给出提示，Ctrl+Enter 快速保存。",
            "high",
            "随时记下想法",
            "灵感不会溜走",
        ),
        Capability(
            "toggle",
            "置顶笔记",
            "把重要的笔记置顶，置顶的笔记排在最前面，可随时取消置顶。",
            "medium",
            "把重要的笔记放在最上面",
            "常用内容随手可得",
        ),
        Capability("remove", "删除笔记", "删除不再需要的笔记。", "medium", "删掉过时的笔记", "笔记本保持整洁"),
        Capability(
            "search",
            "搜索笔记",
            "按关键词搜索笔记的标题和正文，实时显示匹配结果。",
            "medium",
            "很快找到以前写的笔记",
            "不用一条条翻",
        ),
        _persist("笔记"),
    ),
    titles={"zh": "笔记本", "en": "Notes"},
    palette="light; primary #b45309; on-primary #ffffff; background #fbf7ef; surface #fffdf8; text #2b2118; "
    "muted #7a6a58; border #eadfcd; danger #b91c1c",
)

COUNTER = AppKind(
    name="counter",
    noun="计数",
    persona="需要随手计数的人",
    prefix="Counter",
    store="counterStore",
    item=None,
    capabilities=(
        Capability(
            "count",
            "加减计数",
            "点击 + / − 按钮或按键盘 ↑ / ↓ 按当前步长增减计数，数字实时更新。",
            "high",
            "快速地加一或减一",
            "计数又快又准",
        ),
        Capability("reset", "一键归零", "点击归零按钮或按 0 键把计数清零。", "high", "开始新一轮计数", "不用刷新页面"),
        Capability(
            "step", "调整步长", "在 1、5、10 之间选择每次增减的步长。", "medium", "一次加减多个", "大数计数更省力"
        ),
        Capability(
            "history",
            "操作记录",
            "显示最近 20 次计数变化（变化量和结果），没有记录时给出提示。",
            "low",
            "看到之前的计数变化",
            "数错了能回头核对",
        ),
        _persist("计数、步长和记录"),
    ),
    titles={"zh": "计数器", "en": "Counter"},
    palette="light; primary #0f766e; on-primary #ffffff; background #f0f7f6; surface #ffffff; text #13302d; "
    "muted #5b716e; border #d5e6e3; danger #b91c1c",
)

KINDS: tuple[AppKind, ...] = (TODO, SHOPPING, NOTES, COUNTER)

CAPABILITY_WORDS: dict[str, tuple[str, ...]] = {
    "add": ("添加", "新增", "新建", "创建", "add", "create"),
    "toggle": ("完成", "勾选", "已购买", "置顶", "toggle", "complete", "pin"),
    "remove": ("删除", "移除", "delete", "remove"),
    "filter": ("筛选", "过滤", "filter"),
    "search": ("搜索", "查找", "search"),
    "clear": ("清除", "清空", "clear"),
    "persist": ("保存", "持久", "本地", "localstorage", "persist", "save", "storage"),
    "count": ("加减", "增减", "计数", "increment", "decrement", "count"),
    "reset": ("归零", "重置", "清零", "reset"),
    "step": ("步长", "step"),
    "history": ("记录", "历史", "history"),
}
"""Words that name a capability in a requirement someone else wrote (its id is not `req-<key>`)."""

_CJK = re.compile(r"[\u3400-\u9fff]")
_TITLE_PATTERNS = (
    re.compile(r"(?:叫做|名叫|名为|命名为|标题为|标题是|叫)\s*[「“\"《']([^」”\"》'\n]+)[」”\"》']"),
    re.compile(r"(?:叫做|名叫|名为|命名为|标题为|标题是|叫)\s*([^」”\"》'，。,.!！？?；;\s的]+)"),
    re.compile(
        r"\b(?:called|named|titled)\s+[\"'“]?(.+?)[\"'”]?(?=\s+(?:that|which|with|for|where|to)\b|[.,;!?\n]|$)",
        re.IGNORECASE,
    ),
)


def recognise_kind(text: str) -> AppKind | None:
    """The kind the text names (its earliest keyword); None when it names none of the four."""
    name = kind_named(text)
    return next((kind for kind in KINDS if kind.name == name), None)


def message_language(text: str) -> Language:
    """Chinese when the message contains Chinese characters, else English."""
    return "zh" if _CJK.search(text) else "en"


def app_title(text: str, kind: AppKind, language: Language) -> str:
    """The name the message gives the app ("叫「周末计划」", "called Weekend Plan"), else the kind's title."""
    for pattern in _TITLE_PATTERNS:
        match = pattern.search(text)
        if match is not None:
            title = match.group(1).strip(" \t「」“”\"'《》")
            if title:
                return title[:TITLE_CHARS].strip()
    return kind.titles[language]
