"""Weaviate filters (base_pb2.Filters) as a predicate over stored objects: Equal, NotEqual, the comparisons,
ContainsAny/All/None, And, Or, Not, on declared properties and on `_id`, as a 1.35 server's inverted index answers
them (read from its source): a text value is split by the property's tokenization (English stopwords dropped for
`word`; a value of stopwords only is refused) and Equal needs every token in the property, NotEqual none of them;
ContainsAny/All/None apply Equal per value. Like, IsNull, geo ranges, reference and timestamp filters are refused."""

import operator
from collections.abc import Callable
from typing import Any

import grpc
from weaviate.proto.v1 import base_pb2

from tests.weaviate_double import schema
from tests.weaviate_double.errors import WeaviateError, not_implemented
from tests.weaviate_double.storage import StoredObject, canonical_uuid
from tests.weaviate_double.tokens import stopwords, tokenize

Predicate = Callable[[StoredObject], bool]
Test = Callable[[Any], bool]  # on a stored value that is not None
F = base_pb2.Filters
_COMPARISONS: dict[int, Callable[[Any, Any], bool]] = {
    F.OPERATOR_GREATER_THAN: operator.gt,
    F.OPERATOR_GREATER_THAN_EQUAL: operator.ge,
    F.OPERATOR_LESS_THAN: operator.lt,
    F.OPERATOR_LESS_THAN_EQUAL: operator.le,
}
_CONTAINS = (F.OPERATOR_CONTAINS_ANY, F.OPERATOR_CONTAINS_ALL, F.OPERATOR_CONTAINS_NONE)
ONLY_STOPWORDS = (
    "invalid search term, only stopwords provided. Stopwords can be configured in class.invertedIndexConfig.stopwords"
)


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


def _tokens(definition: dict[str, Any], tokenization: str, text: str) -> set[str] | None:
    """The filter value's tokens; None when nothing but stopwords is left."""
    tokens = tokenize(tokenization, text)
    if tokenization == "word":
        drop = stopwords(definition["invertedIndexConfig"])
        tokens = [t for t in tokens if t not in drop]
    return set(tokens) or None


def _equal(definition: dict[str, Any], prop: dict[str, Any], wanted: Any) -> Test | None:
    """Equal on one filter value (None: a text value of stopwords only)."""
    base = prop["dataType"][0].removesuffix("[]")
    if base == "text":
        tokenization = prop.get("tokenization") or "word"
        need = _tokens(definition, tokenization, str(wanted))
        if need is None:
            return None

        def has_tokens(value: Any) -> bool:
            items = value if isinstance(value, list) else [value]
            return need <= {t for item in items for t in tokenize(tokenization, item)}

        return has_tokens
    if base == "uuid":
        wanted = canonical_uuid(wanted)
    return lambda value: wanted in value if isinstance(value, list) else value == wanted


def _not_equal(definition: dict[str, Any], prop: dict[str, Any], wanted: Any) -> Test | None:
    """NotEqual: for text, none of the value's tokens in the property (each token's NotEqual, and-ed)."""
    if prop["dataType"][0].removesuffix("[]") != "text":
        equal = _equal(definition, prop, wanted)
        return None if equal is None else lambda value: not equal(value)
    tokenization = prop.get("tokenization") or "word"
    need = _tokens(definition, tokenization, str(wanted))
    if need is None:
        return None
    return lambda value: (
        not need & {t for item in (value if isinstance(value, list) else [value]) for t in tokenize(tokenization, item)}
    )


_ID_PROPERTY = {"name": "_id", "dataType": ["uuid"], "indexFilterable": True}


def _property(definition: dict[str, Any], path: str) -> dict[str, Any]:
    if path == "_id":
        return _ID_PROPERTY
    if path.startswith("_"):
        raise not_implemented(f"filters on {path}")
    prop = schema.property_of(definition, path)
    if prop is None:
        raise WeaviateError(
            f"no such prop with name '{path}' found in class '{definition['class']}' in the schema. "
            "Check your schema files for which properties in this class are available",
            grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
        )
    if not (prop.get("indexFilterable", True) or prop.get("indexSearchable") or prop.get("indexRangeFilters")):
        raise WeaviateError(
            f"Filtering by property '{path}' requires inverted index. Is `indexFilterable` option of property "
            f"'{path}' enabled? Set it to `true` or leave empty",
            grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
        )
    return prop


def _leaf(definition: dict[str, Any], f: base_pb2.Filters) -> Predicate:
    prop = _property(definition, _path(f))
    values = _values(f)
    op = f.operator

    def on_value(test: Test, missing: bool = False) -> Predicate:
        if prop is _ID_PROPERTY:
            return lambda obj: test(obj.uuid)
        return lambda obj: missing if obj.properties.get(prop["name"]) is None else test(obj.properties[prop["name"]])

    if op in (F.OPERATOR_EQUAL, F.OPERATOR_NOT_EQUAL):
        test = (_equal if op == F.OPERATOR_EQUAL else _not_equal)(definition, prop, values[0])
        if test is None:
            raise WeaviateError(ONLY_STOPWORDS, grpc_code=grpc.StatusCode.INVALID_ARGUMENT)
        return on_value(test, missing=op == F.OPERATOR_NOT_EQUAL)
    if op in _CONTAINS:
        tests = [_equal(definition, prop, v) for v in values]
        kept = [t for t in tests if t is not None]
        if not kept or (op != F.OPERATOR_CONTAINS_ANY and len(kept) < len(tests)):
            raise WeaviateError(ONLY_STOPWORDS, grpc_code=grpc.StatusCode.INVALID_ARGUMENT)
        if op == F.OPERATOR_CONTAINS_ANY:
            return on_value(lambda value: any(t(value) for t in kept))
        if op == F.OPERATOR_CONTAINS_ALL:
            return on_value(lambda value: all(t(value) for t in kept))
        return on_value(lambda value: not any(t(value) for t in kept), missing=True)
    if op in _COMPARISONS:
        if prop["dataType"][0].removesuffix("[]") not in ("int", "number"):
            raise not_implemented(f"range filters on {prop['dataType'][0]} properties")
        compare, bound = _COMPARISONS[op], values[0]
        return on_value(
            lambda value: any(compare(item, bound) for item in (value if isinstance(value, list) else [value]))
        )
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
