"""The style library and the style stores: retrieval quality, threshold and limits as a contract over every backend
(LanceDB; Weaviate: the loopback double, and a real server when `WEAVIATE_URL` is set, tests/vector_backends.py);
the LanceDB table's reopening and rebuilds, the Weaviate collection's, and the cache."""

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import lancedb
import pytest
from lancedb.table import LanceTable

from stores.calibration import RAW_KNOTS, THRESHOLD, StyleScorer, calibrate, derive_knots, measure
from stores.embedder import HashingEmbedder
from stores.style_library import StyleEntry, load_style_library, style_vocabulary
from stores.style_search import CACHE_TTL_SECONDS
from stores.style_store import TABLE_NAME, LanceStyleStore, StyleStore
from stores.weaviate_style_store import WeaviateStyleStore
from tests.vector_backends import (  # noqa: F401 (fixtures)
    VECTOR_BACKENDS,
    collection_prefix,
    drop_collections,
    weaviate_double,
    weaviate_endpoint,
    weaviate_server,
)

LIBRARY = load_style_library()
STYLE_NAMES = {entry.id: f"{entry.name_zh} / {entry.name_en}" for entry in LIBRARY}
SURFACE_FORMS = sum(len(entry.surface_forms) for entry in LIBRARY)


class FakeClock:
    """A clock the cache test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module", params=VECTOR_BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StyleStore]:
    """The contract tests' store, on each backend."""
    if request.param == "lancedb":
        yield LanceStyleStore.open(tmp_path_factory.mktemp("lancedb"))
        return
    endpoint = weaviate_endpoint(request, request.param)
    prefix = collection_prefix()
    weaviate_store = WeaviateStyleStore.open(endpoint.client(), prefix=prefix)
    yield weaviate_store
    weaviate_store.close()
    drop_collections(endpoint, prefix)


@pytest.fixture
def lance_searches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Records every vector search that reaches LanceDB."""
    calls: list[object] = []
    original: Any = LanceTable.search

    def counting_search(self: LanceTable, *args: object, **kwargs: object) -> Any:
        calls.append(args[0] if args else None)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LanceTable, "search", counting_search)
    yield calls


def table_state(directory: Path) -> tuple[int, int]:
    table = lancedb.connect(directory).open_table(TABLE_NAME)
    return table.count_rows(), table.version


# --- the library ---------------------------------------------------------------------------------


def test_library_has_at_least_40_styles_with_unique_ids_and_both_names() -> None:
    assert len(LIBRARY) >= 40
    assert len({entry.id for entry in LIBRARY}) == len(LIBRARY)
    assert all(entry.name_zh.strip() and entry.name_en.strip() and entry.prompt.strip() for entry in LIBRARY)


def test_no_name_or_alias_belongs_to_two_styles() -> None:
    owners: dict[str, str] = {}
    for entry in LIBRARY:
        for form in entry.surface_forms:
            assert owners.setdefault(form.casefold(), entry.id) == entry.id, form


def test_library_is_parsed_once_and_handed_out_as_fresh_lists() -> None:
    first, second = load_style_library(), load_style_library()

    assert first == second
    assert first is not second
    assert first[0] is second[0]


def test_vocabulary_lists_every_name_and_alias_longest_first() -> None:
    vocabulary = style_vocabulary(LIBRARY)

    assert {"赛博朋克", "赛博", "cyberpunk", "cyber punk", "水彩", "watercolour"} <= set(vocabulary)
    assert [len(word) for word in vocabulary] == sorted((len(word) for word in vocabulary), reverse=True)
    assert vocabulary.index("赛博朋克") < vocabulary.index("赛博")


# --- retrieval -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "style_id"),
    [
        ("赛博朋克", "cyberpunk"),
        ("赛博朋克风", "cyberpunk"),
        ("赛博朋克风格", "cyberpunk"),
        ("cyberpunk", "cyberpunk"),
        ("cyber punk", "cyberpunk"),
        ("Cyberpunk style", "cyberpunk"),
        ("水彩", "watercolor"),
        ("水彩风格", "watercolor"),
        ("watercolour", "watercolor"),
        ("watercolour painting", "watercolor"),
        ("浮世绘", "ukiyo_e"),
        ("ukiyo-e", "ukiyo_e"),
        ("ukiyo e", "ukiyo_e"),
        ("水墨画", "ink_wash"),
        ("ink wash", "ink_wash"),
        ("像素风", "pixel_art"),
        ("pixel art", "pixel_art"),
        ("pixel-art", "pixel_art"),
        ("油画", "oil_painting"),
        ("oil painting", "oil_painting"),
        ("二次元", "anime"),
        ("动漫风格", "anime"),
        ("吉卜力风格", "ghibli"),
        ("Q版", "chibi"),
        ("敦煌壁画", "dunhuang"),
        ("蒸汽朋克", "steampunk"),
        ("low poly", "low_poly"),
        ("赛博朋克 猫 画一只赛博朋克风格的猫", "cyberpunk"),
    ],
)
def test_chinese_and_english_queries_find_their_style_first(store: StyleStore, query: str, style_id: str) -> None:
    results = store.search(query)

    assert results, f"nothing found for {query!r}"
    assert results[0].style == STYLE_NAMES[style_id]
    assert results[0].similarity >= THRESHOLD
    assert results[0].prompt == next(entry.prompt for entry in LIBRARY if entry.id == style_id)


@pytest.mark.parametrize(
    "query",
    ["今天天气怎么样", "banana smoothie recipe", "🐱🐱", "", "帮我画一只猫", "make it brighter", "风格"],
)
def test_unrelated_queries_find_nothing(store: StyleStore, query: str) -> None:
    assert store.search(query) == []


def test_an_exact_name_scores_one(store: StyleStore) -> None:
    assert store.search("浮世绘")[0].similarity == 1.0


def test_results_are_best_first_and_limited(store: StyleStore) -> None:
    results = store.search("painting", limit=3, min_similarity=0.0)
    single = store.search("painting", limit=1, min_similarity=0.0)

    assert len(results) == 3
    assert [result.similarity for result in results] == sorted((result.similarity for result in results), reverse=True)
    assert single == results[:1]


def test_min_similarity_filters_results(store: StyleStore) -> None:
    everything = store.search("印象派", min_similarity=0.0)
    strict = store.search("印象派", min_similarity=0.95)

    assert len(everything) == 3
    assert [result.style for result in strict] == [STYLE_NAMES["impressionism"]]


def test_rejects_a_limit_below_one(store: StyleStore) -> None:
    with pytest.raises(ValueError, match="limit"):
        store.search("水彩", limit=0)


@pytest.mark.parametrize("query", ["水彩风格", "cyber punk", "印象派油画", "oil pastel"])
def test_lancedb_scores_equal_the_calibrated_numpy_cosines(store: StyleStore, query: str) -> None:
    raw = StyleScorer(HashingEmbedder(), LIBRARY).scores(query)
    by_name = {STYLE_NAMES[style_id]: round(calibrate(score), 3) for style_id, score in raw.items()}

    for result in store.search(query, min_similarity=0.0):
        assert result.similarity == pytest.approx(by_name[result.style], abs=1e-3)


def test_calibration_knots_match_a_fresh_measurement() -> None:
    """Editing the library or the embedder means rerunning `python -m stores.calibration` (docs/rag.md)."""
    assert derive_knots(measure(StyleScorer(HashingEmbedder(), LIBRARY))) == RAW_KNOTS


def test_calibration_is_monotone_and_clamped() -> None:
    raw = [i / 100 for i in range(-10, 111)]
    calibrated = [calibrate(value) for value in raw]

    assert calibrated == sorted(calibrated)
    assert calibrate(-0.2) == 0.0
    assert calibrate(1.0) == 1.0
    assert calibrate(1.2) == 1.0


# --- the table -----------------------------------------------------------------------------------


def test_first_open_builds_one_row_per_name_and_alias(tmp_path: Path) -> None:
    LanceStyleStore.open(tmp_path)

    rows, _ = table_state(tmp_path)
    assert rows == SURFACE_FORMS


def test_reopening_reuses_the_table_without_writing(tmp_path: Path) -> None:
    LanceStyleStore.open(tmp_path)
    before = table_state(tmp_path)

    reopened = LanceStyleStore.open(tmp_path)

    assert table_state(tmp_path) == before
    assert reopened.search("水彩")[0].style == STYLE_NAMES["watercolor"]


def test_a_second_process_reuses_the_table_without_duplicates(tmp_path: Path) -> None:
    script = "import sys; from pathlib import Path; from stores.style_store import LanceStyleStore; "
    script += "LanceStyleStore.open(Path(sys.argv[1]))"
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, capture_output=True)
    before = table_state(tmp_path)

    LanceStyleStore.open(tmp_path)

    assert table_state(tmp_path) == before
    assert before[0] == SURFACE_FORMS


def test_a_changed_library_rebuilds_the_table(tmp_path: Path) -> None:
    small: list[StyleEntry] = LIBRARY[:2]
    LanceStyleStore.open(tmp_path, library=small)
    assert table_state(tmp_path)[0] == sum(len(entry.surface_forms) for entry in small)

    store = LanceStyleStore.open(tmp_path)

    assert table_state(tmp_path)[0] == SURFACE_FORMS
    assert store.search("水彩")[0].style == STYLE_NAMES["watercolor"]


def test_a_changed_embedder_rebuilds_the_table(tmp_path: Path) -> None:
    LanceStyleStore.open(tmp_path)
    _, version = table_state(tmp_path)

    store = LanceStyleStore.open(tmp_path, embedder=HashingEmbedder(dim=256))

    rows, new_version = table_state(tmp_path)
    assert (rows, new_version > version) == (SURFACE_FORMS, True)
    assert store.search("cyberpunk")[0].style == STYLE_NAMES["cyberpunk"]


def test_an_empty_library_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        LanceStyleStore.open(tmp_path, library=[])


# --- the cache -----------------------------------------------------------------------------------


def test_repeated_queries_are_answered_from_the_cache(tmp_path: Path, lance_searches: list[object]) -> None:
    store = LanceStyleStore.open(tmp_path, clock=FakeClock())

    first = store.search("水彩风格")
    second = store.search("水彩风格")

    assert second == first
    assert len(lance_searches) == 1


def test_cached_results_cannot_be_changed_by_a_caller(tmp_path: Path) -> None:
    store = LanceStyleStore.open(tmp_path, clock=FakeClock())
    store.search("水彩")[0].prompt = "changed"

    assert store.search("水彩")[0].prompt != "changed"


def test_cached_results_expire_after_an_hour(tmp_path: Path, lance_searches: list[object]) -> None:
    clock = FakeClock()
    store = LanceStyleStore.open(tmp_path, clock=clock)
    store.search("浮世绘")

    clock.now += CACHE_TTL_SECONDS - 1
    store.search("浮世绘")
    assert len(lance_searches) == 1

    clock.now += 1
    store.search("浮世绘")
    assert len(lance_searches) == 2


def test_limit_and_threshold_are_part_of_the_cache_key(tmp_path: Path, lance_searches: list[object]) -> None:
    store = LanceStyleStore.open(tmp_path, clock=FakeClock())

    store.search("印象派")
    store.search("印象派", limit=1)
    store.search("印象派", min_similarity=0.9)

    assert len(lance_searches) == 3


# --- the Weaviate collection -----------------------------------------------------------------------


@pytest.fixture
def weaviate_styles(request: pytest.FixtureRequest) -> Iterator[Callable[..., WeaviateStyleStore]]:
    """Opens Weaviate style stores (on the double) over one test's collections; all closed and dropped after it."""
    endpoint = weaviate_endpoint(request, "weaviate-double")
    prefix = collection_prefix()
    opened: list[WeaviateStyleStore] = []

    def open_store(**options: Any) -> WeaviateStyleStore:
        opened.append(WeaviateStyleStore.open(endpoint.client(), prefix=prefix, **options))
        return opened[-1]

    yield open_store
    for store in opened:
        store.close()
    drop_collections(endpoint, prefix)


def style_rows(store: WeaviateStyleStore) -> int:
    count = store._collection.aggregate.over_all(total_count=True).total_count
    assert count is not None
    return count


def test_weaviate_rebuilds_the_styles_when_the_library_or_the_embedder_changes(
    weaviate_styles: Callable[..., WeaviateStyleStore],
) -> None:
    small: list[StyleEntry] = LIBRARY[:2]
    assert style_rows(weaviate_styles(library=small)) == sum(len(entry.surface_forms) for entry in small)

    full = weaviate_styles()
    reopened = weaviate_styles()
    resized = weaviate_styles(embedder=HashingEmbedder(dim=256))

    assert style_rows(full) == style_rows(reopened) == style_rows(resized) == SURFACE_FORMS
    assert resized.search("cyberpunk")[0].style == STYLE_NAMES["cyberpunk"]
