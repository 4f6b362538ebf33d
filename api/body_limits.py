"""Each route's body limit, derived from the body its model accepts, and the middleware that holds bodies to it.

A route's limit is the largest JSON any encoder writes for a body its model accepts (`largest_json`), plus
`ENVELOPE_BYTES`: every string at its longest (`STRING_CHAR_BYTES` a character: an astral character written as
the `\\ud83d\\ude00` escape of its surrogate pair), every list at its longest, every optional field present, numbers
in their longest shortest form, with Python's `", "` and `": "` separators. It is computed once, when the app is
built, from the routes' OpenAPI request bodies (`RouteLimits.of`), so a field's `max_length` is the only limit to
change; a route whose body has no such bound (a string without `maxLength`, a list without `maxItems`, a free-form
object) is refused when the app is built (`UnboundedBody`), not discovered by a client. A route whose body is not
described by its schema (`POST /v1/runs`, whose `input` is the named workflow's) states its limit in the
`x-max-body-bytes` extension of its request body; raw uploads are in `RAW_BODY_LIMITS`; a route with no body gets
`NO_BODY_BYTES`. Every request body in `/openapi.json` carries its route's limit as `x-max-body-bytes`.

`BodyLimitMiddleware` holds every request to its route's limit while the body arrives: a declared
`Content-Length` over it is refused before a byte is read, and a body that grows past it is refused at that chunk
(413 `INPUT_TOO_LARGE`), so no request can make the gateway hold more than its route allows.
"""

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.slow_clients import BODY_IDLE_SECONDS, BODY_SECONDS
from stores.blob_refs import MAX_IMAGE_BYTES

STRING_CHAR_BYTES = 12
"""The longest a string's character can be written: an astral character as a surrogate-pair escape (a BMP
character's `\\uXXXX` is 6, its UTF-8 at most 3)."""
ASCII_CHAR_BYTES = 2
"""The longest a character of a string whose pattern admits only printable ASCII, tabs and line breaks can be
written (`\\"`, `\\n`): an ASCII character an encoder writes as a `\\u` escape is a control character."""
_ASCII_PATTERN = re.compile(r"^\^\[(?!\^)(?:[ -\[^-~]|\\[tnr-])*\](?:\*|\+|\{(?:\d+,)?(\d+)\})\$$")
"""`^[...]{m,n}$` (or `*`, `+`) over a class of printable ASCII (`\\t`, `\\n`, `\\r`, `\\-` the only escapes): the
pattern of an id or a Base64 field. Group 1: the most characters it admits, if it says."""
NUMBER_BYTES = 25
"""The longest shortest form of a double an encoder writes (JavaScript's `-0.0000012345678901234567`)."""
SEPARATOR_BYTES = 2
"""`", "` between members and items, `": "` after a key (Python's `json.dumps` default; compact is shorter)."""
ENVELOPE_BYTES = 16 * 1024
"""Room for what the worst case leaves out: whitespace around the document, a pretty printer's first levels."""
NO_BODY_BYTES = 64 * 1024
"""A route that declares no body (a cancel, a delete): what a client may send anyway."""
RAW_BODY_LIMITS = {("POST", "/v1/blobs"): MAX_IMAGE_BYTES}
"""Routes whose body is not JSON: an upload is at most the largest image the gateway takes."""
MAX_BODY_EXTENSION = "x-max-body-bytes"


class UnboundedBody(ValueError):
    """A body schema with no largest instance (a route must bound every string, list and object it takes)."""


def largest_json(schema: dict[str, Any], definitions: dict[str, Any], where: str = "body") -> int:
    """The most bytes any encoder writes for a value `schema` accepts; `definitions` resolves its `$ref`s."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if f"/{name}/" in f"{where}/":
            raise UnboundedBody(f"{where}: {name} contains itself")
        return largest_json(definitions[name], definitions, f"{where}/{name}")
    for combined in ("anyOf", "oneOf", "allOf"):
        if combined in schema:
            return max(largest_json(option, definitions, where) for option in schema[combined])
    if "const" in schema:
        return _largest_literal([schema["const"]])
    if "enum" in schema:
        return _largest_literal(schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return max(largest_json({**schema, "type": one}, definitions, where) for one in kind)
    if kind == "null":
        return 4
    if kind == "boolean":
        return 5
    if kind == "integer" and "minimum" in schema and "maximum" in schema:
        return max(len(str(int(schema["minimum"]))), len(str(int(schema["maximum"]))))
    if kind == "number":
        return NUMBER_BYTES
    if kind == "string":
        ascii_only = _ASCII_PATTERN.match(schema.get("pattern", ""))
        length = schema.get("maxLength", ascii_only and ascii_only[1])
        if length is not None:
            return 2 + (ASCII_CHAR_BYTES if ascii_only else STRING_CHAR_BYTES) * int(length)
    if kind == "array" and "maxItems" in schema:
        count = int(schema["maxItems"])
        item = largest_json(schema.get("items", {}), definitions, f"{where}[]") if count else 0
        return 2 + count * item + max(count - 1, 0) * SEPARATOR_BYTES
    if kind == "object" and not schema.get("additionalProperties", False):  # absent: extra members are ignored
        members = [
            len(json.dumps(key)) + SEPARATOR_BYTES + largest_json(value, definitions, f"{where}.{key}")
            for key, value in schema.get("properties", {}).items()
        ]
        return 2 + sum(members) + max(len(members) - 1, 0) * SEPARATOR_BYTES
    raise UnboundedBody(f"{where}: no largest value for {json.dumps(schema)[:200]}")


def largest_json_of(annotation: Any) -> int:
    """`largest_json` of a pydantic model (or any type pydantic validates), by its validation JSON schema."""
    schema = TypeAdapter(annotation).json_schema(by_alias=True)
    return largest_json(schema, schema.get("$defs", {}))


def _largest_literal(values: list[Any]) -> int:
    return max(len(json.dumps(value)) for value in values) * STRING_CHAR_BYTES


@dataclass(frozen=True)
class RouteLimits:
    """Each operation's body limit: (method, path pattern, bytes), and the limit of a route that declares none."""

    routes: tuple[tuple[str, re.Pattern[str], int], ...]

    @classmethod
    def of(cls, openapi: dict[str, Any]) -> "RouteLimits":
        """The limits of the operations in `openapi`, each also written into its request body (`x-max-body-bytes`).
        Raises `UnboundedBody` for a request body with no largest instance."""
        definitions = openapi.get("components", {}).get("schemas", {})
        routes = []
        for path, operations in openapi["paths"].items():
            pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "/?$")
            for method, operation in operations.items():
                limit = RAW_BODY_LIMITS.get((method.upper(), path))
                body = operation.get("requestBody")
                if limit is None and body is not None:
                    limit = body.get(MAX_BODY_EXTENSION) or ENVELOPE_BYTES + max(
                        largest_json(media["schema"], definitions, f"{method.upper()} {path}")
                        for media in body["content"].values()
                    )
                    body[MAX_BODY_EXTENSION] = limit
                routes.append((method.upper(), pattern, limit or NO_BODY_BYTES))
        return cls(tuple(routes))

    def limit(self, method: str, path: str) -> int:
        for route_method, pattern, limit in self.routes:
            if route_method == method and pattern.match(path):
                return limit
        return NO_BODY_BYTES


class BodyTooLarge(Exception):
    """A request body over its route's limit (answered 413 INPUT_TOO_LARGE)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body over {limit} bytes")
        self.limit = limit


class BodyTooSlow(Exception):
    """A request body whose next chunk took over `BODY_IDLE_SECONDS`, or all of it over `BODY_SECONDS` (answered 408
    REQUEST_TIMEOUT, and the connection closed)."""

    def __init__(self) -> None:
        super().__init__(f"request body slower than a chunk per {BODY_IDLE_SECONDS:g} s or {BODY_SECONDS:g} s in all")


class BodyLimitMiddleware:
    """Counts each request's body as it arrives and stops it at its route's limit (`BodyTooLarge`), and a body that
    comes too slowly (`api.slow_clients`: 408 `REQUEST_TIMEOUT`)."""

    def __init__(self, app: ASGIApp, limits: RouteLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.limit(scope["method"], scope["path"])
        declared = dict(scope.get("headers") or []).get(b"content-length")
        received = 0
        loop = asyncio.get_running_loop()
        due = loop.time() + BODY_SECONDS
        body_done = False

        async def limited() -> Message:
            nonlocal received, body_done
            if body_done:  # a wait for the client to hang up (a stream's), not for its body: no deadline
                return await receive()
            if _declared_over(declared, limit):
                raise BodyTooLarge(limit)
            try:
                async with asyncio.timeout(min(BODY_IDLE_SECONDS, max(0.0, due - loop.time()))):
                    message = await receive()
            except TimeoutError:
                raise BodyTooSlow() from None
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, limited, send)


def _declared_over(declared: bytes | None, limit: int) -> bool:
    """Whether a `Content-Length` says more than `limit` (its digits counted first: `int()` takes at most 4300)."""
    if declared is None or not declared.isdigit():
        return False
    return len(declared) > len(str(limit)) or int(declared) > limit
