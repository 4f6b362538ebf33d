"""Large JSON request bodies, parsed and validated in the intake process, not on the event loop (rule 12).

Joining a 13 MB body and parsing it take the loop milliseconds; twenty such requests whose bodies finish arriving
together are twenty ready steps the loop runs back to back, stalling everything else for their sum (measured:
README, Performance). So routes that take large bodies (a mask, a run's input) collect the body's chunks as they
arrive (`body_chunks`) and hand them to a function that runs in the intake process (`api.intake`), which parses,
validates and prepares them and sends back only what the run needs. A body that does not validate comes back as
`InvalidBody`, answered like any other invalid request; `documented(Model)` keeps the OpenAPI schema showing what
such a route takes.

Every route reads JSON by one policy (`strict_json`), whoever parses it: the intake, or FastAPI through
`StrictJsonRoute`, the route class of every router. Every body is limited while it is read (`api.body_limits`),
and none is read before the caller's key and rate are checked: FastAPI reads a typed body before it solves the
route's dependencies, so `StrictJsonRoute` runs the ones marked `before_body` first.
"""

import json
import math
from array import array
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import fastapi.routing
from fastapi import Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError

from api.body_limits import MAX_BODY_EXTENSION
from models.paths import MAX_COORDINATE, PackedPath

ModelT = TypeVar("ModelT", bound=BaseModel)
CheckT = TypeVar("CheckT", bound=Callable[[Request], Any])

DOCUMENTED: dict[str, type[BaseModel]] = {}
"""Every body model a route takes this way, by name; `api.server` adds their schemas to the OpenAPI components."""


class InvalidBody(Exception):
    """A request body (or a part of it) that failed validation: pydantic's errors, located from the body's root."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors)
        self.errors = errors

    @classmethod
    def from_error(cls, error: ValidationError, *prefix: str) -> "InvalidBody":
        return cls([{**e, "loc": (*prefix, *e["loc"])} for e in error.errors(include_url=False, include_context=False)])


async def body_chunks(request: Request) -> list[bytes]:
    """The body as the chunks it arrived in (joined in the intake process, not here)."""
    return [chunk async for chunk in request.stream()]


def parse_body(model: type[ModelT], chunks: list[bytes]) -> ModelT:
    """In the intake process: the body as `model`, or `InvalidBody`. The chunks are emptied once joined, so the
    body is not held twice while it is parsed."""
    body = b"".join(chunks)
    chunks.clear()
    document = load_json(body)
    try:
        return model.model_validate(document)
    except ValidationError as err:
        raise InvalidBody.from_error(err) from None


def load_json(data: bytes) -> Any:
    """A JSON document (`strict_json`) whose lists of well-formed points (`{"x": n, "y": n}`, finite numbers within
    the canvas bounds) are `PackedPath`s, packed while it is parsed: the largest legal mask never exists as a
    million objects (pydantic's own JSON parser builds a tree of them, far larger than the body: README,
    Performance). Anything else stays as parsed, for the model to judge."""
    packer = _PointPacker()
    return packer.pack(strict_json(data, packer.take))


def strict_json(data: bytes, objects: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """The one JSON policy of every route, whoever parses the body (the intake, or FastAPI through
    `StrictJsonRoute`): an object with a key twice, NaN and Infinity are refused (they are not JSON, and "the last
    one wins" would let a checker and a reader see two different bodies), as `InvalidBody` (422 `INVALID_REQUEST`,
    `json_invalid`). `objects` builds each object from its pairs (`json_object` unless given)."""
    try:
        return json.loads(data, object_pairs_hook=objects or json_object, parse_constant=_not_json)
    except (ValueError, RecursionError) as err:  # JSONDecodeError is a ValueError
        message = str(err) if isinstance(err, ValueError) else "nested too deeply"
        raise InvalidBody([{"type": "json_invalid", "loc": (), "msg": f"Invalid JSON: {message}"}]) from None


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object from its key-value pairs, refused when a key comes twice."""
    document = dict(pairs)
    if len(document) != len(pairs):
        twice = next(key for key, count in Counter(key for key, _ in pairs).items() if count > 1)
        raise ValueError(f"duplicate key {twice!r} in an object")
    return document


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON number")


class StrictJsonRequest(Request):
    """A request whose `json()` follows `strict_json` (FastAPI parses a route's body through it)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = strict_json(await self.body())
        return self._json


_BEFORE_BODY = "_runs_before_body"


def before_body(check: CheckT) -> CheckT:
    """Mark a dependency that takes only the request (the key's check, the rate's) to run before the route reads
    its body; it must keep its answer in the request's scope, since the route's dependencies call it again."""
    setattr(check, _BEFORE_BODY, True)
    return check


class StrictJsonRoute(APIRoute):
    """The route class of every router: FastAPI reads its JSON body with `strict_json`. A body that is not JSON
    that way fails as `InvalidBody` (FastAPI wraps it in a 400, which `api.errors` answers as the intake would).
    The route's `before_body` dependencies run first: a caller without a key or over its rate is refused before a
    byte of its body is read or parsed."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        checks = list(dict.fromkeys(_checks_before_body(self._effective_dependant())))

        async def strict(request: Request) -> Response:
            for check in checks:
                check(request)
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict

    def _effective_dependant(self) -> Dependant:
        """The route's dependencies as it is included: FastAPI builds an included route's handler once per inclusion,
        with the including router's dependencies (the key's, the rate's) in a context variable of its own."""
        including = getattr(fastapi.routing, "_effective_route_context_var", None)
        effective = including.get() if including is not None else None
        if effective is not None and effective.original_route is self and effective.dependant is not None:
            return effective.dependant  # type: ignore[no-any-return]
        return self.dependant


def _checks_before_body(dependant: Dependant) -> list[Callable[[Request], Any]]:
    """The `before_body` dependencies among `dependant`'s, theirs, and so on, outermost first."""
    checks: list[Callable[[Request], Any]] = []
    for dependency in dependant.dependencies:
        if getattr(dependency.call, _BEFORE_BODY, False):
            checks.append(dependency.call)  # type: ignore[arg-type]
        checks.extend(_checks_before_body(dependency))
    return checks


_POINT = object()
"""What a packed point is while the document is parsed; `_PointPacker.pack` replaces every one."""


class _PointPacker:
    """Packs points as `json.loads` completes them (in document order) into one flat array, then turns each list
    of nothing but points into a `PackedPath` and any other point back into its object."""

    def __init__(self) -> None:
        self.flat: array[float] = array("d")
        self.cursor = 0

    def take(self, pairs: list[tuple[str, Any]]) -> Any:
        if len(pairs) == 2:
            (first, a), (second, b) = pairs
            if {first, second} == {"x", "y"} and _coordinate(a) and _coordinate(b):
                self.flat.extend((a, b) if first == "x" else (b, a))
                return _POINT
        return json_object(pairs)

    def pack(self, value: Any) -> Any:
        if value is _POINT:
            x, y = self.flat[self.cursor], self.flat[self.cursor + 1]
            self.cursor += 2
            return {"x": x, "y": y}
        if isinstance(value, list):
            if value and all(item is _POINT for item in value):
                start, self.cursor = self.cursor, self.cursor + 2 * len(value)
                return PackedPath(self.flat[start : self.cursor])
            return [self.pack(item) for item in value]
        if isinstance(value, dict):
            return {key: self.pack(item) for key, item in value.items()}
        return value


def _coordinate(value: Any) -> bool:
    """A number `Coordinate` accepts as it is (`true` is not a number)."""
    if type(value) is int:
        return abs(value) <= MAX_COORDINATE
    return type(value) is float and math.isfinite(value) and abs(value) <= MAX_COORDINATE


def documented(model: type[BaseModel], max_bytes: int | None = None) -> dict[str, Any]:
    """`openapi_extra` for a route that reads `model` this way: the request body is that model. `max_bytes`: the
    route's body limit, for a model whose schema does not bound it (`api.body_limits`)."""
    DOCUMENTED[model.__name__] = model
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    body: dict[str, Any] = {"required": True, "content": {"application/json": {"schema": schema}}}
    if max_bytes is not None:
        body[MAX_BODY_EXTENSION] = max_bytes
    return {"requestBody": body}


def add_documented_schemas(openapi: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document with the schemas of `DOCUMENTED` body models (and the models they use) added."""
    components = openapi.setdefault("components", {}).setdefault("schemas", {})
    for model in DOCUMENTED.values():
        schema = model.model_json_schema(by_alias=True, ref_template="#/components/schemas/{model}")
        for name, definition in schema.pop("$defs", {}).items():
            components.setdefault(name, definition)
        components[model.__name__] = schema
    return openapi
