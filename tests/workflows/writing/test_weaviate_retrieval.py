"""The writing family on Weaviate (`VECTOR_STORE=weaviate`, the loopback double of tests/weaviate_double): a run's
retrieval reads the project's passages from the Weaviate collection, and nothing of the vectors lands under
`DATA_DIR`. The stores are opened by the factories the worker uses (`stores.vector_stores`)."""

import re
import socket
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from api import server
from stores.blob_store import BlobStore
from stores.style_library import load_style_library
from stores.vector_errors import VectorStoreConfigError
from stores.vector_stores import open_project_index, open_style_store, open_worker_vector_stores
from stores.weaviate_style_store import WeaviateStyleStore
from stores.weaviate_writing_index import COLLECTION, WeaviateProjectIndex
from stores.writing_projects import ProjectStore
from tests.vector_backends import weaviate_double, weaviate_endpoint  # noqa: F401 (fixture)
from tests.workflows.harness import running_family, settings_for
from tests.workflows.writing.conftest import CHAPTERS, CHARACTERS, PLOT_LOOPS, STYLE_SAMPLES
from tests.workflows.writing.harness import WritingHarness


async def test_a_writing_run_on_weaviate_retrieves_the_projects_passages_from_it(
    env: WorkflowEnvironment, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    endpoint = weaviate_endpoint(request, "weaviate-double")
    settings = settings_for(tmp_path, **{name.lower(): value for name, value in endpoint.environment().items()})
    index = open_project_index(settings)
    styles = open_style_store(settings, load_style_library())
    assert isinstance(index, WeaviateProjectIndex) and isinstance(styles, WeaviateStyleStore)

    def harness(settings_: object, blobs: BlobStore) -> WritingHarness:
        return WritingHarness(env, settings, projects=ProjectStore.under(settings.data_dir))

    try:
        async with running_family(
            env, tmp_path, harness, settings=settings, project_index=index, style_store=styles
        ) as w:
            project = w.project(
                chapters=CHAPTERS, characters=CHARACTERS, plot_loops=PLOT_LOOPS, style_samples=STYLE_SAMPLES
            )
            outcome = await w.run(project, "写一段林舟在码头回忆老陈的场景")
        with endpoint.client() as client:
            stored = client.collections.get(COLLECTION).aggregate.over_all(total_count=True).total_count
    finally:
        index.close()
        styles.close()

    context = outcome.state.preprocessing_context
    assert context is not None
    assert any(p.kind == "chapter" and "码头" in p.text for p in context.passages), "retrieval found chapter 2"
    assert stored and stored >= len(CHAPTERS) + len(CHARACTERS)
    assert not (tmp_path / "lancedb").exists(), "no vectors under DATA_DIR"


def test_the_worker_opens_the_weaviate_stores_at_start_and_lancedb_at_first_use(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    endpoint = weaviate_endpoint(request, "weaviate-double")
    settings = settings_for(tmp_path, **{name.lower(): value for name, value in endpoint.environment().items()})

    vectors = open_worker_vector_stores(settings)

    assert vectors is not None
    with endpoint.client() as client:
        created = set(client.collections.list_all(simple=True))
    vectors.close()
    assert isinstance(vectors.project_index, WeaviateProjectIndex) and isinstance(
        vectors.style_store, WeaviateStyleStore
    )
    assert {"Style", "WritingPassage", "VectorStoreMeta"} <= created
    assert open_worker_vector_stores(settings_for(tmp_path / "embedded")) is None
    assert not (tmp_path / "lancedb").exists() and not (tmp_path / "embedded").exists()


@pytest.mark.parametrize(
    ("url", "grpc_port", "named"),
    [(None, 50051, "WEAVIATE_URL=http(s)://host[:port]"), ("weaviate:8080", 50051, "got 'weaviate:8080'")],
)
def test_a_weaviate_setting_that_is_not_a_url_stops_the_worker_naming_it(
    tmp_path: Path, url: str | None, grpc_port: int, named: str
) -> None:
    settings = settings_for(tmp_path, vector_store="weaviate", weaviate_url=url, weaviate_grpc_port=grpc_port)

    with pytest.raises(VectorStoreConfigError, match=re.escape(named)):
        open_worker_vector_stores(settings)


def test_a_weaviate_that_does_not_answer_stops_the_worker_naming_the_settings(tmp_path: Path) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    settings = settings_for(tmp_path, vector_store="weaviate", weaviate_url=f"http://127.0.0.1:{port}")

    with pytest.raises(VectorStoreConfigError, match=f"WEAVIATE_URL=http://127.0.0.1:{port} and WEAVIATE_GRPC_PORT"):
        open_worker_vector_stores(settings)


def test_a_weaviate_that_does_not_answer_stops_the_gateway_at_start_naming_the_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    for name, value in {"VECTOR_STORE": "weaviate", "WEAVIATE_URL": f"http://127.0.0.1:{port}"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))

    with pytest.raises(SystemExit, match=f"gateway: no Weaviate answers at WEAVIATE_URL=http://127.0.0.1:{port}"):
        server.main()
