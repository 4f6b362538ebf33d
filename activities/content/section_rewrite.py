"""The offline rewrite of one text section by a user's instruction (no model): honest rules, labelled offline.

It understands two kinds of instruction and says so when it met neither:
- shorter (精简, 短一点, 压缩, shorter, concise, ...): the section keeps its first sentences, about half of it;
- more spoken (口语, 轻松, 接地气, casual, conversational, ...): written words become their spoken forms (因此 → 所以,
  您 → 你, do not → don't, ...).
Anything else (a longer text needs facts it does not have; a new angle needs a model) keeps the text as it is, and
the answer says it could not, never a made-up rewrite. Pure."""

import re

from models.content.edits import SectionRewrite

SHORTER_WORDS = (
    "精简",
    "简短",
    "短一点",
    "短一些",
    "更短",
    "缩短",
    "压缩",
    "删减",
    "简洁",
    "shorter",
    "concise",
    "shorten",
    "trim",
    "brief",
)
SPOKEN_WORDS = ("口语", "轻松", "随意", "接地气", "聊天", "casual", "conversational", "informal", "spoken", "chatty")
SPOKEN_FORMS = {
    "因此": "所以",
    "然而": "不过",
    "您": "你",
    "并且": "而且",
    "是否": "是不是",
    "例如": "比如",
    "尽管": "虽然",
    "此外": "另外",
    "目前": "现在",
    "如何": "怎么",
    "无法": "没法",
    "非常": "特别",
    "do not": "don't",
    "does not": "doesn't",
    "cannot": "can't",
    "is not": "isn't",
    "are not": "aren't",
    "will not": "won't",
    "it is": "it's",
    "you are": "you're",
    "we are": "we're",
    "However,": "But",
    "Therefore,": "So",
    "In addition,": "Also,",
}
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.\s)")


def rewrite_offline(text: str, instruction: str) -> SectionRewrite:
    """`text` rewritten by the rules `instruction` names, or kept (with `applied` false) when it names none."""
    asked = instruction.lower()
    result, done = text, []
    if any(word in asked for word in SPOKEN_WORDS):
        result, replaced = _spoken(result)
        done.append(f"改成口语：替换了 {replaced} 处书面词" if replaced else "没有找到可以换成口语的书面词")
    if any(word in asked for word in SHORTER_WORDS):
        result, kept, total = _shorter(result)
        done.append(f"精简：保留前 {kept} 句（共 {total} 句）" if kept < total else "只有一句，无法再精简")
    if result == text:
        why = "；".join(done) or f"看不懂「{instruction[:40]}」（只会精简和改口语）"
        note = f"离线改写（未配置大模型）没有改动这一段：{why}。保留原文；配置 LLM 后可按要求改写"
        return SectionRewrite(text=text, applied=False, note=note[:300], offline=True)
    note = f"离线改写（未配置大模型）：{'；'.join(done)}"
    return SectionRewrite(text=result, applied=True, note=note[:300], offline=True)


def _spoken(text: str) -> tuple[str, int]:
    replaced = 0
    for written, spoken in SPOKEN_FORMS.items():
        replaced += text.count(written)
        text = text.replace(written, spoken)
    return text, replaced


def _shorter(text: str) -> tuple[str, int, int]:
    sentences = [sentence for sentence in _SENTENCE_END.split(text) if sentence.strip()]
    if len(sentences) < 2:
        return text, len(sentences), len(sentences)
    kept, length = 0, 0
    while kept < len(sentences) - 1 and length < len(text) / 2:
        length += len(sentences[kept])
        kept += 1
    return "".join(sentences[:kept]).rstrip(), kept, len(sentences)
