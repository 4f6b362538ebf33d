"""Reasoning kept out of an answer's text: `<think>…</think>` blocks that reasoning models served by vLLM or Ollama
(Qwen3, DeepSeek-R1) write into the content itself.

`strip_reasoning(text)` for a whole answer; `ThinkFilter` for a stream, whose tags may arrive split across chunks.
A block still open when the answer ends (the model was cut off while thinking) is dropped too, and the
whitespace that follows a closed block is not text. Reasoning a protocol sends apart (`reasoning_content`,
Anthropic `thinking` blocks, Gemini thought parts) never reaches the text in the first place: the adapters skip
it. Either way the reasoning is dropped, never kept, so no stored text can carry it.
"""

OPEN, CLOSE = "<think>", "</think>"


def strip_reasoning(text: str) -> str:
    """`text` without its `<think>` blocks (closed or not)."""
    if OPEN not in text:
        return text
    think = ThinkFilter()
    return think.feed(text) + think.finish()


class ThinkFilter:
    """Feed a stream's text deltas in order; each call returns the visible text it can already vouch for (a
    possible start of a tag is held back until the next delta tells)."""

    def __init__(self) -> None:
        self._pending = ""
        self._inside = False
        self._after_block = False

    @property
    def inside(self) -> bool:
        """Whether the text so far ends inside a `<think>` block."""
        return self._inside

    def feed(self, delta: str) -> str:
        self._pending += delta
        visible: list[str] = []
        while self._pending:
            tag = CLOSE if self._inside else OPEN
            found = self._pending.find(tag)
            if found >= 0:
                if not self._inside:
                    visible.append(self._visible(self._pending[:found]))
                self._pending = self._pending[found + len(tag) :]
                self._inside = not self._inside
                self._after_block = not self._inside
                continue
            keep = _partial_tag_length(self._pending, tag)
            if not self._inside:
                visible.append(self._visible(self._pending[: len(self._pending) - keep]))
            self._pending = self._pending[len(self._pending) - keep :]
            break
        return "".join(visible)

    def finish(self) -> str:
        """The text held back at the end of the answer (nothing if it ends inside a block)."""
        rest, self._pending = ("" if self._inside else self._pending), ""
        return self._visible(rest)

    def _visible(self, text: str) -> str:
        if self._after_block and text:
            text = text.lstrip()
            self._after_block = not text
        return text


def _partial_tag_length(text: str, tag: str) -> int:
    """The length of the longest end of `text` that is the start of `tag`."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
