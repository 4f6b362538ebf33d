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
_WRITTEN = re.compile("|".join(re.escape(form) for form in sorted(SPOKEN_FORMS, key=len, reverse=True)))
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.\s)")


SAID = {
    False: {
        "spoken": "改成口语：替换了 {count} 处书面词",
        "no_spoken": "没有找到可以换成口语的书面词",
        "shorter": "精简：保留前 {kept} 句（共 {total} 句）",
        "one_sentence": "只有一句，无法再精简",
        "unknown": "看不懂「{instruction}」（只会精简和改口语）",
        "kept": "离线改写（未配置大模型）没有改动这一段：{why}。保留原文；配置 LLM 后可按要求改写",
        "done": "离线改写（未配置大模型）：{what}",
        "failed_kept": "大模型调用失败，离线改写没有改动这一段：{why}。保留原文；稍后可再试",
        "failed_done": "大模型调用失败，改用离线改写：{what}",
        "and": "；",
    },
    True: {
        "spoken": "more spoken: {count} written words replaced",
        "no_spoken": "no written words to make spoken",
        "shorter": "shorter: kept the first {kept} of {total} sentences",
        "one_sentence": "one sentence only: cannot shorten it",
        "unknown": 'cannot do "{instruction}" (it can only shorten or make text more spoken)',
        "kept": "Offline rewrite (no model configured) left this section as it was: {why}. Configure an LLM to "
        "rewrite by any instruction",
        "done": "Offline rewrite (no model configured): {what}",
        "failed_kept": "The model failed, and the offline rewrite left this section as it was: {why}. Try again later",
        "failed_done": "The model failed; rewritten offline: {what}",
        "and": "; ",
    },
}
"""What the offline rewrite says, in Chinese and in English (the post's language)."""


def rewrite_offline(
    text: str, instruction: str, *, english: bool = False, model_failed: bool = False
) -> SectionRewrite:
    """`text` rewritten by the rules `instruction` names, or kept (with `applied` false) when it names none; what
    was done is said in the post's language (`english`), and why offline: no model configured, or it failed."""
    said = SAID[english]
    asked = instruction.lower()
    result, done = text, []
    if any(word in asked for word in SPOKEN_WORDS):
        result, count = _spoken(result)
        done.append(said["spoken"].format(count=count) if count else said["no_spoken"])
    if any(word in asked for word in SHORTER_WORDS):
        result, kept, total = _shorter(result)
        done.append(said["shorter"].format(kept=kept, total=total) if kept < total else said["one_sentence"])
    if result == text:
        why = said["and"].join(done) or said["unknown"].format(instruction=instruction[:40])
        unchanged = said["failed_kept" if model_failed else "kept"]
        return SectionRewrite(text=text, applied=False, note=unchanged.format(why=why)[:300], offline=True)
    note = said["failed_done" if model_failed else "done"].format(what=said["and"].join(done))
    return SectionRewrite(text=result, applied=True, note=note[:300], offline=True)


def _spoken(text: str) -> tuple[str, int]:
    """One pass, the longest written form first where two start at one place (it is not → it's not)."""
    return _WRITTEN.subn(lambda match: SPOKEN_FORMS[match.group(0)], text)


def _shorter(text: str) -> tuple[str, int, int]:
    sentences = [sentence for sentence in _SENTENCE_END.split(text) if sentence.strip()]
    if len(sentences) < 2:
        return text, len(sentences), len(sentences)
    kept, length = 0, 0
    while kept < len(sentences) - 1 and length < len(text) / 2:
        length += len(sentences[kept])
        kept += 1
    return "".join(sentences[:kept]).rstrip(), kept, len(sentences)
