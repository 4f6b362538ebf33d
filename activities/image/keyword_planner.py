"""The Planner's offline keyword classifier: seed 000 §8.4 "降级策略: LLM 调用失败时使用关键词匹配降级".

This module owns `classify_intent`, a pure, synchronous and deterministic function that turns one user message
into an `Intent` from Chinese and English keyword tables. It is the default offline planner and the fallback
when the LLM planner fails. It covers the mask override (§3.1), follow-ups against the previous image (§5.2),
parameter parsing for `adjust_parameters`, and the edge cases of §7 (empty, emoji-only, keyboard mashing,
chit-chat).

The caller passes in the style vocabulary (every style name and alias); the only data it reads itself are the
word lists behind `activities.image.lexicon`, loaded once.
"""

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from activities.image.lexicon import is_mashing
from models.image.state import ImageParameters, Intent, IntentAction, PreviousResult

# --- Confidence levels ------------------------------------------------------------------------------------
# The workflow treats anything below 0.5 as unknown (seed 000 §8.4), so known actions never go below 0.6.

CONFIDENCE_MASK = 0.9
CONFIDENCE_STRONG = 0.85
CONFIDENCE_KEYWORD = 0.8
CONFIDENCE_SUBJECT_ONLY = 0.6
CONFIDENCE_UNRECOGNISED = 0.3
CONFIDENCE_CHITCHAT = 0.2
CONFIDENCE_SYMBOLS = 0.1
CONFIDENCE_EMPTY = 0.0

# --- Parameter bounds -------------------------------------------------------------------------------------

MIN_SIDE = 256
MAX_SIDE = 2048
SIDE_STEP = 8
SCALE_UP = 1.25
SCALE_DOWN = 0.8
STRENGTH_STEP = 0.2
ORIENTATION_SIZES: dict[str, tuple[int, int]] = {
    "landscape": (1024, 576),
    "portrait": (576, 1024),
    "square": (768, 768),
}

# --- Keyword tables ---------------------------------------------------------------------------------------
# Regular expressions matched case-insensitively on NFKC-normalised text. Within a table longer phrases come
# first, so that removing them from the subject takes the whole phrase.

GENERATE_KEYWORDS: tuple[str, ...] = (
    "帮我画",
    "给我画",
    "生成",
    "绘制",
    "创作",
    "设计",
    "制作",
    "描绘",
    "渲染",
    r"(?<![插漫国壁油版动图字绘书])画(?![面风质布家廊框展])",
    r"(?<![未原起后出过回进下上将本从再])来[一两几]?[张幅个只副份]",
    r"做[一两几]?[张幅个只副份]",
    r"(?<!不)要[一两几][张幅个只副份]",
    r"\b(?:create|generate|draw|paint|render|design|sketch|illustrate|produce|depict|imagine)\b",
    r"\b(?:an?\s+)?(?:image|picture|pic|illustration|painting|drawing|photo|photograph|portrait|sketch"
    r"|artwork|poster|wallpaper|rendering)s?\s+of\b",
)
# Verbs too generic to beat an adjust keyword ("make it bigger", "给我调大一点").
WEAK_GENERATE_KEYWORDS: tuple[str, ...] = ("给我", r"\bmake\b", r"\b(?:show|give)\s+me\b")

AGAIN_KEYWORDS: tuple[str, ...] = (
    r"再来一[张幅个只次]",
    "再来",
    "再生成",
    "再画",
    "重新生成",
    "重新画",
    "重来",
    "换一张",
    "另一张",
    "再出一张",
    r"\btry again\b",
    r"\bagain\b",
    r"\banother one\b",
    r"\banother\b",
    r"\bone more\b",
    r"\bregenerate\b",
    r"\bre-?do\b",
)

# A place on the current image: always inpainting, and never a "restyle the whole image" request.
REGION_KEYWORDS: tuple[str, ...] = (
    "这个地方",
    "这个区域",
    "这一块",
    "这部分",
    "这里",
    "这块",
    "这儿",
    "局部",
    r"选中的?区域",
    r"\bthis (?:area|part|region|spot|bit|section|corner)\b",
    r"\b(?:selected|masked) (?:area|region)\b",
    r"\bhere\b",
)
# Editing verbs: inpainting unless the message is about parameters ("把尺寸改成 1024x768").
EDIT_KEYWORDS: tuple[str, ...] = (
    "修改",
    "重绘",
    r"把.+?(?:替换成|替换为|换成|改成|变成|改为)",
    "替换",
    "擦除",
    "擦掉",
    "去掉",
    "去除",
    "抹掉",
    "删掉",
    "删除",
    "移除",
    "涂掉",
    "添加",
    "加上",
    r"\badd\b",
    r"\binpaint(?:ing)?\b",
    r"\breplace\b",
    r"\berase\b",
    r"\bremove\b",
    r"\bget rid of\b",
    r"\b(?:change|fix|edit) this\b",
)

SIZE_PATTERN = r"(\d{2,4})\s*[x×*]\s*(\d{2,4})"
SIDE_PATTERNS: dict[str, str] = {
    "width": r"(?:宽度?|width)\s*(?:为|是|到|调到|设为|=|:|to|of)?\s*(\d{2,4})",
    "height": r"(?:高度?|height)\s*(?:为|是|到|调到|设为|=|:|to|of)?\s*(\d{2,4})",
}
STRENGTH_VALUE_PATTERN = (
    r"(?:风格强度|强度|style\s+strength|strength)\s*"
    r"(?:调整为|调整到|设置为|设置成|调到|调成|设为|改为|改成|为|到|是|to|of|at|=|:)?\s*(\d+(?:\.\d+)?)\s*(%)?"
)
_EN_ORIENTATION = (
    r"(?:\b(?:in|to|into|as)\s+{w}\b(?!\s+of\b)"
    r"|\b{w}\s+(?:mode|orientation|format|layout|aspect|ratio|version|crop)\b"
    r"|\b(?:it|this|that)\s+{w}\b|^{w}$)"
)
ORIENTATION_KEYWORDS: dict[str, tuple[str, ...]] = {
    "landscape": ("横版", "横屏", "宽屏", r"\bwidescreen\b", _EN_ORIENTATION.format(w="landscape")),
    "portrait": ("竖版", "竖屏", _EN_ORIENTATION.format(w="portrait")),
    "square": ("正方形", "方形", _EN_ORIENTATION.format(w="square")),
}
BIGGER_KEYWORDS: tuple[str, ...] = (
    r"(?<!强度)(?<!强度再)(?<!强度更)更?大一[点些]",
    r"(?<!强度)更大",
    "放大",
    r"(?<!强度)调大",
    r"\b(?:bigger|larger|enlarge|upscale)\b",
    r"\bscale up\b",
)
SMALLER_KEYWORDS: tuple[str, ...] = (
    r"(?<!强度)(?<!强度再)(?<!强度更)更?小一[点些]",
    r"(?<!强度)更小",
    "缩小",
    r"(?<!强度)调小",
    r"\b(?:smaller|shrink)\b",
    r"\bscale down\b",
)
STRONGER_KEYWORDS: tuple[str, ...] = (
    r"(?:风格)?强度[再更]?[大高]一[点些]",
    r"强度调?[大高]",
    r"(?:风格)?强一[点些]",
    "更强",
    "加强",
    "增强",
    r"\bstronger\b",
    r"\bmore styli[sz]ed\b",
    r"\b(?:increase|raise|boost)\s+(?:the\s+)?(?:style\s+)?strength\b",
)
WEAKER_KEYWORDS: tuple[str, ...] = (
    r"(?:风格)?强度[再更]?[小低]一[点些]",
    r"强度调?[小低]",
    r"(?:风格)?弱一[点些]",
    "更弱",
    "减弱",
    r"\bweaker\b",
    r"\bless styli[sz]ed\b",
    r"\b(?:decrease|reduce|lower)\s+(?:the\s+)?(?:style\s+)?strength\b",
)
ADJUST_KEYWORDS: tuple[str, ...] = (
    STRENGTH_VALUE_PATTERN,
    SIZE_PATTERN,
    *SIDE_PATTERNS.values(),
    *STRONGER_KEYWORDS,
    *WEAKER_KEYWORDS,
    *BIGGER_KEYWORDS,
    *SMALLER_KEYWORDS,
    *(keyword for keywords in ORIENTATION_KEYWORDS.values() for keyword in keywords),
    "再调整一下",
    "调整",
    "调一下",
    "调到",
    "调成",
    "尺寸",
    "分辨率",
    "大小",
    "比例",
    "风格强度",
    "强度",
    r"更?[亮暗]一[点些]",
    r"更[亮暗]",
    "参数",
    r"\badjust(?:ment)?\b",
    r"\btweak\b",
    r"\bresize\b",
    r"\bsize\b",
    r"\bresolution\b",
    r"\baspect ratio\b",
    r"\bstyle strength\b",
    r"\bstrength\b",
    r"\b(?:brighter|darker)\b",
    r"\bparameters?\b",
)

# Politeness and request framing: removed from the subject, never a signal on their own.
FILLER_KEYWORDS: tuple[str, ...] = (
    "麻烦你",
    "麻烦",
    "请你",
    "请",
    "帮我",
    "帮忙",
    "给我",
    "为我",
    "我想要",
    "我想",
    "我要",
    "我需要",
    "想要",
    "能不能",
    "能否",
    "可不可以",
    "可以",
    "你能",
    "一下",
    r"\b(?:can|could|would|will) you\b",
    r"\bplease\b",
    r"\bi(?:'d| would) like(?: to(?: see)?)?\b",
    r"\bi want(?: to(?: see)?)?\b",
    r"\bi need\b",
    r"\blet'?s\b",
    r"\bhelp me\b",
    r"\bfor me\b",
    r"\bkindly\b",
    r"\bjust\b",
)
# Words that ask for a different style of the same picture ("换成水彩风格", "change it to watercolor").
RESTYLE_KEYWORDS: tuple[str, ...] = (
    "转换成",
    "换成",
    "改成",
    "变成",
    "转成",
    "换个",
    r"换一?种",
    "改为",
    "风格",
    r"\bstyle\b",
    r"\b(?:change|switch|turn|convert|transform)\b",
)
QUANTIFIER_PATTERN = (
    r"[一二两三四五六七八九十几]+"
    r"[只个张幅位条座朵片头群匹棵株件套副些辆艘栋间块份顶盏双对束枝颗把台支]"
)

GREETING_PATTERN = (
    r"^(?:你好|您好|嗨|哈喽|哈啰|哈罗|早上好|早安|上午好|中午好|下午好|晚上好|晚安|谢谢|多谢|感谢|再见|拜拜|在吗"
    r"|hi|hello|hey|yo|good\s+(?:morning|afternoon|evening|night)|thanks|thank\s+you|bye|goodbye)(?![a-z])"
)
ACKNOWLEDGEMENTS: frozenset[str] = frozenset(
    {"好", "好的", "嗯", "嗯嗯", "哦", "是的", "对", "行", "哈哈", "哈哈哈"}
    | {"ok", "okay", "yes", "no", "sure", "cool", "nice", "lol"}
)
QUESTION_PATTERN = (
    r"怎么样|为什么|什么|怎么|谁|哪[里儿个些]|几点|多少|[吗呢]\s*\?*$|\?$"
    r"|^(?:what|how|why|who|when|where|which|is|are|do|does|can|could|will|would)\b"
)

# Stand-ins that name no subject: a message reduced to one of these has no subject of its own.
PLACEHOLDER_SUBJECTS: frozenset[str] = frozenset(
    {"它", "这", "那", "这个", "那个", "这张", "这幅", "一个", "一张", "东西"}
    | {"图", "图片", "图像", "照片", "画", "画面", "画作", "作品", "插画", "换", "改", "变"}
    | {"it", "this", "that", "one", "something"}
    | {"image", "picture", "pic", "painting", "illustration", "photo", "artwork", "drawing"}
)
# Words before "风格"/"style" that are not a style name ("这种风格", "the same style").
NOT_A_STYLE: frozenset[str] = frozenset(
    {"这", "那", "这种", "那种", "哪种", "什么", "同样", "一样", "相同", "不同", "其他", "别的"}
    | {"原来", "之前", "上次", "新", "整体", "整个", "画面", "图片"}
    | {"a", "an", "the", "this", "that", "my", "your", "its", "any", "some", "which", "what", "of", "in"}
    | {"same", "different", "other", "another", "new", "original", "previous", "old", "art"}
    | {"change", "switch", "increase", "decrease", "reduce", "adjust"}
)

_CJK = r"\u4e00-\u9fff"
_CN_STYLE_PATTERNS: tuple[str, ...] = (
    rf"([{_CJK}A-Za-z0-9]{{1,12}}?)的?风格(?![强弱更再])",
    rf"([{_CJK}]{{1,12}}?)风(?=的|$|[\s,.!?、。])",
)
_CN_STYLE_PREFIX = re.compile(
    r"^.*(?:生成|绘制|创作|设计|制作|换成|改成|变成|转成|采用|使用|[一两几][只个张幅位副种款]"
    r"|[画个只张幅种款的用以成是为来要把给])"
)
_EN_STYLE_PATTERNS: tuple[str, ...] = (
    r"\bstyle\s+of\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2})",
    r"\b([a-z][\w'-]*)[\s-]+styled?\b(?!\s+strength)",
)
_EN_STYLE_TRAILING = frozenset({"with", "and", "for", "please", "on", "in", "at", "the", "a", "an", "to"})
_STYLE_PREFIX = r"(?:\bin\s+the\s+style\s+of\s+|\bin\s+(?:an?\s+|the\s+)?|\ban?\s+|\bthe\s+|采用|使用|用|以)?"
_STYLE_SUFFIX = r"(?:[\s-]*styled?\b|的?风格的?|风的?|式的?|的)?"

_PAIR_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"把(?P<old>.*?)(?:替换成|替换为|换成|改成|变成|改为)(?P<new>.*)"),
    re.compile(r"\breplace\s+(?P<old>.+?)\s+with\s+(?P<new>.+)", re.IGNORECASE),
    re.compile(r"\b(?:change|turn)\s+(?P<old>.+?)\s+(?:to|into)\s+(?P<new>.+)", re.IGNORECASE),
)
_CLAUSE_SPLIT = re.compile(r"[，。！？、；：,.!?;:~…\"“”‘’()（）\[\]【】<>《》|/\\]+")
_LEADING_JUNK = re.compile(
    r"^(?:[的把将要和与在是为个张幅只位副]|(?:a|an|the|some|me|us|of|for|with|to|into|and|it|this|that)\b)\s*",
    re.IGNORECASE,
)
_TRAILING_JUNK = re.compile(
    r"\s*(?:的(?:图片|图像|图|照片|画作|画|插画)|[的吧呀啊哦呢嘛吗了哈]"
    r"|\s(?:picture|image|photo|illustration|painting|drawing)s?"
    r"|\b(?:please|now|of|to|into|with|it|thanks|and))$",
    re.IGNORECASE,
)
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])")
_HAS_CJK = re.compile(rf"[{_CJK}]")


def _compile(patterns: Sequence[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns), re.IGNORECASE)


_GENERATE = _compile(GENERATE_KEYWORDS)
_WEAK_GENERATE = _compile(WEAK_GENERATE_KEYWORDS)
_AGAIN = _compile(AGAIN_KEYWORDS)
_REGION = _compile(REGION_KEYWORDS)
_EDIT = _compile(EDIT_KEYWORDS)
_ADJUST = _compile(ADJUST_KEYWORDS)
_FILLER = _compile(FILLER_KEYWORDS)
_RESTYLE = _compile(RESTYLE_KEYWORDS)
_QUANTIFIER = re.compile(QUANTIFIER_PATTERN)
_SIZE = re.compile(SIZE_PATTERN, re.IGNORECASE)
_SIDES = {side: re.compile(pattern, re.IGNORECASE) for side, pattern in SIDE_PATTERNS.items()}
_STRENGTH_VALUE = re.compile(STRENGTH_VALUE_PATTERN, re.IGNORECASE)
_ORIENTATIONS = {name: _compile(keywords) for name, keywords in ORIENTATION_KEYWORDS.items()}
_BIGGER = _compile(BIGGER_KEYWORDS)
_SMALLER = _compile(SMALLER_KEYWORDS)
_STRONGER = _compile(STRONGER_KEYWORDS)
_WEAKER = _compile(WEAKER_KEYWORDS)
_GREETING = re.compile(GREETING_PATTERN, re.IGNORECASE)
_QUESTION = re.compile(QUESTION_PATTERN, re.IGNORECASE)
# Applied in this order when reducing a message to its subject.
_SUBJECT_NOISE: tuple[re.Pattern[str], ...] = (
    _ADJUST,
    _AGAIN,
    _REGION,
    _EDIT,
    _GENERATE,
    _WEAK_GENERATE,
    _FILLER,
    _RESTYLE,
    _QUANTIFIER,
)
_DEFAULTS = ImageParameters()


@dataclass(frozen=True)
class _Style:
    """A style found in the message: its name and the phrase to cut out before reading the subject."""

    name: str
    phrase: re.Pattern[str]


@dataclass(frozen=True)
class _Signals:
    """The keywords of each group found in the message, in order of appearance."""

    generate: tuple[str, ...]
    weak_generate: tuple[str, ...]
    again: tuple[str, ...]
    region: tuple[str, ...]
    edit: tuple[str, ...]
    adjust: tuple[str, ...]


def classify_intent(
    text: str,
    *,
    has_mask: bool,
    style_vocabulary: Sequence[str],
    previous: PreviousResult | None = None,
) -> Intent:
    """Classify one user message into an `Intent` by keyword matching (source "mask" or "keywords").

    Precedence: mask > empty / symbols only / keyboard mashing > "again" with a previous image > a new style only
    (with a previous image) > region or edit keywords > adjust keywords (unless a strong verb names a subject) >
    generate verbs > chit-chat > a bare subject or style > unknown.
    """
    request = _normalise(text)
    style = _find_style(request, style_vocabulary)
    remainder = style.phrase.sub(" ", request) if style else request
    style_name = style.name if style else None
    subject = _extract_subject(remainder)
    if has_mask:
        return _intent(
            "inpainting",
            CONFIDENCE_MASK,
            f"检测到蒙版数据，强制为局部重绘{_found(style_name, subject)}",
            prompt=request,
            subject=subject,
            style=style_name,
            source="mask",
        )
    if not request:
        return _intent("unknown", CONFIDENCE_EMPTY, "输入为空", prompt=request)
    if not any(char.isalpha() for char in request) and not _SIZE.search(request):
        return _intent("unknown", CONFIDENCE_SYMBOLS, "只有表情或符号，没有可识别的文字", prompt=request)
    if style is None and not _has_keyword(request) and not _SIZE.search(request) and is_mashing(request):
        return _intent("unknown", CONFIDENCE_UNRECOGNISED, "像是随手敲的字母，不是任何语言里的词", prompt=request)

    signals = _scan(remainder)
    parameters = _parse_parameters(remainder, previous)
    found = _found(style_name, subject)

    if signals.again and previous is not None:
        new_subject = subject or previous.subject
        new_style = style_name or previous.style
        changed = subject is not None or style_name is not None
        return _intent(
            "generate_image",
            CONFIDENCE_STRONG,
            f"命中再来一张类关键词{_quote(signals.again)}，沿用上一张图片的主体和风格{found}",
            prompt=_compose_prompt(new_subject, new_style, previous.prompt) if changed else previous.prompt,
            subject=new_subject,
            style=new_style,
            parameters=parameters,
        )
    if (
        previous is not None
        and style_name is not None
        and subject is None
        and not signals.region
        and not signals.adjust
    ):
        return _intent(
            "generate_image",
            CONFIDENCE_KEYWORD,
            f"只指定了新风格「{style_name}」，沿用上一张图片的主体重新生成",
            prompt=_compose_prompt(previous.subject, style_name, previous.prompt),
            subject=previous.subject,
            style=style_name,
        )
    if signals.region or (signals.edit and not signals.adjust):
        return _intent(
            "inpainting",
            CONFIDENCE_KEYWORD,
            f"命中局部修改类关键词{_quote(signals.region + signals.edit)}{found}",
            prompt=request,
            subject=subject,
            style=style_name,
        )
    if signals.adjust and not (signals.generate and subject):
        confidence = CONFIDENCE_STRONG if parameters else CONFIDENCE_KEYWORD
        reasoning = f"命中参数调整类关键词{_quote(signals.adjust)}"
        if previous is None:
            return _intent(
                "adjust_parameters",
                confidence,
                f"{reasoning}，但没有上一张图片",
                prompt=request,
                subject=subject,
                style=style_name,
                parameters=parameters,
            )
        return _intent(
            "adjust_parameters",
            confidence,
            f"{reasoning}，沿用上一张图片的主体、风格和提示词",
            prompt=previous.prompt,
            subject=previous.subject,
            style=style_name or previous.style,
            parameters=parameters,
        )
    if signals.again and not (subject or style_name):
        return _intent("unknown", CONFIDENCE_UNRECOGNISED, "要求再来一张，但没有上一张图片", prompt=request)
    verbs = signals.generate + signals.weak_generate
    if verbs or signals.again:
        return _intent(
            "generate_image",
            CONFIDENCE_STRONG if subject else CONFIDENCE_KEYWORD,
            f"命中生成类关键词{_quote(verbs + signals.again)}{found}",
            prompt=request,
            subject=subject,
            style=style_name,
            parameters=parameters,
        )
    if _is_chitchat(request):
        return _intent("unknown", CONFIDENCE_CHITCHAT, "问候或闲聊，不是图像请求", prompt=request)
    if subject or style_name:
        return _intent(
            "generate_image",
            CONFIDENCE_SUBJECT_ONLY,
            f"没有命中动词，按描述生成图片{found}",
            prompt=request,
            subject=subject,
            style=style_name,
            parameters=parameters,
        )
    return _intent("unknown", CONFIDENCE_UNRECOGNISED, "没有命中任何关键词", prompt=request)


def _normalise(text: str) -> str:
    """NFKC (full-width digits and punctuation to ASCII), collapsed whitespace."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _scan(text: str) -> _Signals:
    def matches(pattern: re.Pattern[str]) -> tuple[str, ...]:
        return tuple(match.group(0).strip() for match in pattern.finditer(text))

    return _Signals(
        generate=matches(_GENERATE),
        weak_generate=matches(_WEAK_GENERATE),
        again=matches(_AGAIN),
        region=matches(_REGION),
        edit=matches(_EDIT),
        adjust=matches(_ADJUST),
    )


def _has_keyword(text: str) -> bool:
    signals = _scan(text)
    return any((signals.generate, signals.again, signals.region, signals.edit, signals.adjust))


# --- Style ------------------------------------------------------------------------------------------------


def _term_pattern(term: str) -> str:
    """A vocabulary term as a regex: spaces and hyphens interchangeable, whole words for Latin letters."""
    body = r"[\s-]+".join(re.escape(part) for part in re.split(r"[\s-]+", term))
    if term[:1].isascii() and term[:1].isalnum():
        body = rf"(?<![a-z]){body}"
    if term[-1:].isascii() and term[-1:].isalnum():
        body = rf"{body}(?![a-z])"
    return body


def _style(name: str) -> _Style:
    phrase = re.compile(f"{_STYLE_PREFIX}{_term_pattern(name)}{_STYLE_SUFFIX}", re.IGNORECASE)
    return _Style(name=name, phrase=phrase)


@lru_cache(maxsize=8)
def _vocabulary_patterns(vocabulary: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each distinct vocabulary term with its pattern, compiled once per vocabulary."""
    terms = dict.fromkeys(term.strip() for term in vocabulary)
    return tuple((term, re.compile(_term_pattern(term), re.IGNORECASE)) for term in terms if term)


def _vocabulary_term(text: str, vocabulary: Sequence[str]) -> str | None:
    """The term covering the longest stretch of the text; on a tie the exact spelling, then the first by order."""
    found = [
        (-len(match.group(0)), match.group(0).casefold() != term.casefold(), term)
        for term, pattern in _vocabulary_patterns(tuple(vocabulary))
        if (match := pattern.search(text))
    ]
    return min(found)[2] if found else None


def _find_style(text: str, vocabulary: Sequence[str]) -> _Style | None:
    """The longest vocabulary entry in the text, else a "X风格" / "X风" / "X style" / "style of X" phrase."""
    term = _vocabulary_term(text, vocabulary)
    if term:
        return _style(term)
    for pattern in _CN_STYLE_PATTERNS:
        for match in re.finditer(pattern, text):
            candidate = _CN_STYLE_PREFIX.sub("", match.group(1))
            if candidate and candidate not in NOT_A_STYLE and not _has_keyword(candidate):
                return _style(candidate)
    for pattern in _EN_STYLE_PATTERNS:
        for match in re.finditer(pattern, text, re.IGNORECASE):
            words = match.group(1).split()
            while words and words[-1].lower() in _EN_STYLE_TRAILING:
                words.pop()
            candidate = " ".join(words)
            if candidate and candidate.lower() not in NOT_A_STYLE and not _has_keyword(candidate):
                return _style(candidate)
    return None


# --- Subject ----------------------------------------------------------------------------------------------


def _extract_subject(text: str) -> str | None:
    """The noun phrase left once keywords, fillers and quantifiers are gone; for "把A换成B" the new part B."""
    for pair in _PAIR_PATTERNS:
        match = pair.search(text)
        if match:
            return _clean_subject(match.group("new")) or _clean_subject(match.group("old"))
    return _clean_subject(text)


def _clean_subject(text: str) -> str | None:
    for pattern in _SUBJECT_NOISE:
        text = pattern.sub(" ", text)
    clauses = [_trim_clause(clause) for clause in _CLAUSE_SPLIT.split(text)]
    kept = [clause for clause in clauses if clause and clause.lower() not in PLACEHOLDER_SUBJECTS]
    if not kept:
        return None
    return ("，" if _HAS_CJK.search("".join(kept)) else ", ").join(kept)


def _trim_clause(clause: str) -> str:
    clause = "".join(char for char in clause if char.isalnum() or char in " -'")
    clause = _CJK_GAP.sub("", " ".join(clause.split())).strip(" -")
    previous = None
    while clause != previous:
        previous = clause
        clause = _TRAILING_JUNK.sub("", _LEADING_JUNK.sub("", clause)).strip(" -")
    return clause


# --- Parameters -------------------------------------------------------------------------------------------


def _fit_side(value: float) -> int:
    """Clamp a side to [MIN_SIDE, MAX_SIDE] and round it to a multiple of SIDE_STEP."""
    return max(MIN_SIDE, min(MAX_SIDE, round(value / SIDE_STEP) * SIDE_STEP))


def _fit_strength(value: float) -> float:
    return round(max(0.0, min(1.0, value)), 2)


def _parse_parameters(text: str, previous: PreviousResult | None) -> dict[str, Any]:
    """Width, height and style strength the message asks for, relative to the previous image when given."""
    width = previous.width if previous else _DEFAULTS.width
    height = previous.height if previous else _DEFAULTS.height
    strength = previous.style_strength if previous else _DEFAULTS.style_strength
    parameters: dict[str, Any] = {}

    size = _SIZE.search(text)
    orientation = next((name for name, pattern in _ORIENTATIONS.items() if pattern.search(text)), None)
    bigger, smaller = bool(_BIGGER.search(text)), bool(_SMALLER.search(text))
    if size:
        parameters.update(width=_fit_side(int(size.group(1))), height=_fit_side(int(size.group(2))))
    elif orientation:
        parameters["width"], parameters["height"] = ORIENTATION_SIZES[orientation]
    elif bigger != smaller:
        scale = SCALE_UP if bigger else SCALE_DOWN
        parameters.update(width=_fit_side(width * scale), height=_fit_side(height * scale))
    else:
        for side, pattern in _SIDES.items():
            side_match = pattern.search(text)
            if side_match:
                parameters[side] = _fit_side(int(side_match.group(1)))

    value = _STRENGTH_VALUE.search(text)
    stronger, weaker = bool(_STRONGER.search(text)), bool(_WEAKER.search(text))
    if value:
        number = float(value.group(1))
        parameters["style_strength"] = _fit_strength(number / 100 if value.group(2) or number > 1 else number)
    elif stronger != weaker:
        step = STRENGTH_STEP if stronger else -STRENGTH_STEP
        parameters["style_strength"] = _fit_strength(strength + step)
    return parameters


# --- Result -----------------------------------------------------------------------------------------------


def _is_chitchat(text: str) -> bool:
    bare = _CLAUSE_SPLIT.sub("", text).strip().lower()
    return bare in ACKNOWLEDGEMENTS or bool(_GREETING.search(text) or _QUESTION.search(text))


def _compose_prompt(subject: str | None, style: str | None, base: str) -> str:
    """A prompt for a subject in a style, built on the previous prompt when the subject is unknown."""
    chinese = bool(_HAS_CJK.search(f"{subject or base}{style or ''}"))
    if style is None:
        return subject or base
    if subject is None:
        return f"{base}，{style}风格" if chinese else f"{base}, in {style} style"
    return f"{style}风格的{subject}" if chinese else f"{subject}, {style} style"


def _quote(keywords: Sequence[str]) -> str:
    return "".join(f"「{keyword}」" for keyword in dict.fromkeys(keywords))


def _found(style: str | None, subject: str | None) -> str:
    parts = [f"风格「{style}」" if style else "", f"主体「{subject}」" if subject else ""]
    return "".join(f"；{part}" for part in parts if part)


def _intent(
    action: IntentAction,
    confidence: float,
    reasoning: str,
    *,
    prompt: str,
    subject: str | None = None,
    style: str | None = None,
    parameters: dict[str, Any] | None = None,
    source: Literal["mask", "keywords"] = "keywords",
) -> Intent:
    decided: dict[str, Any] = {
        "action": action,
        "subject": subject,
        "style": style,
        "parameters": parameters or {},
        "confidence": confidence,
        "source": source,
    }
    return Intent(
        action=action,
        subject=subject,
        style=style,
        prompt=prompt,
        parameters=parameters or {},
        confidence=confidence,
        reasoning=f"关键词规划：{reasoning}",
        raw_response=json.dumps(decided, ensure_ascii=False, separators=(",", ":")),
        source=source,
    )
