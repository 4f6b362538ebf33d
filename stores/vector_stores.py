"""Which store holds the vectors (`VECTOR_STORE`), for the worker and the gateway: embedded LanceDB under
`DATA_DIR` (the default) or a Weaviate server every process shares (`WEAVIATE_URL`, `WEAVIATE_GRPC_PORT`,
`WEAVIATE_API_KEY`). The Weaviate stores (`stores.weaviate_style_store`, `stores.weaviate_writing_index`) are
imported only when the setting names Weaviate; opening one connects and creates its collections, so the worker
(`open_worker_vector_stores`) and the gateway (`open_index_removal`) open them at start, not at a first query.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from models.settings import Settings
from stores import writing_index
from stores.style_library import StyleEntry, load_style_library
from stores.style_store import LanceStyleStore, StyleStore
from stores.writing_index import ProjectIndex
from stores.writing_passages import ProjectSearch


@dataclass(frozen=True)
class IndexRemoval:
    """How the gateway deletes a project's passages (and what records their revision) from the index, and closes
    its connection at shutdown."""

    remove: Callable[[str], list[str]]
    """Deletes one project's passages; what went, for the log."""
    close: Callable[[], None] = lambda: None


@dataclass(frozen=True)
class SharedVectorStores:
    """The Weaviate stores a worker opens at start, hands its activities and closes at shutdown."""

    style_store: StyleStore
    project_index: ProjectSearch
    close: Callable[[], None]


def open_worker_vector_stores(settings: Settings) -> SharedVectorStores | None:
    """On Weaviate, both stores opened now (collections created, the styles rebuilt if the library changed), so a
    misconfigured server stops the worker at start (`VectorStoreConfigError`); None on LanceDB, whose stores open at
    first use as before."""
    if settings.vector_store != "weaviate":
        return None
    from stores.weaviate_client import connect_with
    from stores.weaviate_style_store import WeaviateStyleStore
    from stores.weaviate_writing_index import WeaviateProjectIndex

    styles = WeaviateStyleStore.open(connect_with(settings), library=load_style_library())
    try:
        index = WeaviateProjectIndex.open(connect_with(settings))
    except BaseException:
        styles.close()
        raise

    def close() -> None:
        styles.close()
        index.close()

    return SharedVectorStores(styles, index, close)


def check_vector_store(settings: Settings) -> None:
    """Whether the vector store `VECTOR_STORE` names can be reached (Weaviate: connect, then close); raises
    `VectorStoreConfigError` naming the settings, so a process stops at start with a message, not a traceback."""
    if settings.vector_store == "weaviate":
        from stores.weaviate_client import connect_with

        connect_with(settings).close()


def open_style_store(settings: Settings, library: list[StyleEntry]) -> StyleStore:
    """The style store `VECTOR_STORE` names, its table or collection up to date with `library`."""
    if settings.vector_store == "weaviate":
        from stores.weaviate_client import connect_with
        from stores.weaviate_style_store import WeaviateStyleStore

        return WeaviateStyleStore.open(connect_with(settings), library=library)
    return LanceStyleStore.open(settings.lancedb_dir, library=library)


def open_project_index(settings: Settings) -> ProjectSearch:
    """The writing projects' search index `VECTOR_STORE` names."""
    if settings.vector_store == "weaviate":
        from stores.weaviate_client import connect_with
        from stores.weaviate_writing_index import WeaviateProjectIndex

        return WeaviateProjectIndex.open(connect_with(settings))
    return ProjectIndex.open(settings.writing_index_dir)


def open_index_removal(settings: Settings) -> IndexRemoval:
    """How the gateway deletes a project from the index `VECTOR_STORE` names (`stores.project_removal`)."""
    if settings.vector_store == "weaviate":
        from stores.weaviate_client import connect_with
        from stores.weaviate_writing_index import WeaviateProjectIndex

        index = WeaviateProjectIndex.open(connect_with(settings))
        return IndexRemoval(index.remove_project, index.close)
    return IndexRemoval(partial(writing_index.remove_project, settings.writing_index_dir))
