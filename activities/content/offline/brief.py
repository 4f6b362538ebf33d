"""The offline brief_compiler_agent: the `CreativeBrief` from the topic, the user's answers and the Supervisor's
guidance. The platform comes from the run, else the answer to `brief.platform`, else the topic; when still unknown
it asks once (while it may), otherwise assumes 小红书 and says so. Audience and tone come from keyword tables, the
key messages from the topic's aspects, the guidance and free-text answers, never from the Supervisor's focus areas
(they name what to look at, "平台", "受众", not what to say). An English topic gets an English call to action and
padding. Pure and deterministic."""

import re

from activities.content.offline.research_tools import clip
from models.content.agents import AgentOutcome, AgentRequest, Clarification, StatePatch
from models.content.artifacts import PLATFORM_LABELS, CreativeBrief, Platform
from models.writing.language import written_in_english

PLATFORM_KEY = "brief.platform"
PLATFORM_QUESTION = "这篇内容要发在哪个平台？（决定篇幅、语气和配图比例）"
PLATFORM_OPTIONS: list[tuple[str, str]] = [
    ("xiaohongshu", "小红书"),
    ("weibo", "微博"),
    ("wechat", "微信公众号"),
    ("douyin", "抖音"),
]
DEFAULT_PLATFORM: Platform = "xiaohongshu"
MIN_MESSAGES, MAX_MESSAGES = 3, 5
MESSAGE_CHARS = 60
CORE_CHARS = 24
CORE_CHARS_EN = 60
"""An English topic is named whole up to this many characters (cut, it reads as nonsense: "pack light for a")."""

_PLATFORM_NAMES: tuple[tuple[Platform, tuple[str, ...]], ...] = (
    ("xiaohongshu", ("小红书", "红书", "xiaohongshu", "rednote", "red note", "little red book", "xhs")),
    ("weibo", ("微博", "weibo")),
    ("wechat", ("微信公众号", "公众号", "微信", "wechat", "weixin", "official account")),
    ("douyin", ("抖音", "douyin", "tiktok", "tik tok")),
)
"""Names of each platform in Chinese and English (matched case-insensitively; English as whole words)."""

AUDIENCES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("职场", "上班", "打工", "白领", "通勤", "office", "work", "career", "commute", "commuting"), "职场人"),
    (("学生", "考试", "备考", "大学", "考研", "student", "exam", "college", "campus", "study"), "学生"),
    (("宝妈", "育儿", "宝宝", "亲子", "带娃", "parent", "mom", "baby", "toddler", "kid"), "年轻父母"),
    (("健身", "减脂", "减肥", "运动", "增肌", "fitness", "workout", "gym", "fat loss", "exercise"), "健身爱好者"),
    (("旅行", "旅游", "出游", "攻略", "travel", "trip", "vacation"), "旅行爱好者"),
    (
        ("咖啡", "美食", "餐厅", "烘焙", "食谱", "coffee", "food", "recipe", "cooking", "meal", "restaurant"),
        "美食爱好者",
    ),
)
"""Words of the topic → the audience (the first row that matches)."""
DEFAULT_AUDIENCE = "对该话题感兴趣的读者"

TONES: dict[str, str] = {
    "xiaohongshu": "亲切种草",
    "weibo": "简洁有话题性",
    "wechat": "专业深入",
    "douyin": "口语有节奏",
}
CALLS_TO_ACTION_EN: dict[str, str] = {
    "xiaohongshu": "Save this for later and tell me your own tips in the comments!",
    "weibo": "Share it with a friend who needs it, and tell me what you think!",
    "wechat": "If this helped, share it with someone who will find it useful.",
    "douyin": "Follow for more practical tips!",
}
CALLS_TO_ACTION: dict[str, str] = {
    "xiaohongshu": "觉得有用就点赞收藏，评论区聊聊你的经验～",
    "weibo": "转发给需要的朋友，评论区说说你的看法！",
    "wechat": "如果这篇文章对你有帮助，欢迎点赞、在看并转发给身边的朋友。",
    "douyin": "关注我，下期继续分享更多干货！",
}

_ASPECT_SPLIT = re.compile(r"[，,、；;：:/|｜+&·—\-]+|\s+(?:and|&|with|plus)\s+|以及|及其", re.IGNORECASE)
_CONJUNCTION = re.compile(r"[和与及跟]")
_SPACES = re.compile(r"\s+")


def _contains(text: str, name: str) -> bool:
    """Whether a platform or keyword name occurs in the lowercase text (English names as whole words)."""
    return _find(text, name) is not None


def _find(text: str, name: str) -> int | None:
    """Where a name first occurs in the lowercase text; an English name only as a whole word (plural and -ing
    forms allowed: "workers" names "work", "workout" does not)."""
    if name.isascii():
        match = re.search(rf"(?<![a-z]){re.escape(name)}(?:s|es|er|ers|ing)?(?![a-z])", text)
        return match.start() if match is not None else None
    position = text.find(name)
    return position if position >= 0 else None


def platform_named(text: str) -> Platform | None:
    """The platform a text names (an option id, a Chinese or English name), the earliest one when it names several."""
    lowered = text.strip().lower()
    if not lowered:
        return None
    for platform, _ in _PLATFORM_NAMES:
        if lowered == platform:
            return platform
    found: list[tuple[int, int, Platform]] = []
    for order, (platform, names) in enumerate(_PLATFORM_NAMES):
        for name in names:
            position = _find(lowered, name)
            if position is not None:
                found.append((position, order, platform))
    return min(found)[2] if found else None


def audience_for(topic: str) -> str:
    """The audience the topic's words point to, else the default reader."""
    lowered = topic.lower()
    for words, audience in AUDIENCES:
        if any(_contains(lowered, word) for word in words):
            return audience
    return DEFAULT_AUDIENCE


def _clean(text: str, limit: int = MESSAGE_CHARS) -> str:
    return clip(_SPACES.sub(" ", text).strip(" \t\n。.！!？?，,；;：:"), limit)


def topic_aspects(topic: str) -> list[str]:
    """The topic split into its aspects: at punctuation and English conjunctions, and at 和/与/及/跟 where both
    sides are words of at least two characters ("咖啡与甜点" → 咖啡, 甜点; "参与者" stays whole)."""
    aspects: list[str] = []
    for part in _ASPECT_SPLIT.split(topic):
        part = part.strip()
        if not part:
            continue
        pieces = [part]
        if not part.isascii():
            halves = _CONJUNCTION.split(part)
            if len(halves) > 1 and all(len(half.strip()) >= 2 for half in halves):
                pieces = [half.strip() for half in halves]
        aspects += [_clean(piece) for piece in pieces if _clean(piece)]
    unique: list[str] = []
    for aspect in aspects:
        if aspect.lower() not in (u.lower() for u in unique):
            unique.append(aspect)
    return unique


def topic_core(topic: str) -> str:
    """The topic's first aspect, short enough to name it in a sentence (an English one whole, else "this topic")."""
    aspects = topic_aspects(topic)
    first = _clean(aspects[0] if aspects else topic, 500)
    if written_in_english(first):
        return first if len(first) <= CORE_CHARS_EN else "this topic"
    return clip(first, CORE_CHARS) or "这个话题"


_CLAUSE = re.compile(r"[，,。；;！!？?\n]+")
_PROCESS_WORDS = re.compile(
    r"brief|agent|编译|生成|撰写|写作|正文|文案|输出|确认|用户|请|重新|\b(?:write|generate|compile|output|user)\b",
    re.IGNORECASE,
)
_LEAD_VERBS = re.compile(
    r"^(?:请|重点|着重|需要|要|多)?(?:强调|突出|围绕|聚焦|讲清楚|讲讲|说明|介绍|补充|加入|体现|提到|覆盖)"
    r"|^(?:emphasi[sz]e|highlight|focus on|stress|mention|cover|include)\s+",
    re.IGNORECASE,
)


def guidance_messages(guidance: str) -> list[str]:
    """What the Supervisor's guidance asks the post to say: its clauses that are about content (not about the
    work itself: "基于 brief 生成正文"), with a leading 强调/突出/focus on removed; at most two."""
    messages: list[str] = []
    for clause in _CLAUSE.split(guidance):
        clause = clause.strip()
        if not clause or _PROCESS_WORDS.search(clause):
            continue
        message = _clean(_LEAD_VERBS.sub("", clause).strip())
        if len(message) >= 2:
            messages.append(message)
    return messages[:2]


def _padding(core: str, audience: str, english: bool) -> list[str]:
    """Angles on the topic for a brief with too few messages; only the first names the topic, so the headings do
    not all echo it."""
    if english:
        return ["Why it is worth doing", "The steps that work", "Mistakes to avoid", "What changed for me"]
    reader = "读者" if audience == DEFAULT_AUDIENCE else audience
    return [f"为什么{core}值得关注", "关键方法与步骤", f"{reader}最容易踩的坑", "真实体验与效果"]


def _resolve_platform(request: AgentRequest) -> tuple[Platform | None, str]:
    """The platform and where it came from (`run`, `answer`, `topic`), or (None, "")."""
    if request.view.platform is not None:
        return request.view.platform, "run"
    for answer in request.answers:
        if answer.key == PLATFORM_KEY:
            named = platform_named(answer.answer)
            if named is not None:
                return named, "answer"
    named = platform_named(request.view.topic)
    return (named, "topic") if named is not None else (None, "")


def _key_messages(request: AgentRequest, audience: str) -> list[str]:
    topic = request.view.topic
    core = topic_core(topic)
    aspects = topic_aspects(topic)
    general: list[str] = aspects[:3] if len(aspects) > 1 else []
    reserved: list[str] = guidance_messages(request.guidance)
    reserved += [_clean(a.answer) for a in request.answers if a.key != PLATFORM_KEY and _clean(a.answer)]

    def unique(messages: list[str]) -> list[str]:
        kept: list[str] = []
        for message in messages:
            if message and message.lower() not in (k.lower() for k in kept):
                kept.append(message)
        return kept

    reserved = unique(reserved)[:MAX_MESSAGES]
    general = [m for m in unique(general) if m.lower() not in (r.lower() for r in reserved)]
    messages = general[: MAX_MESSAGES - len(reserved)] + reserved
    for pad in _padding(core, audience, written_in_english(topic)):
        if len(messages) >= MIN_MESSAGES:
            break
        if pad.lower() not in (m.lower() for m in messages):
            messages.append(pad)
    return messages[:MAX_MESSAGES]


def compile_brief(request: AgentRequest) -> AgentOutcome:
    """The offline brief (see the module): a clarification about the platform first when it is unknown and may be
    asked; otherwise a patch writing only `creative_brief`."""
    platform, origin = _resolve_platform(request)
    assumptions: list[str] = []
    if platform is None:
        if request.may_ask and PLATFORM_KEY not in request.asked:
            return AgentOutcome(
                summary="需要先确认发布平台，才能定下篇幅、语气和配图比例。",
                clarification=Clarification(key=PLATFORM_KEY, question=PLATFORM_QUESTION, options=PLATFORM_OPTIONS),
            )
        platform = DEFAULT_PLATFORM
        assumptions.append(f"未指定发布平台，默认按{PLATFORM_LABELS[platform]}创作")
    topic = _clean(request.view.topic, 500) or request.view.topic.strip() or "未命名话题"
    audience = audience_for(topic)
    brief = CreativeBrief(
        topic=topic,
        platform=platform,
        audience=audience,
        tone=TONES[platform],
        key_messages=_key_messages(request, audience),
        call_to_action=(CALLS_TO_ACTION_EN if written_in_english(topic) else CALLS_TO_ACTION)[platform],
        assumptions=assumptions,
    )
    where = {"run": "", "answer": "（按你的回答）", "topic": "（从话题推断）"}.get(origin, "（默认）")
    summary = (
        f"已编译 Brief：发布平台{PLATFORM_LABELS[platform]}{where}，目标读者{audience}，语气{brief.tone}，"
        f"{len(brief.key_messages)} 条核心信息：{'；'.join(brief.key_messages)}。"
    )
    if assumptions:
        summary += f"假设：{'；'.join(assumptions)}。"
    return AgentOutcome(patch=StatePatch(creative_brief=brief), summary=summary[:1000])
