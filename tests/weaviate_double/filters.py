"""Weaviate filters (base_pb2.Filters) as a predicate over stored objects: Equal, NotEqual, the comparisons,
ContainsAny/All/None, And, Or, Not, on declared properties and on `_id`. A text value matches as Weaviate's inverted
index does: by the property's tokens (all of the filter value's tokens present), so `word` tokenization matches
words case-insensitively and `field` the whole value. Like, IsNull, geo ranges, reference and timestamp filters are
refused."""

import operator
from collections.abc import Callable
from typing import Any

import grpc
from weaviate.proto.v1 import base_pb2

from tests.weaviate_double import schema
from tests.weaviate_double.errors import WeaviateError, not_implemented
from tests.weaviate_double.storage import StoredObject, canonical_uuid
from tests.weaviate_double.tokens import tokenize

Predicate = Callable[[StoredObject], bool]
F = base_pb2.Filters
_COMPARISONS: dict[int, Callable[[Any, Any], bool]] = {
    F.OPERATOR_GREATER_THAN: operator.gt,
    F.OPERATOR_GREATER_THAN_EQUAL: operator.ge,
    F.OPERATOR_LESS_THAN: operator.lt,
    F.OPERATOR_LESS_THAN_EQUAL: operator.le,
}
_CONTAINS = (F.OPERATOR_CONTAINS_ANY, F.OPERATOR_CONTAINS_ALL, F.OPERATOR_CONTAINS_NONE)


def _values(f: base_pb2.Filters) -> list[Any]:
    kind = f.WhichOneof("test_value")
    if kind is None:
        raise WeaviateError("filter has no value", grpc_code=grpc.StatusCode.INVALID_ARGUMENT)
    if kind in ("value_text", "value_int", "value_boolean", "value_number"):
        return [getattr(f, kind)]
    if kind == "value_geo":
        raise not_implemented("geo filters")
    return list(getattr(f, kind).values)


def _path(f: base_pb2.Filters) -> str:
    if f.HasField("target"):
        if f.target.WhichOneof("target") != "property":
            raise not_implemented("reference and count filters")
        return str(f.target.property)
    if len(f.on) != 1:
        raise not_implemented("reference filter paths")
    return str(f.on[0])


def _matcher(data_type: str, tokenization: str | None, wanted: Any) -> Callable[[Any], bool]:
    """Whether one stored scalar (or a text[]'s whole list) equals the filter value the way Weaviate compares it."""
    base = data_type.removesuffix("[]")
    if base == "text":
        need = set(tokenize(tokenization or "word", str(wanted)))

        def has_tokens(value: Any) -> bool:
            items = value if isinstance(value, list) else [value]
            have = {t for item in items for t in tokenize(tokenization or "word", item)}
            return bool(need) and need <= have

        return has_tokens
    if base == "uuid":
        key = canonical_uuid(wanted)
        return lambda value: key in value if isinstance(value, list) else value == key
    if base == "boolean":
        return lambda value: wanted in value if isinstance(value, list) else value == wanted
    return lambda value: wanted in value if isinstance(value, list) else value == wanted


def _leaf(definition: dict[str, Any], f: base_pb2.Filters) -> Predicate:
    path = _path(f)
    values = _values(f)
    if path == "_id":
        data_type, tokenization = "uuid", None

        def get(obj: StoredObject) -> Any:
            return obj.uuid
    else:
        if path.startswith("_"):
            raise not_implemented(f"filters on {path}")
        prop = schema.property_of(definition, path)
        if prop is None:
            raise WeaviateError(
                f"no such prop with name '{path}' found in class '{definition['class']}' in the schema. "
                "Check your schema files for which properties in this class are available",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        if not prop.get("indexFilterable", True):
            raise WeaviateError(
                f"Filtering by property '{path}' requires inverted index. Is `indexFilterable` option of property "
                f"'{path}' enabled? Set it to `true` or leave empty",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        data_type, tokenization, name = prop["dataType"][0], prop.get("tokenization"), prop["name"]

        def get(obj: StoredObject) -> Any:
            return obj.properties.get(name)

    op = f.operator
    if op in (F.OPERATOR_EQUAL, F.OPERATOR_NOT_EQUAL):
        equal = _matcher(data_type, tokenization, values[0])

        def eq(obj: StoredObject) -> bool:
            value = get(obj)
            return value is not None and equal(value)

        return eq if op == F.OPERATOR_EQUAL else lambda obj: not eq(obj)
    if op in _CONTAINS:
        matchers = [_matcher(data_type, tokenization, v) for v in values]

        def count(obj: StoredObject) -> int:
            value = get(obj)
            return 0 if value is None else sum(m(value) for m in matchers)

        if op == F.OPERATOR_CONTAINS_ANY:
            return lambda obj: count(obj) > 0
        if op == F.OPERATOR_CONTAINS_ALL:
            return lambda obj: count(obj) == len(matchers)
        return lambda obj: count(obj) == 0
    if op in _COMPARISONS:
        if data_type.removesuffix("[]") not in ("int", "number"):
            raise not_implemented(f"range filters on {data_type} properties")
        compare, bound = _COMPARISONS[op], values[0]

        def in_range(obj: StoredObject) -> bool:
            value = get(obj)
            items = value if isinstance(value, list) else [] if value is None else [value]
            return any(compare(item, bound) for item in items)

        return in_range
    raise not_implemented(f"filter operator {F.Operator.Name(op)}")


def predicate(definition: dict[str, Any], f: base_pb2.Filters) -> Predicate:
    """The objects of this collection the filter keeps; raises WeaviateError for a filter Weaviate would refuse."""
    if f.operator in (F.OPERATOR_AND, F.OPERATOR_OR, F.OPERATOR_NOT):
        parts = [predicate(definition, sub) for sub in f.filters]
        if f.operator == F.OPERATOR_AND:
            return lambda obj: all(p(obj) for p in parts)
        if f.operator == F.OPERATOR_OR:
            return lambda obj: any(p(obj) for p in parts)
        return lambda obj: not any(p(obj) for p in parts)
    return _leaf(definition, f)
