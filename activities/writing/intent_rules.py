"""The router's fast path (seed 002: "FastPath / ThinkingAgent → IntentResult"): keyword rules in Chinese and
English that name an intent without an LLM call, and the entities a request names.

Rules are tried in order and the first that matches answers, so the specific come before the general: the
chains ("brainstorm, then write", "from the outline write chapter 3") before their parts, revisions of a named
chapter (REVISE_CHAPTER: 第二章, 《雨夜》, chapter 2) before the analyses they mention, checks and analyses before
the things they check, names and summaries before "write". A short follow-up to a revision ("再紧张一点") revises
the same chapter again (`follow_up_revision`, given the conversation's last turn). Each rule says whether its
match is unambiguous: a specific rule is, a rule on a general verb ("write", "ideas", a greeting, "how well is it
written") is not, and the router asks the model about those when one
is configured (`unambiguous_intent`). A request no rule recognises gets None: the router asks the LLM, or answers
GENERAL_CHAT with a low confidence when there is none.
"""

import re
from dataclasses import dataclass

from models.writing.intents import PHASE_OF_INTENT, ExtractedEntity, IntentResult, WritingIntent
from models.writing.sessions import SessionTurn

SPECIFIC_CONFIDENCE = 0.9
"""A rule that names a chain, a check or a utility: few other readings are possible."""
GENERAL_CONFIDENCE = 0.75
"""A rule on a general verb ("write", "ideas"): right most of the time, but an LLM may read it better."""
GREETING_CONFIDENCE = 0.7


@dataclass(frozen=True)
class IntentRule:
    """One rule: its intent, its pattern (any of its alternatives), and how sure a match makes the router: a
    specific rule's match is unambiguous, a general rule's is a guess the model may read better."""

    intent: WritingIntent
    pattern: re.Pattern[str]
    confidence: float = SPECIFIC_CONFIDENCE

    @property
    def unambiguous(self) -> bool:
        return self.confidence >= SPECIFIC_CONFIDENCE


def _rule(intent: WritingIntent, *patterns: str, confidence: float = SPECIFIC_CONFIDENCE) -> IntentRule:
    return IntentRule(intent, re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE), confidence)


_REVISE_ZH = "改写|重写|润色|修改|精简|扩写|删改"
_WHOLE_CHAPTER_ZH = r"第\s*[0-9零一二两三四五六七八九十百]+\s*[章回]|这一?章|本章|《[^》]{1,40}》"
"""A whole chapter, by number or title: what a revision rewrites (a passage, an opening, an ending is a rewrite)."""
_CHAPTER_ZH = r"第\s*[0-9零一二两三四五六七八九十百]+\s*[章回节]|这一?[章段节]|开头|结尾"


_CHARACTER_ZH = "角色|人物|人设|主角|主人公|反派|配角|女主|男主"
_CHARACTER_EN = r"character|protagonist|villain|antagonist|hero(?:ine)?\b|sidekick"
_I = WritingIntent

RULES: tuple[IntentRule, ...] = (
    _rule(
        _I.BRAINSTORM_AND_EXPAND,
        r"(头脑风暴|想|列|给|出).{0,12}(几个|多个|一些|些)?(方案|结局|点子|走向|思路|选项).{0,16}(再|然后|之后|选).{0,10}(写|扩写|展开|成文)",
        r"头脑风暴.{0,20}(然后|再|并).{0,8}(写|扩写|展开)",
        r"brainstorm.{0,40}\b(then|and then|before)\b.{0,20}\b(write|expand|draft)",
        r"\b(options|endings|ideas|directions)\b.{0,40}\b(pick|choose|select)\b.{0,40}\b(write|expand|draft)",
    ),
    _rule(
        _I.OUTLINE_TO_CHAPTER,
        r"(根据|按照|按|依据|照着|基于|用).{0,6}大纲.{0,12}(写|生成|扩写|展开|创作)",
        r"大纲.{0,8}(写成|扩写成|展开成|变成).{0,6}(章|正文)",
        r"\b(from|based on|following|using)\b.{0,12}\boutline\b.{0,30}\b(write|draft|chapter)",
        r"\b(write|draft)\b.{0,30}\b(from|based on|following)\b.{0,12}\boutline\b",
        r"\b(turn|expand|convert)\b.{0,20}\boutline\b.{0,12}\binto\b.{0,12}(chapter|prose)",
    ),
    _rule(
        _I.CHARACTER_TO_SCENE,
        rf"(根据|用|以|让|围绕).{{0,8}}({_CHARACTER_ZH}).{{0,16}}(写|创作|生成).{{0,8}}(场景|片段|一幕|戏|桥段)",
        rf"(设计|塑造|创建).{{0,10}}({_CHARACTER_ZH}).{{0,12}}(然后|再|并).{{0,8}}写.{{0,8}}(场景|片段|一幕)",
        rf"\b(design|create|build)\b.{{0,30}}\b({_CHARACTER_EN}).{{0,30}}\bthen\b.{{0,20}}\bscene",
        rf"\bscene\b.{{0,20}}\b(featuring|starring|around|for|with)\b.{{0,20}}\b(this|the|my|that)\b.{{0,10}}({_CHARACTER_EN})",
        rf"\b(write|draft)\b.{{0,12}}\bscene\b.{{0,20}}\b(based on|from)\b.{{0,20}}({_CHARACTER_EN})",
    ),
    _rule(
        _I.REVISE_CHAPTER,
        rf"({_REVISE_ZH}).{{0,6}}({_WHOLE_CHAPTER_ZH})|({_WHOLE_CHAPTER_ZH}).{{0,6}}(需要|要|再|请)?({_REVISE_ZH})",
        r"\b(rewrite|revise|polish|tighten|edit)\b.{0,12}\b(chapter\s+[0-9]+|(this|the) chapter)",
    ),
    _rule(
        _I.WRITE_CONTENT,
        rf"({_REVISE_ZH}).{{0,6}}({_CHAPTER_ZH})|({_CHAPTER_ZH}).{{0,6}}(需要|要|再|请)?({_REVISE_ZH})",
        r"\b(rewrite|revise|polish|tighten|edit)\b.{0,12}\b(the opening|the ending)",
    ),
    _rule(
        _I.CHECK_CONSISTENCY,
        r"一致性|矛盾|前后不一|自相矛盾|逻辑漏洞|穿帮|设定冲突|吃书|对不上",
        r"consisten|contradict|plot holes?|continuity (error|issue|check)|\bdoes .{0,30} (match|add up)",
    ),
    _rule(
        _I.ANALYZE_STYLE,
        r"文风|风格分析|分析.{0,10}(风格|笔调|语言)|写作风格|笔调|语言风格|用词习惯",
        r"writing style|prose style|analy[sz]e .{0,20}(style|tone|voice)|\b(style|tone) of (my|the|this)\b",
    ),
    _rule(
        _I.ANALYZE_PACING,
        r"节奏|拖沓|太慢了|进展太快|张弛|冗长",
        r"\bpac(ing|e)\b|too slow|drags?\b|moves? too fast|\bsagging\b",
    ),
    _rule(
        _I.MANAGE_PLOTLOOP,
        r"伏笔|埋线|回收.{0,6}(线|坑|悬念)|填坑|挖坑|没填的坑|坑.{0,4}(没填|未填)|悬念.{0,6}(回收|收尾)|暗线",
        r"foreshadow|plot threads?|loose ends?|set-?ups? and pay-?offs?|chekhov|dangling (thread|subplot)",
    ),
    _rule(
        _I.EXTRACT_ENTITY,
        r"(提取|抽取|找出|列出|整理出).{0,12}(所有|全部|哪些|出现的)?.{0,6}(人物|角色|地点|地名|实体|专有名词|道具)",
        r"\bextract\b",
        r"\blist (all |every )?(the )?(characters|entities|locations|places|names|items)\b.{0,20}"
        r"\b(in|from|mentioned|that appear)",
        r"\bwho (appears|is mentioned)\b",
    ),
    _rule(
        _I.GENERATE_NAME,
        r"起.{0,8}名|取.{0,8}名|命名|书名|叫什么(名字|好)|想.{0,4}名字|名字.{0,6}(建议|推荐|候选)",
        r"\bnames? (for|ideas)\b|\bsuggest\b.{0,20}\bnames?\b|\btitle (for|ideas)\b",
        r"what should i (call|name)|\bname (my|the|this|a)\b",
    ),
    _rule(
        _I.SUMMARIZE,
        r"总结|概括|摘要|梗概|简介|内容提要|归纳|提炼.{0,6}(要点|内容)|缩写成",
        r"summari[sz]e|\bsummary\b|\brecap\b|tl;?dr|\bsynopsis\b|\bsum up\b|\bblurb\b",
    ),
    _rule(
        _I.PLAN_OUTLINE,
        r"大纲|章节规划|情节规划|故事结构|三幕|分章|剧情走向|章纲|细纲",
        r"\boutline\b|plot structure|chapter (plan|breakdown)|three-act|beat sheet|story structure|plot out",
    ),
    _rule(
        _I.DESIGN_RELATIONSHIP,
        r"关系|感情线|羁绊|恩怨|\bcp\b|情感纠葛|相爱相杀",
        r"relationship|dynamic between|rivalry|romance between|how .{0,20} (feel about|relate to)|\bbond between",
    ),
    _rule(
        _I.MATCH_ARCHETYPE,
        r"原型|人设模板|典型角色|哪种类型的(角色|人物)|角色类型|人物类型",
        r"archetype|\btrope\b|character type|kind of character",
    ),
    _rule(
        _I.PLAN_CHARACTER,
        rf"({_CHARACTER_ZH}).{{0,10}}(设计|设定|塑造|背景|性格|小传|档案|动机|成长)|(设计|创建|塑造|完善).{{0,10}}({_CHARACTER_ZH})",
        rf"\b(design|create|develop|build|flesh out)\b.{{0,30}}\b({_CHARACTER_EN})",
        rf"({_CHARACTER_EN}).{{0,20}}\b(backstory|profile|motivation|arc|personality)",
        rf"\b(backstory|profile|motivation|personality)\b.{{0,20}}\b({_CHARACTER_EN})",
    ),
    _rule(
        _I.PLAN_WORLD,
        r"世界观|魔法体系|修炼体系|力量体系|地理|历史背景|势力|种族|世界构建|世界设定|架空",
        r"world-?building|magic system|\blore\b|factions?|geography|\bsetting\b",
        r"\bworld\b.{0,20}\b(rules|history|design)",
    ),
    _rule(
        _I.BRAINSTORM_IDEA,
        r"头脑风暴|灵感|点子|脑洞|创意|构思|想法|题材",
        r"brainstorm|\bideas?\b|inspiration|what if|\bpremise\b|\bconcepts?\b",
        confidence=GENERAL_CONFIDENCE,
    ),
    _rule(
        _I.WRITE_CONTENT,
        r"(续写|扩写)|(写|创作|描写)(一|几|下一|个|这)[段章场幕篇节].{0,30}(场景|片段|对话|正文|情节|戏|打斗|重逢|告别|开头|结尾|章)?",
        r"\b(continue|write|draft)\b.{0,12}\b(the next|a|another|one more)\b.{0,12}\b(scene|chapter|paragraph)",
    ),
    _rule(
        _I.ANALYZE_STYLE,
        r"写得.{0,4}(怎么样|如何|好不好|好吗|行不行|怎样)|评价一下|点评",
        r"\bhow (well|good) is\b.{0,30}\bwritten\b|\bwhat do you think of\b",
        confidence=GENERAL_CONFIDENCE,
    ),
    _rule(
        _I.WRITE_CONTENT,
        r"写|续写|扩写|润色|改写|重写|创作|描写|生成.{0,6}(章|段|场景|正文|对话)",
        r"\b(write|continue|draft|rewrite|polish|expand|describe)\b",
        confidence=GENERAL_CONFIDENCE,
    ),
    _rule(
        _I.GENERAL_CHAT,
        r"^(你好|您好|嗨|哈喽|谢谢|多谢|早上好|晚上好|在吗)",
        r"^(hi|hello|hey|thanks|thank you|good (morning|evening)|how are you)\b",
        confidence=GREETING_CONFIDENCE,
    ),
)
"""In the order they are tried."""


_FOLLOW_UP = re.compile(
    r"^(再|更|还|稍微|稍稍|多|少|继续|接着)"
    r"|(一点|一些|一下|点儿)[。！!.～~]*$"
    r"|^(a (bit|little) |even |much |way )?(more|less|again|shorter|longer|tighter|faster|slower)\b"
    r"|^(make it|do it|try it|once) (again|more|less|\w+er)\b",
    re.IGNORECASE,
)
_ADJUSTMENTS = {WritingIntent.ANALYZE_PACING, WritingIntent.ANALYZE_STYLE}
"""What a short follow-up may mention and still be one: "节奏再快一点" after a revision asks for a faster
revision, not for an analysis of the pace."""
FOLLOW_UP_CHARS = 30
"""A follow-up is short: "再紧张一点", "a bit more"; a longer request says what it wants itself."""


def follow_up_revision(text: str, last: SessionTurn | None) -> IntentResult | None:
    """Issue 28: a short follow-up ("再紧张一点", "节奏再快一点", "even tighter") to a revision revises the same
    chapter again; None when `text` is no such follow-up, names another intent of its own (a new revision, a
    scene, a summary), or the last turn was not a revision. Asked before the other rules."""
    stripped = text.strip()
    if last is None or last.intent is not WritingIntent.REVISE_CHAPTER or last.target_chapter_position is None:
        return None
    if len(stripped) > FOLLOW_UP_CHARS or not _FOLLOW_UP.search(stripped):
        return None
    named = unambiguous_intent(stripped)
    if named is not None and named.intent not in _ADJUSTMENTS:
        return None
    chapter = ExtractedEntity(kind="chapter", text=str(last.target_chapter_position))
    return IntentResult(
        intent=WritingIntent.REVISE_CHAPTER,
        confidence=SPECIFIC_CONFIDENCE,
        phase=PHASE_OF_INTENT[WritingIntent.REVISE_CHAPTER],
        entities=[chapter, *(e for e in extract_entities(stripped) if e.kind != "chapter")],
        source="rules",
    )


def match_intent(text: str) -> IntentResult | None:
    """The intent the first matching rule names, with the entities `text` names; None when no rule matches."""
    stripped = text.strip()
    rule = _first_rule(stripped)
    return None if rule is None else _result(rule, stripped)


def unambiguous_intent(text: str) -> IntentResult | None:
    """`match_intent`'s answer when the rule that gave it is unambiguous; None when no rule matches or the first
    that matches is a general one (the model, when there is one, is asked instead)."""
    stripped = text.strip()
    rule = _first_rule(stripped)
    return None if rule is None or not rule.unambiguous else _result(rule, stripped)


def _first_rule(text: str) -> IntentRule | None:
    return next((rule for rule in RULES if rule.pattern.search(text)), None)


def _result(rule: IntentRule, text: str) -> IntentResult:
    return IntentResult(
        intent=rule.intent,
        confidence=rule.confidence,
        phase=PHASE_OF_INTENT[rule.intent],
        entities=extract_entities(text),
        source="rules",
    )


_CHINESE_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CHAPTER = re.compile(r"第\s*([0-9]+|[零一二两三四五六七八九十百]+)\s*[章回节]|\bchapter\s+([0-9]+)\b", re.IGNORECASE)
_QUOTED = re.compile(r"[「“\"《『]([^」”\"》』]{1,40})[」”\"》』]")


def extract_entities(text: str) -> list[ExtractedEntity]:
    """Chapter numbers (第三章, 第12章, chapter 4) and quoted names or titles (「林舟」, “Ash”, 《长夜》)."""
    chapters = (_chapter_number(m.group(1) or m.group(2)) for m in _CHAPTER.finditer(text))
    entities = [ExtractedEntity(kind="chapter", text=str(number)) for number in chapters]
    entities += [ExtractedEntity(kind="quoted", text=m.group(1).strip()) for m in _QUOTED.finditer(text)]
    return entities


def _chapter_number(written: str) -> int:
    if written.isdigit():
        return int(written)
    total, digit = 0, 0
    for char in written:
        if char == "百":
            total += (digit or 1) * 100
            digit = 0
        elif char == "十":
            total += (digit or 1) * 10
            digit = 0
        else:
            digit = _CHINESE_DIGITS[char]
    return total + digit
