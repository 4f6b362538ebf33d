"""Converting between the gRPC messages and the store's plain values: a BatchObject's properties and vectors in, a
stored object's properties and vectors out (properties_pb2.Properties, base_pb2.Vectors), float32 vector bytes."""

import struct
import uuid as uuid_lib
from typing import Any

from google.protobuf.json_format import MessageToDict
from weaviate.proto.v1 import base_pb2, batch_pb2, properties_pb2

from tests.weaviate_double.errors import not_implemented
from tests.weaviate_double.storage import Vectors


def floats32(data: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(data) // 4}f", data))


def pack32(vector: list[float]) -> bytes:
    return struct.pack(f"<{len(vector)}f", *vector)


def batch_properties(props: batch_pb2.BatchObject.Properties) -> dict[str, Any]:
    """A BatchObject's properties as plain values (numbers from the Struct are floats; the store converts them)."""
    if props.single_target_ref_props or props.multi_target_ref_props:
        raise not_implemented("cross-references")
    if props.object_properties or props.object_array_properties:
        raise not_implemented("object properties")
    out: dict[str, Any] = MessageToDict(props.non_ref_properties) if props.HasField("non_ref_properties") else {}
    for text in props.text_array_properties:
        out[text.prop_name] = list(text.values)
    for ints in props.int_array_properties:
        out[ints.prop_name] = list(ints.values)
    for numbers in props.number_array_properties:
        data = numbers.values_bytes
        out[numbers.prop_name] = list(struct.unpack(f"<{len(data) // 8}d", data)) if data else list(numbers.values)
    for booleans in props.boolean_array_properties:
        out[booleans.prop_name] = list(booleans.values)
    for name in props.empty_list_props:
        out[name] = []
    return out


def batch_vectors(obj: batch_pb2.BatchObject) -> Vectors:
    """A BatchObject's vectors by name ("" for the unnamed one)."""
    vectors: Vectors = {}
    if obj.vector_bytes:
        vectors[""] = floats32(obj.vector_bytes)
    elif obj.vector:
        vectors[""] = list(obj.vector)
    for named in obj.vectors:
        if named.type == base_pb2.Vectors.VECTOR_TYPE_MULTI_FP32:
            raise not_implemented("multi-vectors")
        vectors[named.name] = floats32(named.vector_bytes)
    return vectors


def _list_value(data_type: str, values: list[Any]) -> properties_pb2.ListValue:
    if data_type == "text[]":
        return properties_pb2.ListValue(text_values=properties_pb2.TextValues(values=values))
    if data_type == "int[]":
        return properties_pb2.ListValue(
            int_values=properties_pb2.IntValues(values=struct.pack(f"<{len(values)}q", *values))
        )
    if data_type == "number[]":
        return properties_pb2.ListValue(
            number_values=properties_pb2.NumberValues(values=struct.pack(f"<{len(values)}d", *values))
        )
    if data_type == "boolean[]":
        return properties_pb2.ListValue(bool_values=properties_pb2.BoolValues(values=values))
    return properties_pb2.ListValue(uuid_values=properties_pb2.UuidValues(values=values))


def property_value(data_type: str, value: Any) -> properties_pb2.Value:
    if data_type.endswith("[]"):
        return properties_pb2.Value(list_value=_list_value(data_type, value))
    if data_type == "text":
        return properties_pb2.Value(text_value=value)
    if data_type == "int":
        return properties_pb2.Value(int_value=value)
    if data_type == "number":
        return properties_pb2.Value(number_value=value)
    if data_type == "boolean":
        return properties_pb2.Value(bool_value=value)
    return properties_pb2.Value(uuid_value=value)


def id_bytes(uuid: str) -> bytes:
    return uuid_lib.UUID(uuid).bytes
