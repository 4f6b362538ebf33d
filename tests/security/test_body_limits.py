"""Body limits follow the models. For every route that takes a JSON body, the largest body its model accepts (every
string at its longest in astral characters, which `json.dumps` writes as 12-byte surrogate-pair escapes, every
list at its longest, every optional member present) is accepted by the model and fits the route's limit; a body
declared one byte over the limit is 413 `INPUT_TOO_LARGE` before it is read, one at the limit is read. The bodies
that were refused below what their models accept (notes of a content run, a writing chat and a chapter written as
escapes) are accepted."""

import itertools
import json
import re
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic import BaseModel, TypeAdapter

from api.bodies import DOCUMENTED, parse_body
from api.body_limits import MAX_BODY_EXTENSION
from api.server import create_app
from tests.api.conftest import Gateway
from tests.workflows.harness import settings_for
from workflows.registry import REGISTRY

ASTRAL = "\U0001d54f"
"""𝕏: one character, `\\ud835\\udd4f` (12 bytes) as `json.dumps` writes it."""
ASTRALS = (chr(code) for code in itertools.count(0x1D400))
"""Another astral character for each string, so no two fields are the same (a relationship's two ends may not be)."""
LONGEST_NUMBER = -1.2345678901234567e-05
JSON = {"content-type": "application/json"}


def largest_value(schema: dict[str, Any], definitions: dict[str, Any]) -> Any:
    """The value `schema` accepts that `json.dumps` writes longest (as far as the schema says what is accepted)."""
    if "$ref" in schema:
        return largest_value(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    for combined in ("anyOf", "oneOf", "allOf"):
        if combined in schema:
            options = [largest_value(option, definitions) for option in schema[combined]]
            return max(options, key=lambda value: len(json.dumps(value)))
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return max(schema["enum"], key=lambda value: len(json.dumps(value)))
    kind = schema.get("type")
    if kind == "null":
        return None
    if kind == "boolean":
        return False
    if kind == "integer":
        return max((schema["minimum"], schema["maximum"]), key=lambda value: len(str(value)))
    if kind == "number":
        return LONGEST_NUMBER
    if kind == "string":
        return longest_string(schema)
    if kind == "array":
        item = largest_value(schema["items"], definitions)
        return [item] * schema["maxItems"]  # one object many times: json.dumps writes each in full
    assert kind == "object", schema
    return {key: largest_value(value, definitions) for key, value in schema["properties"].items()}


def longest_string(schema: dict[str, Any]) -> str:
    pattern = schema.get("pattern")
    if pattern is None:
        return next(ASTRALS) * int(schema["maxLength"])
    bound = re.search(r"\{(?:\d+,)?(\d+)\}\$$", pattern)
    length = schema.get("maxLength") or int(bound[1] if bound else 0)
    fitting = [c * length for c in ('"', "\\", "\n", "A") if re.fullmatch(pattern.strip("^$"), c * length)]
    assert fitting, pattern
    return max(fitting, key=lambda text: len(json.dumps(text)))


def model_schema(model: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = TypeAdapter(model).json_schema(by_alias=True)
    return schema, schema.get("$defs", {})


def json_body_routes(app: FastAPI) -> list[tuple[str, str, type[BaseModel]]]:
    """(method, path, body model) of every route that takes a JSON body, whoever parses it."""
    routes: list[tuple[str, str, type[BaseModel]]] = []  # a route's body model, as FastAPI or `documented` has it
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if not isinstance(route, APIRoute):
            continue
        documented = (route.openapi_extra or {}).get("requestBody")
        model: Any
        if route.body_field is not None:
            model = route.body_field.field_info.annotation
        elif documented is not None:
            model = DOCUMENTED[documented["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]]
        else:
            continue
        routes.extend((method, str(context.path_format), model) for method in sorted(context.methods or ()))
    return routes


def published_limits(app: FastAPI) -> dict[tuple[str, str], int]:
    return {
        (method.upper(), path): operation["requestBody"][MAX_BODY_EXTENSION]
        for path, operations in app.openapi()["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }


def test_every_routes_limit_holds_the_largest_body_its_model_accepts(tmp_path: Path) -> None:
    app = create_app(settings_for(tmp_path))
    limits = published_limits(app)
    routes = json_body_routes(app)
    checked: dict[tuple[str, str], int] = {}
    for method, path, model in routes:
        if path == "/v1/runs":  # `input` is the named workflow's input model
            bodies = []
            for entry in REGISTRY:
                if entry.input_model is not None:
                    run_input = largest_value(*model_schema(entry.input_model))
                    bodies.append({"workflow": entry.name, "input": run_input, "sessionId": "A" * 64})
        else:
            bodies = [largest_value(*model_schema(model))]
        for body in bodies:
            data = json.dumps(body).encode()

            parse_body(model, [data])  # the model accepts it (InvalidBody if not)

            assert len(data) <= limits[(method, path)], (method, path, len(data), limits[(method, path)])
            checked[(method, path)] = max(checked.get((method, path), 0), len(data))
    assert set(checked) == set(limits) and len(checked) >= 19, "every JSON body route, and only those"
    assert checked[("POST", "/v1/writing/projects/{project_id}/chapters")] > 1_200_000
    assert checked[("POST", "/api/agent/chat")] > 64 * 1024 * 1024, "the largest mask, its numbers written long"


async def test_a_body_over_its_routes_limit_is_refused_before_it_is_read_and_one_at_it_is_read(
    gateway: Gateway,
) -> None:
    operations = (await gateway.http.get("/openapi.json")).json()["paths"]
    for path, methods in operations.items():
        for method, operation in methods.items():
            if "requestBody" not in operation:
                continue
            limit = operation["requestBody"][MAX_BODY_EXTENSION]
            url = re.sub(r"\{[^}]+\}", "p1", path)

            over = await gateway.http.request(
                method, url, content=b"{}", headers=JSON | {"content-length": str(limit + 1)}
            )
            at = await gateway.http.request(method, url, content=b"{", headers=JSON | {"content-length": str(limit)})

            assert over.status_code == 413 and over.json()["error"]["code"] == "INPUT_TOO_LARGE", (method, path)
            assert at.status_code == 422 and at.json()["error"]["code"] == "INVALID_REQUEST", (method, path, at.text)


async def test_twenty_full_notes_of_cjk_start_a_content_run_as_through_the_run_api(gateway: Gateway) -> None:
    body = {"topic": "春日咖啡", "platform": "weibo", "evidence": ["咖" * 4000] * 20}
    data = json.dumps(body, ensure_ascii=False).encode()  # 240 KB; as escapes, 480 KB

    for sent in (data, json.dumps(body).encode()):
        response = await gateway.http.post("/v1/content/runs", content=sent, headers=JSON)

        assert response.status_code == 200, response.text[:300]  # the run's stream
        assert response.headers["x-run-id"].startswith("content-")


async def test_a_full_writing_chat_written_as_escapes_is_accepted(gateway: Gateway) -> None:
    project = (await gateway.http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]
    data = ('{"text": "' + "\\u5199" * 20_000 + '"}').encode()  # 120 KB

    response = await gateway.http.post(f"/v1/writing/projects/{project}/chat", content=data, headers=JSON)

    assert response.status_code == 200, response.text[:300]


async def test_a_chapter_of_100000_astral_characters_written_as_escapes_is_accepted(gateway: Gateway) -> None:
    project = (await gateway.http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]
    data = json.dumps({"title": "长章", "content": ASTRAL * 100_000}).encode()  # 1.2 MB

    response = await gateway.http.post(f"/v1/writing/projects/{project}/chapters", content=data, headers=JSON)

    assert len(data) > 1_200_000
    assert response.status_code == 201, response.text[:300]
    assert response.json()["content"] == ASTRAL * 100_000
