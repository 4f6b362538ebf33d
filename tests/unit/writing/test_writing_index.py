"""The writing project index: passages and their offsets, Chinese and English full text, fusion, revisions,
isolation between projects, and concurrent rebuilds by threads and by other processes' indexes.

Tests taking `any_index` or `index_backend` are the contract every backend keeps (LanceDB; Weaviate: the loopback
double, and a real server when `WEAVIATE_URL` is set, tests/vector_backends.py); those taking `index` are about
the LanceDB tables."""

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol

import lancedb
import pytest

from models.writing.context import MAX_PASSAGE_CHARS, IndexDocument, Passage
from models.writing.projects import ChapterIn, ProjectIn
from stores import writing_index
from stores.embedder import HashingEmbedder
from stores.weaviate_writing_index import WeaviateProjectIndex
from stores.writing_index import ProjectIndex, remove_project
from stores.writing_passages import CHUNK_MAX, CHUNK_MIN, RRF_K, DocumentLoader, IndexUpdate, chapter_spans
from stores.writing_projects import ProjectStore
from tests.vector_backends import (  # noqa: F401 (fixtures)
    VECTOR_BACKENDS,
    collection_prefix,
    drop_collections,
    weaviate_double,
    weaviate_endpoint,
    weaviate_server,
)

FILLER = [
    "清晨的薄雾笼罩着整座小城，街角的早点铺已经冒出了热气。",
    "卖菜的老人推着木车慢慢走过石板路，车轮吱呀作响。",
    "远处的钟楼敲了七下，惊起一群灰色的鸽子。",
    "河面上漂着几片落叶，随着水流缓缓向东而去。",
    "茶馆里的说书人清了清嗓子，拍下醒木，讲起前朝旧事。",
    "孩子们背着书包跑过桥头，笑声一路洒进巷子深处。",
    "午后的阳光斜斜照进院子，晒得青砖微微发烫。",
    "隔壁的裁缝铺传来缝纫机单调的声音，一直响到黄昏。",
    "晚风吹动屋檐下的风铃，叮当声在空荡的街上回响。",
    "掌柜的拨着算盘，嘴里念叨着这个月的进项。",
    "一只黄猫蹲在墙头，眯着眼睛看着来往的行人。",
    "城外的田野一片金黄，稻穗在风里低低地起伏。",
]
BURIAL = "林黛玉独自来到沁芳闸边，把落花一瓣一瓣扫进锦囊，埋进花冢里，低声吟着葬花词，泪水打湿了衣襟。"
KEY = "贾宝玉在假山后面捡到一把青铜钥匙，钥匙上刻着看不懂的古老花纹。"
HAIRPIN = "贾宝玉在假山后面捡到一支白玉簪子，簪头雕着一朵小小的梅花。"
LIGHTHOUSE = (
    "The old lighthouse keeper climbed the spiral stairs every night. "
    "He trimmed the wick, polished the great lens, and watched the whales pass beneath the cliffs. "
)


def chapter_text(seed: int, special: str = "", paragraphs: int = 12) -> str:
    """Paragraphs of four filler sentences each (rotated by `seed`), with `special` alone in the middle one."""
    lines = []
    for number in range(paragraphs):
        sentences = [FILLER[(seed + number * 5 + offset) % len(FILLER)] for offset in range(4)]
        lines.append("".join(sentences))
    if special:
        lines[paragraphs // 2] = special
    return "\n".join(lines)


def chapter(position: int, text: str, ref_id: str | None = None) -> IndexDocument:
    return IndexDocument(
        kind="chapter", ref_id=ref_id or f"ch{position}", title=f"第{position}章", text=text, chapter_position=position
    )


def character(ref_id: str, name: str, description: str) -> IndexDocument:
    return IndexDocument(kind="character", ref_id=ref_id, title=name, text=description)


def dream_project(key_or_hairpin: str = KEY) -> list[IndexDocument]:
    return [
        chapter(1, chapter_text(0)),
        chapter(2, chapter_text(3, BURIAL)),
        chapter(3, chapter_text(6, key_or_hairpin)),
        character("lin", "林黛玉", "寄居贾府的表小姐，体弱多病，才情过人。"),
        character("jia", "贾宝玉", "荣国府的公子，衔玉而生，厌恶功名。"),
    ]


class CountingLoader:
    """The documents of a project, counting how often the index asks for them."""

    def __init__(self, documents: list[IndexDocument]) -> None:
        self.documents = documents
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self) -> list[IndexDocument]:
        with self._lock:
            self.calls += 1
        return self.documents


def source_text(documents: Sequence[IndexDocument], passage: Passage) -> str:
    (document,) = [doc for doc in documents if (doc.kind, doc.ref_id) == (passage.kind, passage.ref_id)]
    return document.text


def identities(passages: Sequence[Passage]) -> list[tuple[str, str, int]]:
    return [(passage.kind, passage.ref_id, passage.start) for passage in passages]


class Index(Protocol):
    """What the contract tests use of an index: `ProjectSearch` and `refresh`."""

    def search(
        self,
        project_id: str,
        revision: int,
        documents: DocumentLoader,
        query: str,
        *,
        limit: int = 6,
        favour: Sequence[str] = (),
    ) -> list[Passage]: ...

    def refresh(self, project_id: str, revision: int, documents: DocumentLoader) -> IndexUpdate: ...


@dataclass
class IndexBackend:
    """An index on one backend, how to open another process's index over the same store, and the removal hook."""

    index: Index
    reopen: Callable[[], Index]
    remove: Callable[[str], list[str]]


@pytest.fixture(params=VECTOR_BACKENDS)
def index_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IndexBackend]:
    if request.param == "lancedb":
        directory = tmp_path / "index"
        lance = ProjectIndex.open(directory)
        yield IndexBackend(lance, lambda: ProjectIndex.open(directory), partial(remove_project, directory))
        return
    endpoint = weaviate_endpoint(request, request.param)
    prefix = collection_prefix()
    opened = [WeaviateProjectIndex.open(endpoint.client(), prefix=prefix)]

    def reopen() -> Index:
        opened.append(WeaviateProjectIndex.open(endpoint.client(), prefix=prefix))
        return opened[-1]

    yield IndexBackend(opened[0], reopen, opened[0].remove_project)
    for weaviate_index in opened:
        weaviate_index.close()
    drop_collections(endpoint, prefix)


@pytest.fixture
def any_index(index_backend: IndexBackend) -> Index:
    return index_backend.index


@pytest.fixture
def index(tmp_path: Path) -> ProjectIndex:
    return ProjectIndex.open(tmp_path / "index")


def search(
    index: Index, documents: list[IndexDocument], query: str, *, limit: int = 6, favour: Sequence[str] = ()
) -> list[Passage]:
    return index.search("proj_dream", 1, lambda: documents, query, limit=limit, favour=favour)


# --- passages ------------------------------------------------------------------------------------


def test_chapters_are_cut_at_sentence_ends_into_passages_of_300_to_600_characters() -> None:
    text = chapter_text(1, paragraphs=40)

    spans = chapter_spans(text)

    assert len(spans) > 5
    assert all(CHUNK_MIN <= end - start <= CHUNK_MAX for start, end in spans[:-1])
    assert all(text[end - 1] == "。" for _, end in spans)
    assert spans[0][0] == 0
    assert spans[-1][1] == len(text)
    between = [text[end:start] for (_, end), (start, _) in itertools.pairwise(spans)]
    assert all(gap in ("", "\n") for gap in between)


def test_a_sentence_without_ends_is_cut_at_commas_within_the_limit() -> None:
    text = "，".join(["风吹过山岗" + "又吹过河" * (number % 4) for number in range(400)]) + "。"

    spans = chapter_spans(text)

    assert all(end - start <= CHUNK_MAX for start, end in spans[:-1])
    assert spans[-1][1] - spans[-1][0] <= MAX_PASSAGE_CHARS  # a short tail joins the passage before
    assert all(text[end - 1] in "，。" for _, end in spans)
    assert "".join(text[start:end] for start, end in spans) == text


def test_english_sentences_end_at_full_stops_not_inside_numbers() -> None:
    text = " ".join(f"Sentence {number} costs 3.5 coins." for number in range(60))

    spans = chapter_spans(text)

    assert len(spans) > 1
    assert all(text[start:end].endswith("coins.") for start, end in spans)


# --- retrieval -----------------------------------------------------------------------------------


def test_a_chinese_query_finds_the_chapter_passage_at_its_offset(any_index: Index) -> None:
    documents = dream_project()

    passages = search(any_index, documents, "写林黛玉在沁芳闸边葬花的那一段")

    top = passages[0]
    assert (top.kind, top.ref_id, top.chapter_position, top.title) == ("chapter", "ch2", 2, "第2章")
    assert BURIAL in top.text
    for passage in passages:
        assert source_text(documents, passage)[passage.start : passage.start + len(passage.text)] == passage.text
        assert len(passage.text) <= MAX_PASSAGE_CHARS


def test_a_two_character_name_inside_a_longer_one_is_found_by_full_text(any_index: Index) -> None:
    passages = search(any_index, dream_project(), "黛玉")

    found_by_text = {(passage.kind, passage.ref_id) for passage in passages if "text" in passage.matched_by}
    assert found_by_text == {("chapter", "ch2"), ("character", "lin")}
    assert {(passage.kind, passage.ref_id) for passage in passages[:2]} == found_by_text


def test_an_english_query_finds_its_passage_whatever_the_case(any_index: Index) -> None:
    documents = [*dream_project(), chapter(4, chapter_text(2, LIGHTHOUSE.strip()))]

    for query in ("the lighthouse keeper and the whales", "LIGHTHOUSE"):
        top = search(any_index, documents, query)[0]

        assert top.ref_id == "ch4"
        assert "lighthouse keeper" in top.text


def test_a_passage_found_by_both_rankings_comes_first_and_says_so(index: ProjectIndex) -> None:
    passages = search(index, dream_project(), "林黛玉把落花扫进锦囊，埋进花冢")

    top = passages[0]
    assert top.ref_id == "ch2"
    assert top.matched_by == ["text", "vector"]
    assert top.score == pytest.approx(2 / (RRF_K + 1))
    assert all(passage.score < top.score for passage in passages[1:])


def test_a_character_is_found_by_its_name_in_the_title(any_index: Index) -> None:
    passages = search(any_index, dream_project(), "贾宝玉的性格")

    assert ("character", "jia", 0) in identities(passages)


def test_favoured_names_lift_a_passage_among_equals(any_index: Index) -> None:
    rain = "夜里下起了雨，{name}独坐窗前，听着雨打芭蕉的声音，一夜没有睡着。"
    documents = [
        chapter(1, chapter_text(0, rain.format(name="史湘云"))),
        chapter(2, chapter_text(0, rain.format(name="薛宝钗"))),
    ]

    for favoured, expected in (("史湘云", "ch1"), ("薛宝钗", "ch2")):
        passages = search(any_index, documents, "夜里下雨独坐窗前", favour=[favoured])

        assert passages[0].ref_id == expected


def test_unrelated_or_empty_queries_return_nothing(any_index: Index) -> None:
    documents = dream_project()

    for query in ("", "嗯", "?!", "zebra quantum"):
        assert search(any_index, documents, query) == []


def test_limit_caps_the_passages_and_each_appears_once(any_index: Index) -> None:
    passages = search(any_index, dream_project(), "清晨的薄雾笼罩着小城，街角的早点铺冒出热气", limit=4)

    assert len(passages) == 4
    assert len(set(identities(passages))) == 4


def test_an_empty_project_returns_nothing(any_index: Index) -> None:
    blank = [chapter(1, "  \n\n "), character("nobody", "无名氏", "")]

    assert any_index.search("proj_empty", 1, list, "林黛玉") == []
    assert any_index.search("proj_blank", 1, lambda: blank, "林黛玉") == []


# --- revisions and isolation ----------------------------------------------------------------------


def test_a_new_revision_reindexes_the_edit_in_the_projects_one_table(index: ProjectIndex, tmp_path: Path) -> None:
    before = CountingLoader(dream_project(KEY))
    after = CountingLoader(dream_project(HAIRPIN))
    assert "青铜钥匙" in index.search("proj_dream", 1, before, "青铜钥匙")[0].text

    found = index.search("proj_dream", 2, after, "白玉簪子")
    gone = index.search("proj_dream", 2, after, "青铜钥匙")

    assert (before.calls, after.calls) == (1, 1)
    assert "白玉簪子" in found[0].text
    assert all("青铜钥匙" not in passage.text for passage in gone)
    assert lancedb.connect(tmp_path / "index").list_tables().tables == ["writing_proj_dream_passages"]


def test_two_projects_never_see_each_others_passages(any_index: Index) -> None:
    mine = dream_project(KEY)
    theirs = [chapter(1, chapter_text(0, HAIRPIN), ref_id="other_ch1")]
    any_index.search("proj_theirs", 1, lambda: theirs, "白玉簪子")

    passages = any_index.search("proj_mine", 1, lambda: mine, "贾宝玉在假山后面捡到白玉簪子")

    assert passages
    assert {passage.ref_id for passage in passages} <= {document.ref_id for document in mine}
    assert all("白玉簪子" not in passage.text for passage in passages)


def test_documents_are_loaded_once_per_revision_even_by_another_process(index_backend: IndexBackend) -> None:
    loader = CountingLoader(dream_project())
    for query in ("林黛玉", "青铜钥匙", "葬花"):
        index_backend.index.search("proj_dream", 1, loader, query)
    other_process = index_backend.reopen()

    passages = other_process.search("proj_dream", 1, loader, "葬花")

    assert loader.calls == 1
    assert passages[0].ref_id == "ch2"


def test_a_removed_project_is_gone_and_the_others_stay(index_backend: IndexBackend) -> None:
    index = index_backend.index
    mine = dream_project(KEY)
    theirs = [chapter(1, chapter_text(0, HAIRPIN), ref_id="other_ch1")]
    index.search("proj_mine", 1, lambda: mine, "青铜钥匙")
    index.search("proj_theirs", 1, lambda: theirs, "白玉簪子")

    index_backend.remove("proj_mine")

    assert index_backend.reopen().search("proj_mine", 1, list, "青铜钥匙") == []
    assert index.search("proj_mine", 2, list, "青铜钥匙") == []
    assert index.search("proj_theirs", 1, lambda: theirs, "白玉簪子")[0].ref_id == "other_ch1"


def test_a_table_dropped_by_another_process_is_rebuilt_not_raised(index: ProjectIndex, tmp_path: Path) -> None:
    loader = CountingLoader(dream_project())
    index.search("proj_dream", 1, loader, "葬花")
    lancedb.connect(tmp_path / "index").drop_table("writing_proj_dream_passages")  # as a format change does

    passages = index.search("proj_dream", 1, loader, "葬花")

    assert passages[0].ref_id == "ch2"
    assert loader.calls == 2


def test_tables_of_the_one_table_per_revision_format_are_dropped(index: ProjectIndex, tmp_path: Path) -> None:
    db = lancedb.connect(tmp_path / "index")
    db.create_table("writing_proj_dream_r7", data=[{"passage_id": "chapter:ch1:0"}])
    db.create_table("writing_proj_dreamy_r7", data=[{"passage_id": "chapter:ch1:0"}])

    index.search("proj_dream", 8, lambda: dream_project(), "葬花")

    assert sorted(db.list_tables().tables) == ["writing_proj_dream_passages", "writing_proj_dreamy_r7"]


def test_concurrent_searches_of_a_stale_index_agree_without_duplicates(index: ProjectIndex, tmp_path: Path) -> None:
    index.search("proj_dream", 1, lambda: dream_project(KEY), "青铜钥匙")
    loader = CountingLoader(dream_project(HAIRPIN))
    other_process = ProjectIndex.open(tmp_path / "index")
    searchers = [index, other_process] * 4
    start = threading.Barrier(len(searchers))

    def search_revision_2(searcher: ProjectIndex) -> list[Passage]:
        start.wait()
        return searcher.search("proj_dream", 2, loader, "贾宝玉捡到的白玉簪子和葬花")

    with ThreadPoolExecutor(len(searchers)) as pool:
        results = list(pool.map(search_revision_2, searchers))

    assert loader.calls == 1
    assert all(result == results[0] for result in results)
    assert len(set(identities(results[0]))) == len(results[0]) > 1
    assert "白玉簪子" in results[0][0].text


# --- updates: only what changed (issue 28 item 4) -------------------------------------------------


def chapter_texts(index: Index, revision: int, documents: list[IndexDocument]) -> dict[tuple[str, int], str]:
    """Every chapter passage the index holds, by (chapter id, offset), found by a query for each chapter's title."""
    found: dict[tuple[str, int], str] = {}
    for document in documents:
        for passage in index.search("proj_dream", revision, lambda: documents, document.title, limit=50):
            if passage.kind == "chapter":
                found[(passage.ref_id, passage.start)] = passage.text
    return found


def test_one_chapter_edited_reindexes_only_that_chapter_and_retrieval_sees_the_edit(any_index: Index) -> None:
    first = any_index.refresh("proj_dream", 1, lambda: dream_project(KEY))
    edited = dream_project(HAIRPIN)

    update = any_index.refresh("proj_dream", 2, lambda: edited)
    found = any_index.search("proj_dream", 2, lambda: edited, "白玉簪子")
    gone = any_index.search("proj_dream", 2, lambda: edited, "青铜钥匙")

    assert first.built and first.reindexed == {
        "chapter:ch1",
        "chapter:ch2",
        "chapter:ch3",
        "character:lin",
        "character:jia",
    }
    assert not update.built
    assert update.reindexed == {"chapter:ch3"}
    assert (update.moved, update.removed) == (frozenset(), frozenset())
    assert update.rows_written == len(chapter_spans(edited[2].text))
    assert found[0].ref_id == "ch3" and "白玉簪子" in found[0].text
    assert all("青铜钥匙" not in passage.text for passage in gone)


def test_an_unchanged_revision_rewrites_nothing(any_index: Index) -> None:
    any_index.refresh("proj_dream", 1, lambda: dream_project())

    assert any_index.refresh("proj_dream", 2, lambda: dream_project()) == IndexUpdate()


def test_a_deleted_chapters_passages_are_gone(any_index: Index) -> None:
    any_index.refresh("proj_dream", 1, lambda: dream_project())
    without_ch2 = [document for document in dream_project() if document.ref_id != "ch2"]

    update = any_index.refresh("proj_dream", 2, lambda: without_ch2)
    passages = any_index.search("proj_dream", 2, lambda: without_ch2, "林黛玉葬花", limit=20)

    assert update.removed == {"chapter:ch2"}
    assert (update.reindexed, update.rows_written) == (frozenset(), 0)
    assert passages
    assert all(passage.ref_id != "ch2" for passage in passages)


def test_a_reorder_moves_chapters_without_changing_any_passage_text(any_index: Index) -> None:
    before = dream_project()
    any_index.refresh("proj_dream", 1, lambda: before)
    texts_before = chapter_texts(any_index, 1, before)
    ch1, ch2, ch3 = (
        document.model_copy(update={"chapter_position": 4 - number})
        for number, document in enumerate(before[:3], start=1)
    )
    after = [ch3, ch2, ch1, *before[3:]]

    update = any_index.refresh("proj_dream", 2, lambda: after)
    burial = any_index.search("proj_dream", 2, lambda: after, "葬花")[0]
    key = any_index.search("proj_dream", 2, lambda: after, "青铜钥匙")[0]

    assert update.moved == {"chapter:ch1", "chapter:ch3"}
    assert update.reindexed == frozenset()
    assert chapter_texts(any_index, 2, after) == texts_before
    assert (burial.ref_id, burial.chapter_position) == ("ch2", 2)
    assert (key.ref_id, key.chapter_position) == ("ch3", 1)


def test_two_edits_racing_leave_the_newest_revision_indexed_once(index: ProjectIndex, tmp_path: Path) -> None:
    index.refresh("proj_dream", 1, lambda: dream_project())
    other_process = ProjectIndex.open(tmp_path / "index")
    revisions = {2: dream_project(HAIRPIN), 3: dream_project(LIGHTHOUSE)}
    start = threading.Barrier(2)

    def edit(searcher: ProjectIndex, revision: int) -> IndexUpdate:
        start.wait()
        # the store answers its newest documents, whichever revision the caller read before
        return searcher.refresh("proj_dream", revision, lambda: revisions[max(revisions)])

    with ThreadPoolExecutor(2) as pool:
        updates = list(pool.map(edit, [index, other_process], [2, 3]))

    newest = revisions[3]
    lighthouse = other_process.search("proj_dream", 3, lambda: newest, "lighthouse keeper")
    for searcher in (index, other_process):
        found = searcher.search("proj_dream", 3, lambda: newest, "lighthouse keeper whales", limit=50)
        assert len(set(identities(found))) == len(found)
        assert all("青铜钥匙" not in passage.text and "白玉簪子" not in passage.text for passage in found)
    assert [update.reindexed for update in updates].count(frozenset({"chapter:ch3"})) == 1
    assert lighthouse[0].ref_id == "ch3"


def test_the_stores_edits_and_reorders_touch_only_their_chapters(any_index: Index, tmp_path: Path) -> None:
    store = ProjectStore(tmp_path / "projects.sqlite3")
    project = store.create_project("alice", ProjectIn(name="红楼")).project_id
    ids = [
        store.add_chapter("alice", project, ChapterIn(title=f"第{n}回", content=chapter_text(n, special))).chapter_id
        for n, special in enumerate([BURIAL, KEY, ""], start=1)
    ]

    def refresh() -> IndexUpdate:
        return any_index.refresh(project, store.revision("alice", project), lambda: store.documents("alice", project))

    refresh()
    store.update_chapter("alice", project, ids[1], ChapterIn(title="第2回", content=chapter_text(2, HAIRPIN)))
    edited = refresh()
    store.reorder_chapters("alice", project, [ids[2], ids[0], ids[1]])
    reordered = refresh()

    assert edited.reindexed == {f"chapter:{ids[1]}"} and not edited.moved
    assert not reordered.reindexed and reordered.moved == {f"chapter:{id_}" for id_ in ids}
    revision = store.revision("alice", project)
    hairpin = any_index.search(project, revision, lambda: store.documents("alice", project), "白玉簪子")[0]
    assert (hairpin.ref_id, hairpin.chapter_position) == (ids[1], 3)


def test_updated_rows_are_folded_into_the_full_text_index_past_the_limit(
    index: ProjectIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unindexed_rows() -> int:
        table = lancedb.connect(tmp_path / "index").open_table("writing_proj_dream_passages")
        stats = table.index_stats("search_text_idx")
        assert stats is not None
        return stats.num_unindexed_rows

    index.refresh("proj_dream", 1, lambda: dream_project(KEY))
    index.refresh("proj_dream", 2, lambda: dream_project(HAIRPIN))
    scanned = unindexed_rows()
    monkeypatch.setattr(writing_index, "OPTIMIZE_AFTER_ROWS", 0)

    index.refresh("proj_dream", 3, lambda: dream_project(LIGHTHOUSE))
    found = index.search("proj_dream", 3, lambda: dream_project(LIGHTHOUSE), "lighthouse keeper")

    assert scanned > 0, "under the limit, new rows are scanned"
    assert unindexed_rows() == 0
    assert found[0].ref_id == "ch3" and "lighthouse" in found[0].text


def test_weaviate_indexes_every_project_again_for_another_embedder(request: pytest.FixtureRequest) -> None:
    endpoint = weaviate_endpoint(request, "weaviate-double")
    prefix = collection_prefix()
    first = WeaviateProjectIndex.open(endpoint.client(), prefix=prefix)
    first.refresh("proj_dream", 1, dream_project)
    resized = WeaviateProjectIndex.open(endpoint.client(), HashingEmbedder(dim=256), prefix=prefix)
    try:
        update = resized.refresh("proj_dream", 1, dream_project)
        found = resized.search("proj_dream", 1, dream_project, "葬花")
    finally:
        first.close()
        resized.close()
        drop_collections(endpoint, prefix)

    assert update.built and update.rows_written > 0
    assert found[0].ref_id == "ch2"


def test_weaviate_concurrent_searches_of_a_stale_index_agree_without_duplicates(request: pytest.FixtureRequest) -> None:
    """Two processes share no lock on Weaviate: each loads the documents at most once, and both write the same
    objects, so every search agrees and no passage is indexed twice."""
    endpoint = weaviate_endpoint(request, "weaviate-double")
    prefix = collection_prefix()
    index = WeaviateProjectIndex.open(endpoint.client(), prefix=prefix)
    other_process = WeaviateProjectIndex.open(endpoint.client(), prefix=prefix)
    try:
        index.search("proj_dream", 1, lambda: dream_project(KEY), "青铜钥匙")
        loader = CountingLoader(dream_project(HAIRPIN))
        searchers = [index, other_process] * 4
        start = threading.Barrier(len(searchers))

        def search_revision_2(searcher: WeaviateProjectIndex) -> list[Passage]:
            start.wait()
            return searcher.search("proj_dream", 2, loader, "贾宝玉捡到的白玉簪子和葬花")

        with ThreadPoolExecutor(len(searchers)) as pool:
            results = list(pool.map(search_revision_2, searchers))
        everything = index.search("proj_dream", 2, loader, "第1章 第2章 第3章 林黛玉 贾宝玉", limit=100)
    finally:
        index.close()
        other_process.close()
        drop_collections(endpoint, prefix)

    assert 1 <= loader.calls <= 2
    assert all(result == results[0] for result in results)
    assert len(set(identities(results[0]))) == len(results[0]) > 1
    assert "白玉簪子" in results[0][0].text
    assert len(set(identities(everything))) == len(everything)
    assert all("青铜钥匙" not in passage.text for passage in everything)
