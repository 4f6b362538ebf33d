"""The definitions of the Weaviate collections the vector stores create at start: the style rows
(`stores.weaviate_style_store`) and every project's passages (`stores.weaviate_writing_index`). Vectors are ours
(self-provided, cosine); no vectorizer module is needed on the server."""

import weaviate
from weaviate.classes.config import Configure, DataType, Property, StopwordsPreset, Tokenization, VectorDistances


def create_style_collection(client: weaviate.WeaviateClient, name: str) -> object:
    """Style rows (`stores.weaviate_style_store`): the style id, the name or alias, its build, our vectors, cosine."""
    return client.collections.create(
        name,
        properties=[
            Property(name="style_id", data_type=DataType.TEXT, tokenization=Tokenization.FIELD),
            Property(name="text", data_type=DataType.TEXT, index_searchable=False),
            Property(name="build", data_type=DataType.TEXT, tokenization=Tokenization.FIELD),
        ],
        vector_config=Configure.Vectors.self_provided(
            vector_index_config=Configure.VectorIndex.hnsw(distance_metric=VectorDistances.COSINE)
        ),
    )


def create_passage_collection(client: weaviate.WeaviateClient, name: str) -> object:
    """Passages (`stores.weaviate_writing_index`): keyword properties to filter on, the text as stored, the `grams`
    BM25 searches (whitespace-tokenized, no stop words: "an", "in", "on" are grams too), our vectors, cosine."""

    def keyword(name: str) -> Property:
        return Property(name=name, data_type=DataType.TEXT, tokenization=Tokenization.FIELD, index_searchable=False)

    def stored(name: str, data_type: DataType = DataType.TEXT) -> Property:
        return Property(name=name, data_type=data_type, index_searchable=False, index_filterable=False)

    return client.collections.create(
        name,
        properties=[
            *(keyword(name) for name in ("project", "passage_id", "item_key", "content_hash", "kind", "ref_id")),
            stored("title"),
            stored("text"),
            stored("chapter_position", DataType.INT),
            stored("start", DataType.INT),
            Property(
                name="grams", data_type=DataType.TEXT, tokenization=Tokenization.WHITESPACE, index_filterable=False
            ),
        ],
        inverted_index_config=Configure.inverted_index(stopwords_preset=StopwordsPreset.NONE),
        vector_config=Configure.Vectors.self_provided(
            vector_index_config=Configure.VectorIndex.hnsw(distance_metric=VectorDistances.COSINE)
        ),
    )
