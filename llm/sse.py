"""Server-sent events: turns a byte stream into (event, data) records, as the WHATWG EventSource rules say.

Lines end in LF, CR or CRLF (and only those: JSON may carry U+2028 raw) and arrive cut anywhere, even inside a
UTF-8 character or between the CR and LF of one line end; `data:` lines of one event are joined with newlines;
comments (`:`) and `id:`/`retry:` fields are dropped; an event still open when the stream ends is dispatched;
a leading byte-order mark is dropped and invalid UTF-8 becomes U+FFFD.
"""

import codecs
import re
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field

LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event: its `event:` name (None when it had none) and its `data:` lines joined by newlines."""

    event: str | None
    data: str


@dataclass
class _PendingEvent:
    event: str | None = None
    data: list[str] = field(default_factory=list)

    def take(self) -> SseEvent | None:
        ready = SseEvent(self.event, "\n".join(self.data)) if self.data else None
        self.event, self.data = None, []
        return ready

    def add_line(self, line: str) -> None:
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self.data.append(value)
        elif name == "event":
            self.event = value


async def sse_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[SseEvent]:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buffer = ""
    skip_lf = False
    at_start = True
    pending = _PendingEvent()
    async for chunk in chunks:
        text = decoder.decode(chunk)
        if at_start and text:
            text, at_start = text.removeprefix("\ufeff"), False
        if skip_lf and text.startswith("\n"):
            text, skip_lf = text[1:], False
        if text:
            skip_lf = text.endswith("\r")
        *lines, buffer = LINE_END.split(buffer + text)
        for line in lines:
            if line == "":
                if (ready := pending.take()) is not None:
                    yield ready
            else:
                pending.add_line(line)
    buffer += decoder.decode(b"", final=True)
    if buffer:
        pending.add_line(buffer)
    if (ready := pending.take()) is not None:
        yield ready
