"""sse_events (llm/sse.py): byte chunks cut anywhere become (event, data) records by the EventSource line rules —
LF, CR and CRLF line ends (even a CRLF cut between chunks, but not U+2028), UTF-8 characters cut between chunks,
multi-line data, comments and `id:`/`retry:` dropped, one leading space stripped, and an open event dispatched at
stream end. Realistic streams are fed cut at every split point and must parse the same each time."""

from collections.abc import AsyncIterator, Iterable

import pytest

from llm.sse import SseEvent, sse_events


async def chunked(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def parse(*chunks: bytes) -> list[SseEvent]:
    return [event async for event in sse_events(chunked(chunks))]


async def assert_every_split_parses_as(stream: bytes, expected: list[SseEvent]) -> None:
    """Feeds `stream` whole, byte by byte, and cut in two at every split point; each must give `expected`."""
    assert await parse(stream) == expected
    assert await parse(*(stream[i : i + 1] for i in range(len(stream)))) == expected
    for cut in range(len(stream) + 1):
        assert await parse(stream[:cut], stream[cut:]) == expected, f"cut at byte {cut}: {stream[:cut]!r}"


def message(data: str, event: str | None = None) -> SseEvent:
    return SseEvent(event=event, data=data)


ANTHROPIC_LIKE = (
    "event: message_start\n"
    'data: {"type":"message_start","message":{"id":"msg_1"}}\n'
    "\n"
    ": keep-alive\n"
    "\n"
    "event: content_block_delta\n"
    'data: {"type":"content_block_delta","delta":{"text":"杭州 \u2028 ok"}}\n'
    "\n"
    "event: ping\n"
    "data: {}\n"
    "\n"
    "event: message_stop\n"
    'data: {"type":"message_stop"}\n'
    "\n"
)
ANTHROPIC_LIKE_EVENTS = [
    message('{"type":"message_start","message":{"id":"msg_1"}}', "message_start"),
    message('{"type":"content_block_delta","delta":{"text":"杭州 \u2028 ok"}}', "content_block_delta"),
    message("{}", "ping"),
    message('{"type":"message_stop"}', "message_stop"),
]

OPENAI_LIKE = (
    "id: 1\n"
    'data: {"choices":[{"delta":{"content":"Grüße"}}]}\n'
    "\n"
    "retry: 3000\n"
    'data: {"choices":[{"delta":{"content":"😀"}}]}\n'
    "\n"
    "data: [DONE]\n"
    "\n"
)
OPENAI_LIKE_EVENTS = [
    message('{"choices":[{"delta":{"content":"Grüße"}}]}'),
    message('{"choices":[{"delta":{"content":"😀"}}]}'),
    message("[DONE]"),
]


@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize(
    ("text", "expected"),
    [(ANTHROPIC_LIKE, ANTHROPIC_LIKE_EVENTS), (OPENAI_LIKE, OPENAI_LIKE_EVENTS)],
    ids=["anthropic-like", "openai-like"],
)
async def test_realistic_stream_parses_the_same_at_every_split(
    text: str, expected: list[SseEvent], line_end: str
) -> None:
    stream = text.replace("\n", line_end).encode()

    await assert_every_split_parses_as(stream, expected)


async def test_event_and_data() -> None:
    assert await parse(b"event: delta\ndata: hello\n\n") == [message("hello", "delta")]


async def test_event_without_event_field_has_no_name() -> None:
    assert await parse(b"data: hello\n\n") == [message("hello")]


async def test_event_name_does_not_leak_into_the_next_event() -> None:
    assert await parse(b"event: a\ndata: 1\n\ndata: 2\n\n") == [message("1", "a"), message("2")]


async def test_multi_line_data_is_joined_with_newlines() -> None:
    stream = b"data: first\ndata: second\ndata:\ndata: fourth\n\n"

    assert await parse(stream) == [message("first\nsecond\n\nfourth")]


async def test_comments_are_ignored() -> None:
    stream = b": hello\ndata: a\n:another comment\ndata: b\n\n:\n\n"

    assert await parse(stream) == [message("a\nb")]


async def test_id_and_retry_fields_are_ignored() -> None:
    stream = b"id: 42\nretry: 1000\nevent: e\ndata: x\nid: 43\n\nid: 44\nretry: 5\n\n"

    assert await parse(stream) == [message("x", "e")]


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
async def test_line_ends(line_end: bytes) -> None:
    stream = b"event: e" + line_end + b"data: 1" + line_end + b"data: 2" + line_end + line_end + b"data: 3" + line_end
    stream += line_end

    assert await parse(stream) == [message("1\n2", "e"), message("3")]


async def test_mixed_line_ends_in_one_stream() -> None:
    stream = b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\rdata: e\n\n"

    assert await parse(stream) == [message("a\nb\nc"), message("d"), message("e")]


async def test_crlf_split_across_chunks_is_one_line_end() -> None:
    assert await parse(b"data: a\r", b"\ndata: b\r\n\r\n") == [message("a\nb")]
    assert await parse(b"data: a\r\n\r", b"\ndata: b\r\n\r\n") == [message("a"), message("b")]


async def test_lone_cr_at_chunk_end_followed_by_other_text() -> None:
    assert await parse(b"data: a\r", b"data: b\r", b"\r") == [message("a\nb")]


async def test_multibyte_character_split_across_chunks() -> None:
    encoded = "data: 杭\n\n".encode()
    start = encoded.index("杭".encode())

    for cut in range(start + 1, start + 3):  # inside the three UTF-8 bytes of 杭
        assert await parse(encoded[:cut], encoded[cut:]) == [message("杭")]
    assert await parse(*(encoded[i : i + 1] for i in range(len(encoded)))) == [message("杭")]


async def test_u2028_and_u2029_are_not_line_ends() -> None:
    stream = 'data: {"text":"a\u2028b\u2029c\x85d"}\n\n'.encode()

    assert await parse(stream) == [message('{"text":"a\u2028b\u2029c\x85d"}')]


@pytest.mark.parametrize("tail", [b"", b"\n", b"\r\n", b"\r"], ids=["no-line-end", "lf", "crlf", "cr"])
async def test_open_event_is_dispatched_at_stream_end(tail: bytes) -> None:
    stream = b"data: first\n\nevent: last\ndata: second" + tail

    await assert_every_split_parses_as(stream, [message("first"), message("second", "last")])


@pytest.mark.parametrize(
    ("line", "data"),
    [
        (b"data:x", "x"),
        (b"data: x", "x"),
        (b"data:  x", " x"),
        (b"data: x ", "x "),
        (b"data:", ""),
        (b"data: ", ""),
        (b"data", ""),
        (b"data: a: b", "a: b"),
    ],
)
async def test_one_leading_space_is_stripped(line: bytes, data: str) -> None:
    assert await parse(line + b"\n\n") == [message(data)]


async def test_event_name_without_space() -> None:
    assert await parse(b"event:delta\ndata:x\n\n") == [message("x", "delta")]


async def test_blank_lines_without_data_dispatch_nothing() -> None:
    assert await parse(b"\n\n\n") == []
    assert await parse(b"\r\n\r\n") == []
    assert await parse(b"event: ping\n\n: comment\n\nid: 1\n\n") == []
    assert await parse(b"") == []
    assert await parse() == []


async def test_unknown_fields_are_ignored() -> None:
    assert await parse(b"foo: bar\ndata: x\nDATA: y\n\n") == [message("x")]


async def test_empty_chunks_are_harmless() -> None:
    assert await parse(b"", b"data: a\r", b"", b"\n", b"", b"\r\n", b"") == [message("a")]


async def test_crlf_split_then_blank_line_in_its_own_chunk() -> None:
    assert await parse(b"data: a\r", b"\n", b"\ndata: b\n\n") == [message("a"), message("b")]


async def test_a_leading_byte_order_mark_is_dropped_even_split() -> None:
    assert await parse(b"\xef\xbb", b"\xbfdata: a\n\n") == [message("a")]
    assert await parse(b"data: \xef\xbb\xbfa\n\n") == [message("\ufeffa")]  # only at the start of the stream


async def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert await parse(b"data: \xff\n\n") == [message("\ufffd")]
