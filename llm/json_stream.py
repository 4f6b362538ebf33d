"""The string values of a JSON answer while it is written: `JsonStrings` reads a stream's text deltas and hands
out each string value's decoded characters as they arrive, with where in the document the value sits.

    strings = JsonStrings()
    strings.feed('{"options": [{"title": "怀表')   → [StringPiece(("options", 0, "title"), "怀表", first=True)]
    strings.feed('里的胶卷"}')                      → [StringPiece(("options", 0, "title"), "里的胶卷", last=True)]

A path is the keys and list indices from the top-level value down to the string (a list of strings: the index is
the last element). Keys are never pieces; numbers, booleans and null are skipped. Reading starts at the first `{`
or `[` of the text (prose or a code fence before it is not JSON) and stops when that value closes (a note after
it is not JSON either); the next answer needs a new `JsonStrings`. It does not validate: a trailing comma or
a value cut off mid-way only ends what it hands out; `llm.json_output.parse_model` decides what the answer is.
"""

import json
from dataclasses import dataclass, field

Path = tuple[str | int, ...]
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True)
class StringPiece:
    """Decoded characters of one string value: `first` on the value's first piece, `last` on its final one (a
    value may be one piece with both, or an empty `text` that only opens or closes it)."""

    path: Path
    text: str
    first: bool = False
    last: bool = False


@dataclass
class _Frame:
    """One open object or array: the key or index its current member sits at."""

    is_object: bool
    key: str | int = 0
    expect_key: bool = True


@dataclass
class JsonStrings:
    """Feed a JSON answer's text deltas in order; each call returns the string pieces they complete."""

    _stack: list[_Frame] = field(default_factory=list)
    _started: bool = False
    _ended: bool = False
    _in_string: bool = False
    _string_is_key: bool = False
    _string_started: bool = False
    _escape: str | None = None
    """The escape sequence being read (after its backslash), None outside one."""
    _high_surrogate: str = ""
    _buffer: list[str] = field(default_factory=list)

    def feed(self, delta: str) -> list[StringPiece]:
        pieces: list[StringPiece] = []
        for char in delta:
            if self._ended:
                break
            if self._in_string:
                self._string_char(char, pieces)
            elif not self._started:
                if char in "{[":
                    self._started = True
                    self._open(char)
            else:
                self._structural(char)
        if self._in_string and not self._string_is_key and self._buffer:
            pieces.append(self._piece(last=False))
        return pieces

    def _open(self, char: str) -> None:
        self._stack.append(_Frame(is_object=char == "{"))

    def _structural(self, char: str) -> None:
        frame = self._stack[-1]
        if char == '"':
            self._in_string, self._string_started = True, False
            self._string_is_key = frame.is_object and frame.expect_key
        elif char in "{[":
            self._open(char)
        elif char in "}]":
            self._stack.pop()
            self._ended = not self._stack
        elif char == ",":
            if frame.is_object:
                frame.expect_key = True
            elif isinstance(frame.key, int):
                frame.key += 1

    def _string_char(self, char: str, pieces: list[StringPiece]) -> None:
        if self._escape is not None:
            self._escape += char
            decoded = self._escaped(self._escape)
            if decoded is not None:
                self._escape = None
                self._buffer.append(decoded)
            return
        if char == "\\":
            self._escape = ""
        elif char == '"':
            self._in_string = False
            if self._string_is_key:
                frame = self._stack[-1]
                frame.key, frame.expect_key = "".join(self._buffer), False
                self._buffer = []
            else:
                pieces.append(self._piece(last=True))
        else:
            self._buffer.append(char)

    def _escaped(self, sequence: str) -> str | None:
        """The text an escape sequence stands for once it is complete ("" for half a surrogate pair), else None."""
        if sequence[0] != "u":
            return _ESCAPES.get(sequence[0], sequence[0])
        if len(sequence) < 5:
            return None
        code = int(sequence[1:5], 16) if all(c in "0123456789abcdefABCDEF" for c in sequence[1:5]) else 0xFFFD
        if 0xD800 <= code < 0xDC00:
            self._high_surrogate = sequence[:5]
            return ""
        if 0xDC00 <= code < 0xE000 and self._high_surrogate:
            pair, self._high_surrogate = f'"\\{self._high_surrogate}\\{sequence[:5]}"', ""
            decoded: str = json.loads(pair)
            return decoded
        return chr(code) if not 0xD800 <= code < 0xE000 else "\ufffd"

    def _piece(self, *, last: bool) -> StringPiece:
        path = tuple(frame.key for frame in self._stack)
        piece = StringPiece(path, "".join(self._buffer), first=not self._string_started, last=last)
        self._buffer, self._string_started = [], True
        return piece
