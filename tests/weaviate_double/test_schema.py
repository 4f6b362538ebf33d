"""Collections through the official client: create (data types, tokenization, self-provided cosine vectors), exists,
config get, list_all, delete, and Weaviate's refusals (an existing name, a vectorizer the double lacks)."""

import uuid

import pytest
import weaviate
from weaviate.classes.config import Configure, DataType, Property, Tokenization, VectorDistances
from weaviate.exceptions import UnexpectedStatusCodeError


def _name() -> str:
    return f"Schema{uuid.uuid4().hex[:8]}"


def test_create_get_list_delete(weaviate_client: weaviate.WeaviateClient) -> None:
    name = _name()
    weaviate_client.collections.create(
        name.lower(),
        properties=[
            Property(name="text", data_type=DataType.TEXT, tokenization=Tokenization.WORD),
            Property(name="key", data_type=DataType.TEXT, tokenization=Tokenization.FIELD),
            Property(name="n", data_type=DataType.INT),
            Property(name="x", data_type=DataType.NUMBER),
            Property(name="ok", data_type=DataType.BOOL),
            Property(name="tags", data_type=DataType.TEXT_ARRAY, tokenization=Tokenization.WHITESPACE),
            Property(name="ref", data_type=DataType.UUID),
        ],
        vector_config=Configure.Vectors.self_provided(
            vector_index_config=Configure.VectorIndex.hnsw(distance_metric=VectorDistances.COSINE)
        ),
    )
    assert weaviate_client.collections.exists(name)
    config = weaviate_client.collections.get(name).config.get()
    assert config.name == name  # the server capitalizes the first letter
    assert [(p.name, p.data_type, p.tokenization) for p in config.properties] == [
        ("text", DataType.TEXT, Tokenization.WORD),
        ("key", DataType.TEXT, Tokenization.FIELD),
        ("n", DataType.INT, None),
        ("x", DataType.NUMBER, None),
        ("ok", DataType.BOOL, None),
        ("tags", DataType.TEXT_ARRAY, Tokenization.WHITESPACE),
        ("ref", DataType.UUID, None),
    ]
    assert config.vector_config is not None
    assert config.vector_config["default"].vector_index_config.distance_metric == VectorDistances.COSINE  # type: ignore[union-attr]
    assert name in weaviate_client.collections.list_all()
    weaviate_client.collections.delete(name)
    assert not weaviate_client.collections.exists(name)
    assert name not in weaviate_client.collections.list_all()


def test_existing_name_is_refused(weaviate_client: weaviate.WeaviateClient) -> None:
    name = _name()
    weaviate_client.collections.create(name)
    with pytest.raises(UnexpectedStatusCodeError) as refused:
        weaviate_client.collections.create(name)
    assert refused.value.status_code == 422
    assert "already exists" in refused.value.message


def test_missing_collection_config_is_404(weaviate_client: weaviate.WeaviateClient) -> None:
    with pytest.raises(UnexpectedStatusCodeError) as refused:
        weaviate_client.collections.get(_name()).config.get()
    assert refused.value.status_code == 404


def test_unimplemented_vectorizer_is_refused(weaviate_client: weaviate.WeaviateClient) -> None:
    with pytest.raises(UnexpectedStatusCodeError) as refused:
        weaviate_client.collections.create(_name(), vector_config=Configure.Vectors.text2vec_openai())
    assert refused.value.status_code == 501
    assert "not implemented" in refused.value.message


def test_names_as_a_server_spells_them(weaviate_client: weaviate.WeaviateClient) -> None:
    name = _name()
    weaviate_client.collections.create(name, properties=[Property(name="Title", data_type=DataType.TEXT)])
    assert [p.name for p in weaviate_client.collections.get(name).config.get().properties] == ["title"]
    with pytest.raises(UnexpectedStatusCodeError, match="found similar class"):
        weaviate_client.collections.create(name.upper())
