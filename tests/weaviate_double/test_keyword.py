"""Keyword details through the official client: each tokenization as declared (word, lowercase, whitespace, field,
trigram), the minimum of matching tokens, hybrid's max vector distance and explain_score, and Weaviate's refusals
of a keyword search on a property without a searchable index and a filter on one without a filterable index."""

import uuid
from collections.abc import Iterator

import pytest
import weaviate
from weaviate.classes.config import Configure, DataType, Property, Tokenization
from weaviate.classes.data import DataObject
from weaviate.classes.query import BM25Operator, Filter, HybridFusion, MetadataQuery
from weaviate.collections import Collection
from weaviate.exceptions import WeaviateQueryError

ROWS = [
    {"word": "Red-Apple pie", "lower": "Red-Apple pie", "white": "Red-Apple pie", "field": "Red Apple", "tri": "apple"},
    {"word": "red apple", "lower": "red apple", "white": "red apple", "field": "red apple", "tri": "maple"},
]


@pytest.fixture
def texts(weaviate_client: weaviate.WeaviateClient) -> Iterator[Collection]:
    name = f"Texts{uuid.uuid4().hex[:8]}"
    collection = weaviate_client.collections.create(
        name,
        properties=[
            Property(name="word", data_type=DataType.TEXT, tokenization=Tokenization.WORD),
            Property(name="lower", data_type=DataType.TEXT, tokenization=Tokenization.LOWERCASE),
            Property(name="white", data_type=DataType.TEXT, tokenization=Tokenization.WHITESPACE),
            Property(name="field", data_type=DataType.TEXT, tokenization=Tokenization.FIELD),
            Property(name="tri", data_type=DataType.TEXT, tokenization=Tokenization.TRIGRAM),
            Property(name="hidden", data_type=DataType.TEXT, index_searchable=False, index_filterable=False),
        ],
        vector_config=Configure.Vectors.self_provided(),
    )
    collection.data.insert_many(
        [
            DataObject(properties={**row, "hidden": "x"}, uuid=uuid.UUID(int=i + 1), vector=[1.0, float(i)])
            for i, row in enumerate(ROWS)
        ]
    )
    yield collection
    weaviate_client.collections.delete(name)


def _hits(collection: Collection, query: str, prop: str) -> list[int]:
    found = collection.query.bm25(query, query_properties=[prop])
    return sorted(uuid.UUID(str(o.uuid)).int - 1 for o in found.objects)


def test_each_tokenization(texts: Collection) -> None:
    assert _hits(texts, "apple", "word") == [0, 1]  # "Red-Apple" splits at the hyphen, any case
    assert _hits(texts, "red-apple", "lower") == [0]  # split at spaces only, lower-cased
    assert _hits(texts, "apple", "lower") == [1]
    assert _hits(texts, "Red-Apple", "white") == [0]  # split at spaces, case kept
    assert _hits(texts, "red-apple", "white") == []
    assert _hits(texts, "Red Apple", "field") == [0]  # the whole value
    assert _hits(texts, "appl", "tri") == [0]  # trigrams app, ppl; "maple" has neither
    assert _hits(texts, "ple", "tri") == [0, 1]


def test_minimum_tokens_and_operator(texts: Collection) -> None:
    assert _hits(texts, "apple pie", "word") == [0, 1]
    found = texts.query.bm25("apple pie", query_properties=["word"], operator=BM25Operator.or_(minimum_match=2))
    assert [o.properties["lower"] for o in found.objects] == ["Red-Apple pie"]


def test_unsearchable_and_unfilterable_are_refused(texts: Collection) -> None:
    with pytest.raises(WeaviateQueryError, match="Searching by property 'hidden' requires inverted index"):
        texts.query.bm25("x", query_properties=["hidden"])
    with pytest.raises(WeaviateQueryError, match="Filtering by property 'hidden' requires inverted index"):
        texts.query.fetch_objects(filters=Filter.by_property("hidden").equal("x"))


def test_hybrid_max_vector_distance_and_explain(texts: Collection) -> None:
    found = texts.query.hybrid(
        "apple",
        vector=[1.0, 0.0],
        alpha=0.5,
        max_vector_distance=0.1,
        fusion_type=HybridFusion.RELATIVE_SCORE,
        query_properties=["word"],
        return_metadata=MetadataQuery(score=True, explain_score=True),
    )
    assert [uuid.UUID(str(o.uuid)).int for o in found.objects] == [1]  # object 2 is 0.29 away: out of both lists
    explain = found.objects[0].metadata.explain_score or ""
    assert "Hybrid (Result Set keyword,bm25)" in explain and "Hybrid (Result Set vector,hybridVector)" in explain


def test_max_vector_distance_drops_keyword_only_matches(texts: Collection) -> None:
    # object 1 matches "pie" by keyword only; its vector is 0.29 away: a 1.35 server keeps only the vector list's
    found = texts.query.hybrid("pie", vector=[1.0, 1.0], alpha=0.5, max_vector_distance=0.1, query_properties=["word"])
    assert [uuid.UUID(str(o.uuid)).int for o in found.objects] == [2]
