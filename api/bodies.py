"""Large JSON request bodies, parsed and validated in the intake process, not on the event loop (rule 12).

Joining a 13 MB body and parsing it take the loop about 15 ms; twenty such requests whose bodies finish arriving
together are twenty ready steps the loop runs back to back, stalling everything else for 300 ms. So routes that
take large bodies (a mask, a run's input) collect the body's chunks as they arrive (`body_chunks`) and hand them
to a function that runs in the intake process (`api.intake`), which parses, validates and prepares them and
sends back only what the run needs. A body that does not validate comes back as `InvalidBody`, answered like
any other invalid request; `documented(Model)` keeps the OpenAPI schema showing what such a route takes.
"""

from typing import Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ValidationError

ModelT = TypeVar("ModelT", bound=BaseModel)

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
    """In the intake process: the body as `model`, or `InvalidBody`."""
    try:
        return model.model_validate_json(b"".join(chunks))
    except ValidationError as err:
        raise InvalidBody.from_error(err) from None


def documented(model: type[BaseModel]) -> dict[str, Any]:
    """`openapi_extra` for a route that reads `model` this way: the request body is that model."""
    DOCUMENTED[model.__name__] = model
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def add_documented_schemas(openapi: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document with the schemas of `DOCUMENTED` body models (and the models they use) added."""
    components = openapi.setdefault("components", {}).setdefault("schemas", {})
    for model in DOCUMENTED.values():
        schema = model.model_json_schema(by_alias=True, ref_template="#/components/schemas/{model}")
        for name, definition in schema.pop("$defs", {}).items():
            components.setdefault(name, definition)
        components[model.__name__] = schema
    return openapi
