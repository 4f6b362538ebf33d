"""A chapter's short summary (seed 002 Req 5.2), made by the project store whenever a chapter's text changes and
kept with the chapter and its version; the planner and the consistency check read the chapter list with these
instead of every chapter's text (Req 11.3).

The summary is extractive and deterministic (no model is called when a chapter is saved): the chapter's opening
sentence, then the sentences that best carry the chapter's most frequent terms (two-character runs of Chinese,
words of other scripts), in the order they appear, within `SUMMARY_CHARS`. A sentence repeating what an earlier
pick said adds nothing and is skipped. Pure."""

import re
from collections import Counter

SUMMARY_CHARS = 160
"""At most this many characters (a sentence longer than what is left is cut, with an ellipsis)."""
MAX_SENTENCES = 3

_SENTENCE_END = re.compile(r"(?:[。！？!?]+|\.(?=\s|$))[”’」』）)\"']*")
_CJK = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[^\W\d_\u3400-\u9fff]{3,}")


def summarize(content: str) -> str:
    """The chapter's summary; empty for a chapter without text."""
    sentences = _sentences(content)
    if not sentences:
        return ""
    frequency = Counter(term for sentence in sentences for term in set(_terms(sentence)))
    scores = {index: _score(sentence, frequency) for index, sentence in enumerate(sentences)}
    ranked = sorted(range(1, len(sentences)), key=lambda index: (-scores[index], index))
    chosen = [0]
    used = len(sentences[0])
    covered = set(_terms(sentences[0]))
    for index in ranked:
        if len(chosen) == MAX_SENTENCES or used >= SUMMARY_CHARS:
            break
        terms = set(_terms(sentences[index]))
        if terms <= covered or used + len(sentences[index]) > SUMMARY_CHARS:
            continue
        chosen.append(index)
        used += len(sentences[index])
        covered |= terms
    summary = "".join(_joined(sentences[index]) for index in sorted(chosen)).strip()
    return summary if len(summary) <= SUMMARY_CHARS else summary[: SUMMARY_CHARS - 1] + "…"


def _sentences(content: str) -> list[str]:
    pieces: list[str] = []
    for line in content.splitlines():
        start = 0
        for end in [match.end() for match in _SENTENCE_END.finditer(line)] + [len(line)]:
            pieces.append(line[start:end].strip())
            start = end
    return [piece for piece in pieces if piece]


def _terms(sentence: str) -> list[str]:
    lowered = sentence.casefold()
    pairs = [run[i : i + 2] for run in _CJK.findall(lowered) for i in range(max(len(run) - 1, 1))]
    return pairs + _WORD.findall(lowered)


def _score(sentence: str, frequency: Counter[str]) -> float:
    """The mean frequency of the sentence's terms that recur (a term said once carries nothing)."""
    terms = _terms(sentence)
    return sum(frequency[term] for term in terms if frequency[term] > 1) / (len(terms) + 4) if terms else 0.0


def _joined(sentence: str) -> str:
    """A sentence as it joins the next: a space after one in a spaced script."""
    return sentence if _CJK.search(sentence[-1:]) or sentence[-1:] in "。！？”’」』）" else sentence + " "
