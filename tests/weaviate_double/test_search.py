"""Searches through the official client, sync and async: near_vector (distance = 1 - cosine, thresholds, filters,
named vector), bm25 (BM25F scores, boosts, tokenization, operators) and hybrid (both fusions, alpha, filters), and a
hybrid without a vector refused as Weaviate refuses it."""

import math
import uuid
from collections.abc import Iterator

import pytest
import weaviate
from weaviate.classes.config import Configure, DataType, Property, Tokenization
from weaviate.classes.data import DataObject
from weaviate.classes.query import BM25Operator, Filter, HybridFusion, MetadataQuery
from weaviate.collections import Collection
from weaviate.exceptions import WeaviateQueryError

from tests.weaviate_double import WeaviateDouble

DOCS = [
    ("The quick fox", "a fox jumps over the dog", "a", [1.0, 0.0, 0.0]),
    ("Lazy dog", "the dog sleeps all day", "b", [0.0, 1.0, 0.0]),
    ("Cats", "cats and dogs and a fox", "a", [0.0, 0.0, 1.0]),
    ("Nothing", "unrelated text here", "b", [0.6, 0.8, 0.0]),
]


@pytest.fixture
def docs(weaviate_client: weaviate.WeaviateClient) -> Iterator[Collection]:
    name = f"Docs{uuid.uuid4().hex[:8]}"
    collection = weaviate_client.collections.create(
        name,
        properties=[
            Property(name="title", data_type=DataType.TEXT),
            Property(name="body", data_type=DataType.TEXT),
            Property(name="kind", data_type=DataType.TEXT, tokenization=Tokenization.FIELD, index_searchable=False),
        ],
        vector_config=Configure.Vectors.self_provided(),
    )
    collection.data.insert_many(
        [DataObject(properties={"title": t, "body": b, "kind": k}, vector=v) for t, b, k, v in DOCS]
    )
    yield collection
    weaviate_client.collections.delete(name)


def _titles(result: object) -> list[str]:
    return [o.properties["title"] for o in result.objects]  # type: ignore[attr-defined]


def test_near_vector_distance_is_one_minus_cosine(docs: Collection) -> None:
    result = docs.query.near_vector(
        [1.0, 1.0, 0.0], limit=2, return_metadata=MetadataQuery(distance=True, certainty=True)
    )
    assert _titles(result) == ["Nothing", "The quick fox"]
    nearest = result.objects[0].metadata
    expected = 1 - 1.4 / math.sqrt(2)
    assert nearest.distance == pytest.approx(expected, abs=1e-6)
    assert nearest.certainty == pytest.approx(1 - expected / 2, abs=1e-6)


def test_near_vector_threshold_filter_and_target(docs: Collection) -> None:
    assert _titles(docs.query.near_vector([1.0, 0.1, 0.0], distance=0.4)) == ["The quick fox", "Nothing"]
    assert _titles(docs.query.near_vector([1.0, 0.1, 0.0], certainty=0.99)) == ["The quick fox"]
    filtered = docs.query.near_vector([1.0, 0.0, 0.0], filters=Filter.by_property("kind").equal("b"), limit=1)
    assert _titles(filtered) == ["Nothing"]
    assert _titles(docs.query.near_vector([0.0, 0.0, 1.0], target_vector="default", limit=1)) == ["Cats"]


def test_bm25_scores(docs: Collection) -> None:
    result = docs.query.bm25("fox", return_metadata=MetadataQuery(score=True))
    assert _titles(result) == ["The quick fox", "Cats"]
    # each searchable property scored on its own and summed (kind is not searchable): N=4; "fox" is in 1 title and
    # 2 bodies, n = (1 + 2) // 2; each property has its own mean length: 7/4 tokens (titles), 20/4 (bodies)
    idf = math.log(1 + (4 - 1 + 0.5) / (1 + 0.5))

    def part(length: int, average: float) -> float:
        return 1 / (1 + 1.2 * (0.25 + 0.75 * length / average))

    assert result.objects[0].metadata.score == pytest.approx(idf * (part(3, 7 / 4) + part(6, 20 / 4)))
    assert result.objects[1].metadata.score == pytest.approx(idf * part(6, 20 / 4))


def test_bm25_boost_operator_stopwords_and_filters(docs: Collection) -> None:
    assert _titles(docs.query.bm25("dog", query_properties=["title^3", "body"])) == ["Lazy dog", "The quick fox"]
    assert _titles(docs.query.bm25("fox dog", operator=BM25Operator.and_())) == ["The quick fox"]
    assert _titles(docs.query.bm25("the")) == []  # an English stopword
    assert _titles(docs.query.bm25("fox", filters=Filter.by_property("kind").equal("a"), limit=1)) == ["The quick fox"]


@pytest.mark.parametrize("fusion", [HybridFusion.RELATIVE_SCORE, HybridFusion.RANKED])
def test_hybrid(docs: Collection, fusion: HybridFusion) -> None:
    result = docs.query.hybrid(
        "fox", vector=[0.0, 0.0, 1.0], alpha=0.6, fusion_type=fusion, return_metadata=MetadataQuery(score=True)
    )
    assert _titles(result)[0] == "Cats"  # second by keyword, first by vector
    scores = [o.metadata.score or 0.0 for o in result.objects]
    assert scores == sorted(scores, reverse=True)
    keyword_only = docs.query.hybrid("fox", alpha=0.0)
    assert _titles(keyword_only) == ["The quick fox", "Cats"]
    filtered = docs.query.hybrid("fox", vector=[0.0, 0.0, 1.0], filters=Filter.by_property("kind").equal("b"))
    assert sorted(_titles(filtered)) == ["Lazy dog", "Nothing"]


def test_relative_score_fusion_values(docs: Collection) -> None:
    result = docs.query.hybrid("fox", vector=[0.0, 0.0, 1.0], alpha=1.0, return_metadata=MetadataQuery(score=True))
    assert result.objects[0].metadata.score == pytest.approx(1.0)  # the best vector hit normalizes to 1


def test_hybrid_without_a_vector_is_refused(docs: Collection) -> None:
    with pytest.raises(WeaviateQueryError, match="no vectorizer"):
        docs.query.hybrid("fox")


async def test_async_client(weaviate_double: WeaviateDouble) -> None:
    async with weaviate.use_async_with_custom(
        http_host=weaviate_double.host,
        http_port=weaviate_double.http_port,
        http_secure=False,
        grpc_host=weaviate_double.host,
        grpc_port=weaviate_double.grpc_port,
        grpc_secure=False,
    ) as client:
        name = f"Async{uuid.uuid4().hex[:8]}"
        collection = await client.collections.create(
            name,
            properties=[Property(name="title", data_type=DataType.TEXT)],
            vector_config=Configure.Vectors.self_provided(),
        )
        await collection.data.insert_many([DataObject(properties={"title": t}, vector=v) for t, _, _, v in DOCS])
        assert (await collection.aggregate.over_all(total_count=True)).total_count == 4
        assert _titles(await collection.query.near_vector([0.0, 1.0, 0.0], limit=1)) == ["Lazy dog"]
        assert _titles(await collection.query.bm25("dog")) == ["Lazy dog"]
        hybrid = await collection.query.hybrid("fox", vector=[1.0, 0.0, 0.0], alpha=0.5, limit=1)
        assert _titles(hybrid) == ["The quick fox"]
        with pytest.raises(WeaviateQueryError, match="could not find class"):
            await client.collections.get("Missing").query.fetch_objects()
        await client.collections.delete(name)
