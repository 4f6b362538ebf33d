"""Objects through the official client: insert and insert_many with uuid, vector and typed properties (same uuid
replaces), batch.fixed_size, fetch with filters, limit, offset and the cursor, fetch by id, delete_by_id,
delete_many (dry run), the object count, and Weaviate's refusals (a taken id, a wrong type, a missing collection)."""

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import weaviate
from weaviate.classes.config import Configure, DataType, Property, Tokenization
from weaviate.classes.data import DataObject
from weaviate.classes.query import Filter
from weaviate.collections import Collection
from weaviate.collections.classes.filters import FilterReturn
from weaviate.exceptions import UnexpectedStatusCodeError, WeaviateQueryError

from tests.weaviate_double import WeaviateDouble
from tests.weaviate_double.fixtures import connect

IDS = [uuid.UUID(int=i + 1) for i in range(5)]


@pytest.fixture
def notes(weaviate_client: weaviate.WeaviateClient) -> Iterator[Collection]:
    name = f"Notes{uuid.uuid4().hex[:8]}"
    collection = weaviate_client.collections.create(
        name,
        properties=[
            Property(name="text", data_type=DataType.TEXT),
            Property(name="key", data_type=DataType.TEXT, tokenization=Tokenization.FIELD),
            Property(name="n", data_type=DataType.INT),
            Property(name="x", data_type=DataType.NUMBER),
            Property(name="ok", data_type=DataType.BOOL),
            Property(name="tags", data_type=DataType.TEXT_ARRAY),
            Property(name="ref", data_type=DataType.UUID),
        ],
        vector_config=Configure.Vectors.self_provided(),
    )
    result = collection.data.insert_many(
        [
            DataObject(
                properties={
                    "text": f"Hello World {i}",
                    "key": f"key {i}",
                    "n": i,
                    "x": i / 2,
                    "ok": i % 2 == 0,
                    "tags": ["all", f"t{i}"],
                    "ref": IDS[0],
                },
                uuid=IDS[i],
                vector=[1.0, float(i), 0.0],
            )
            for i in range(5)
        ]
    )
    assert not result.has_errors
    yield collection
    weaviate_client.collections.delete(name)


def _ns(collection: Collection, filters: FilterReturn) -> list[int]:
    return sorted(int(o.properties["n"]) for o in collection.query.fetch_objects(filters=filters).objects)  # type: ignore[arg-type]


def test_values_come_back_typed_with_vectors(notes: Collection) -> None:
    found = notes.query.fetch_object_by_id(IDS[3], include_vector=True)
    assert found is not None
    assert found.properties == {
        "text": "Hello World 3",
        "key": "key 3",
        "n": 3,
        "x": 1.5,
        "ok": False,
        "tags": ["all", "t3"],
        "ref": IDS[0],
    }
    assert found.vector == {"default": [1.0, 3.0, 0.0]}
    assert notes.query.fetch_object_by_id(uuid.UUID(int=99)) is None


def test_same_uuid_replaces(notes: Collection) -> None:
    notes.data.insert_many([DataObject(properties={"text": "new", "n": 7}, uuid=IDS[1], vector=[0.0, 1.0, 0.0])])
    found = notes.query.fetch_object_by_id(IDS[1])
    assert found is not None and found.properties == {"text": "new", "n": 7}
    assert notes.aggregate.over_all(total_count=True).total_count == 5


def test_rest_insert_refuses_a_taken_id(notes: Collection) -> None:
    new = notes.data.insert({"text": "one", "n": 9}, vector=[0.0, 0.0, 1.0])
    assert notes.data.exists(new)
    with pytest.raises(UnexpectedStatusCodeError) as refused:
        notes.data.insert({"text": "again"}, uuid=new)
    assert refused.value.status_code == 422
    assert "already exists" in refused.value.message


def test_wrong_type_and_unknown_property_fail_per_object(notes: Collection) -> None:
    result = notes.data.insert_many(
        [DataObject(properties={"n": "seven"}), DataObject(properties={"nope": 1}), DataObject(properties={"n": 8})]
    )
    assert sorted(result.errors) == [0, 1]
    assert "invalid integer property 'n'" in result.errors[0].message
    assert "no such prop with name 'nope'" in result.errors[1].message


def test_batch_fixed_size(notes: Collection) -> None:
    with notes.batch.fixed_size(batch_size=2) as batch:
        for i in range(5):
            batch.add_object({"text": "batched", "n": 100 + i}, vector=[0.5, 0.5, 0.5])
    assert not notes.batch.failed_objects
    assert (
        notes.aggregate.over_all(total_count=True, filters=Filter.by_property("n").greater_or_equal(100)).total_count
        == 5
    )


def test_filters(notes: Collection) -> None:
    assert _ns(notes, Filter.by_property("n").equal(2)) == [2]
    assert _ns(notes, Filter.by_property("n").not_equal(2)) == [0, 1, 3, 4]
    assert _ns(notes, Filter.by_property("n").greater_than(2)) == [3, 4]
    assert _ns(notes, Filter.by_property("text").equal("world")) == [0, 1, 2, 3, 4]  # word tokens, any case
    assert _ns(notes, Filter.by_property("key").equal("key 1")) == [1]  # field: the whole value
    assert _ns(notes, Filter.by_property("key").equal("key")) == []
    assert _ns(notes, Filter.by_property("tags").contains_any(["t1", "t4"])) == [1, 4]
    assert _ns(notes, Filter.by_property("n").contains_any([0, 3])) == [0, 3]
    assert _ns(notes, Filter.by_property("ok").equal(True) & Filter.by_property("n").less_than(3)) == [0, 2]
    assert _ns(notes, Filter.by_property("n").equal(1) | Filter.by_property("key").equal("key 4")) == [1, 4]
    assert _ns(notes, Filter.by_id().contains_any([IDS[1], IDS[2]])) == [1, 2]
    assert _ns(notes, Filter.by_property("ref").equal(IDS[0])) == [0, 1, 2, 3, 4]
    assert _ns(notes, Filter.by_property("text").equal("the world")) == [0, 1, 2, 3, 4]  # "the" is a stopword
    assert _ns(notes, Filter.by_property("text").not_equal("2 9")) == [0, 1, 3, 4]  # none of the tokens


def test_filter_of_stopwords_only_is_refused(notes: Collection) -> None:
    with pytest.raises(WeaviateQueryError, match="only stopwords provided"):
        notes.query.fetch_objects(filters=Filter.by_property("text").equal("the"))


def test_filter_on_unknown_property_is_refused(notes: Collection) -> None:
    with pytest.raises(WeaviateQueryError, match="no such prop with name 'nope'"):
        notes.query.fetch_objects(filters=Filter.by_property("nope").equal("x"))


def test_pages(notes: Collection) -> None:
    page = notes.query.fetch_objects(limit=2, offset=1, return_properties=["n"])
    assert [o.properties for o in page.objects] == [{"n": 1}, {"n": 2}]  # by uuid
    after = notes.query.fetch_objects(limit=10, after=IDS[2])
    assert [o.uuid for o in after.objects] == IDS[3:]
    assert len(notes.query.fetch_objects().objects) == 5


def test_cursor_refuses_filters_and_offset(notes: Collection) -> None:
    with pytest.raises(WeaviateQueryError, match="where cannot be set with after and limit parameters"):
        notes.query.fetch_objects(after=IDS[0], limit=2, filters=Filter.by_property("n").equal(1))
    with pytest.raises(WeaviateQueryError, match="offset cannot be set with after and limit parameters"):
        notes.query.fetch_objects(after=IDS[0], limit=2, offset=1)


def test_deletes(notes: Collection) -> None:
    dry = notes.data.delete_many(where=Filter.by_property("n").less_than(2), dry_run=True)
    assert dry.matches == 2
    assert notes.aggregate.over_all(total_count=True).total_count == 5
    deleted = notes.data.delete_many(where=Filter.by_property("n").less_than(2), verbose=True)
    assert deleted.successful == 2 and deleted.objects is not None
    assert sorted(str(o.uuid) for o in deleted.objects) == [str(IDS[0]), str(IDS[1])]
    assert notes.data.delete_by_id(IDS[4]) is True
    assert notes.data.delete_by_id(IDS[4]) is False
    assert notes.aggregate.over_all(total_count=True).total_count == 2


def test_missing_collection_is_refused(weaviate_client: weaviate.WeaviateClient) -> None:
    missing = weaviate_client.collections.get("Missing")
    with pytest.raises(WeaviateQueryError, match="could not find class Missing in schema"):
        missing.query.fetch_objects()
    with pytest.raises(UnexpectedStatusCodeError, match="could not find class Missing in schema"):
        missing.data.insert({"text": "x"})


def test_replace_and_update(notes: Collection) -> None:
    notes.data.replace(IDS[2], properties={"text": "replaced", "n": 20}, vector=[0.0, 0.0, 1.0])
    notes.data.update(IDS[2], properties={"n": 21})
    found = notes.query.fetch_object_by_id(IDS[2], include_vector=True)
    assert found is not None
    assert found.properties == {"text": "replaced", "n": 21}
    assert found.vector == {"default": [0.0, 0.0, 1.0]}


def test_unknown_return_property_is_refused(notes: Collection) -> None:
    with pytest.raises(WeaviateQueryError, match="no such prop with name 'nope'"):
        notes.query.fetch_objects(return_properties=["nope"])


def test_concurrent_writers(weaviate_double: WeaviateDouble, notes: Collection) -> None:
    def write(worker: int) -> None:
        with connect(weaviate_double.http_port, weaviate_double.grpc_port) as client:
            collection = client.collections.get(notes.name)
            result = collection.data.insert_many(
                [DataObject(properties={"n": 1000 + worker * 50 + i}, vector=[1.0, 0.0, 0.0]) for i in range(50)]
            )
            assert not result.has_errors

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(write, range(4)))
    assert notes.aggregate.over_all(total_count=True).total_count == 5 + 200
