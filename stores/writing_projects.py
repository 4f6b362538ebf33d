"""The writers' projects and what they hold (chapters, characters, plot loops, style samples, world notes and
relationships between characters): a small document store, in SQLite under `DATA_DIR/writing/projects.sqlite3`
or in PostgreSQL (`WRITING_DB_URL`; `stores.writing_db`, its schema `stores.writing_schema`), shared by the
gateway (which edits them) and the worker (whose agents read them, and whose retrieval index is built from
`documents`). Every call names the owning principal: a project of another principal is not found, like
one that does not exist. Every change to a project raises its `revision` in the same transaction, so an index
knows when it is stale. Every item has a `version` too (its ETag): a write may name the version it read
(`if_match`), and is refused with `StaleVersionError` when the item changed since, in the same transaction as the
write, so of two editors racing exactly one wins. Chapters are numbered 1..n without gaps, and every write of one
keeps a version of it (`stores.chapter_versions`). A database made by an earlier version is brought up to date
when it is opened; nothing in it is lost. What agents want written into a project arrives as a proposal
(`stores.writing_proposals`) and becomes an item only when the writer accepts it; characters, world notes and
relationships say where they came from (`origin`: the writer's own, or accepted from the run `source_run_id`).
The methods block (one short transaction each, readers never wait for a writer); async callers run them in a
thread with `run`."""

import asyncio
import hashlib
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, Literal, ParamSpec, TypeVar

from pydantic import BaseModel

from models.base import CamelModel
from models.writing.chapters import ChapterVersion, ChapterVersionInfo, VersionSource
from models.writing.context import IndexDocument
from models.writing.projects import (
    Chapter,
    ChapterIn,
    Character,
    CharacterIn,
    PlotLoop,
    PlotLoopIn,
    Project,
    ProjectIn,
    Relationship,
    RelationshipIn,
    StyleSample,
    StyleSampleIn,
    WorldNote,
    WorldNoteIn,
)
from models.writing.proposals import AlreadyThere, Proposal, ProposalKind, ProposalStatus
from stores import chapter_versions, writing_proposals, writing_schema
from stores.chapter_summaries import summarize
from stores.writing_db import INTEGRITY_ERRORS, Connection, Database, PostgresDatabase, SqliteDatabase

P = ParamSpec("P")
T = TypeVar("T")
ItemT = TypeVar("ItemT", bound=CamelModel)

Upsert = Literal["added", "changed", "unchanged"]


class NotFoundError(KeyError):
    """No such project, or no such item in it, for this principal; `kind` says which (`project`, `chapter`,
    `character`, `plot_loop`, `style_sample`, `world_note`, `relationship`)."""

    def __init__(self, kind: str, item_id: str) -> None:
        super().__init__(item_id)
        self.kind = kind
        self.item_id = item_id


class StaleVersionError(ValueError):
    """A write named a version of the item (`If-Match`) that is no longer its current one; `current` is."""

    def __init__(self, kind: str, item_id: str, current: int) -> None:
        super().__init__(f"{kind} {item_id} is at version {current}")
        self.kind = kind
        self.item_id = item_id
        self.current = current


@dataclass(frozen=True)
class StoreLimits:
    """How much one principal may keep: projects, and chapters in a project (a project's export is built whole)."""

    projects_per_owner: int = 100
    chapters_per_project: int = 300


class LimitReachedError(ValueError):
    """A new project or chapter past its limit (`kind`: "project" or "chapter")."""

    def __init__(self, kind: str, limit: int) -> None:
        super().__init__(f"at most {limit} {kind}s")
        self.kind = kind
        self.limit = limit


class ChapterOrderError(ValueError):
    """A new order of the chapters that does not list each of the project's chapters exactly once."""


class PairTakenError(ValueError):
    """A relationship changed to a pair of characters that another relationship of the project already joins."""

    def __init__(self, source: str, target: str) -> None:
        super().__init__(f"{source} and {target} already have a relationship")
        self.source = source
        self.target = target


@dataclass(frozen=True)
class _Table(Generic[ItemT]):
    """One kind of item a project holds: its table (whose columns are the request model's fields, plus `id`,
    `project_id` and `updated_at`), the model a row becomes, and how a list of them is ordered."""

    name: str
    kind: str
    """What `NotFoundError` calls a missing one; the model's id field is `<kind>_id`."""
    id_prefix: str
    model: type[ItemT]
    order_by: str

    def item(self, row: Any) -> ItemT:
        values = _values(row)
        values[f"{self.kind}_id"] = values.pop("id")
        return self.model.model_validate(values)


_CHAPTERS = _Table("chapters", "chapter", "chap", Chapter, "position")
_CHARACTERS = _Table("characters", "character", "char", Character, "name")
_PLOT_LOOPS = _Table(
    "plot_loops", "plot_loop", "loop", PlotLoop, order_by="planted_in_chapter IS NULL, planted_in_chapter, rowid"
)
_STYLE_SAMPLES = _Table("style_samples", "style_sample", "style", StyleSample, "rowid")
_WORLD_NOTES = _Table("world_notes", "world_note", "note", WorldNote, "rowid")
_RELATIONSHIPS = _Table("relationships", "relationship", "rel", Relationship, "source, target")
_TABLES: tuple[_Table[Any], ...] = (_CHAPTERS, _CHARACTERS, _PLOT_LOOPS, _STYLE_SAMPLES, _WORLD_NOTES, _RELATIONSHIPS)

_PROJECTS = (
    "SELECT p.id AS project_id, p.name, p.genre, p.created_at, p.revision, "
    + ", ".join(f"(SELECT COUNT(*) FROM {table.name} WHERE project_id = p.id) AS {table.name}" for table in _TABLES)
    + " FROM projects p"
)
"""Projects as `Project` has them: the counts are named after the tables, as the model's fields are."""
_SAME_PAIR = "(source = ? AND target = ? OR source = ? AND target = ?)"
"""The relationship of a pair, whichever way round (its parameters: `_pair`)."""


class ProjectStore:
    """Projects and what they hold, per owner."""

    def __init__(self, where: Path | PostgresDatabase, limits: StoreLimits = StoreLimits()) -> None:
        """The store in the SQLite file at `where`, or in a PostgreSQL database; its schema brought up to date."""
        self.limits = limits
        self._db: Database = where if isinstance(where, PostgresDatabase) else SqliteDatabase(where)
        writing_schema.prepare(self._db)

    @classmethod
    def under(cls, data_dir: Path, limits: StoreLimits = StoreLimits()) -> "ProjectStore":
        return cls(data_dir / "writing" / "projects.sqlite3", limits)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _connection(self) -> Iterator[Connection]:
        with self._db.connection() as db:
            yield db

    @contextmanager
    def _editing(self, owner: str, project_id: str) -> Iterator[Connection]:
        """A transaction that changes one of `owner`'s projects. It takes the write lock first (SQLite's, or the
        project's row on PostgreSQL), so what it reads (the last chapter's number, a pair's relationship) stays true
        until it commits; if it changed anything, the project's revision goes up in it."""
        with self._connection() as db:
            db.begin_write()
            _require_project(db, owner, project_id, lock=True)
            changes = db.changes
            yield db
            if db.changes > changes:
                db.execute("UPDATE projects SET revision = revision + 1 WHERE id = ?", (project_id,))

    async def run(self, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`method` (one of this store's) in a thread."""
        return await asyncio.to_thread(method, *args, **kwargs)

    # projects

    def create_project(self, owner: str, project: ProjectIn) -> Project:
        project_id = f"proj_{uuid.uuid4().hex[:16]}"
        with self._connection() as db:
            db.begin_write(f"projects of {owner}")  # the count stays true until the insert commits
            (count,) = db.execute("SELECT COUNT(*) FROM projects WHERE owner = ?", (owner,)).fetchone()
            if count >= self.limits.projects_per_owner:
                raise LimitReachedError("project", self.limits.projects_per_owner)
            db.execute(
                "INSERT INTO projects (id, owner, name, genre, created_at) VALUES (?, ?, ?, ?, ?)",
                (project_id, owner, project.name, project.genre, _now()),
            )
        return self.project(owner, project_id)

    def project(self, owner: str, project_id: str) -> Project:
        with self._connection() as db:
            row = db.execute(f"{_PROJECTS} WHERE p.id = ? AND p.owner = ?", (project_id, owner)).fetchone()
        if row is None:
            raise NotFoundError("project", project_id)
        return Project.model_validate(_values(row))

    def delete_project(self, owner: str, project_id: str, if_match: int | None = None) -> None:
        """The project and everything in it (its items go with it: ON DELETE CASCADE); `if_match` is the revision
        the caller last saw (the project's ETag)."""
        with self._connection() as db:
            db.begin_write()
            row = db.execute(
                "SELECT revision FROM projects WHERE id = ? AND owner = ?" + db.for_update, (project_id, owner)
            ).fetchone()
            if row is None:
                raise NotFoundError("project", project_id)
            if if_match is not None and row["revision"] != if_match:
                raise StaleVersionError("project", project_id, row["revision"])
            db.execute("DELETE FROM projects WHERE id = ?", (project_id,))

    def projects(self, owner: str) -> list[Project]:
        with self._connection() as db:
            rows = db.execute(f"{_PROJECTS} WHERE p.owner = ? ORDER BY p.created_at", (owner,)).fetchall()
        return [Project.model_validate(_values(row)) for row in rows]

    def has_project(self, owner: str, project_id: str) -> bool:
        with self._connection() as db:
            found = db.execute("SELECT 1 FROM projects WHERE id = ? AND owner = ?", (project_id, owner)).fetchone()
        return found is not None

    def revision(self, owner: str, project_id: str) -> int:
        """How many changes the project has had (see `Project.revision`)."""
        with self._connection() as db:
            row = db.execute("SELECT revision FROM projects WHERE id = ? AND owner = ?", (project_id, owner)).fetchone()
        if row is None:
            raise NotFoundError("project", project_id)
        revision: int = row["revision"]
        return revision

    def manuscript(self, owner: str, project_id: str) -> tuple[Project, list[Chapter]]:
        """The project and its chapters in order, read in one snapshot."""
        with self._connection() as db:
            db.begin_snapshot()
            row = db.execute(f"{_PROJECTS} WHERE p.id = ? AND p.owner = ?", (project_id, owner)).fetchone()
            if row is None:
                raise NotFoundError("project", project_id)
            return Project.model_validate(_values(row)), _rows(db, _CHAPTERS, project_id)

    def documents(self, owner: str, project_id: str) -> list[IndexDocument]:
        """Everything in the project as the retrieval index takes it, one document per item: chapters in order,
        then characters, style samples, world notes, plot loops and relationships. All read in one snapshot; read
        `revision` before, and the documents are at least that new."""
        with self._connection() as db:
            db.begin_snapshot()
            _require_project(db, owner, project_id)
            chapters = _rows(db, _CHAPTERS, project_id)
            characters = _rows(db, _CHARACTERS, project_id)
            samples = _rows(db, _STYLE_SAMPLES, project_id)
            notes = _rows(db, _WORLD_NOTES, project_id)
            loops = _rows(db, _PLOT_LOOPS, project_id)
            relationships = _rows(db, _RELATIONSHIPS, project_id)
        return [
            *(_chapter_document(chapter) for chapter in chapters),
            *(_character_document(character) for character in characters),
            *(_style_sample_document(sample) for sample in samples),
            *(_world_note_document(note) for note in notes),
            *(_plot_loop_document(loop) for loop in loops),
            *(_relationship_document(relationship) for relationship in relationships),
        ]

    # chapters (numbered 1..n without gaps, in the book's order; every write keeps a version)

    def add_chapter(
        self,
        owner: str,
        project_id: str,
        chapter: ChapterIn,
        position: int | None = None,
        source: VersionSource = "manual",
        run_id: str | None = None,
    ) -> Chapter:
        """A new chapter at `position` (the chapters from there on move down one), last when None or past the end.
        From a run (`run_id`) once: applied again, the chapter the run began is the answer, not a second one."""
        with self._editing(owner, project_id) as db:
            if run_id is not None and (begun := chapter_versions.chapter_begun_by(db, project_id, run_id)) is not None:
                return _CHAPTERS.item(_row(db, _CHAPTERS, project_id, begun))
            (count,) = db.execute("SELECT COUNT(*) FROM chapters WHERE project_id = ?", (project_id,)).fetchone()
            if count >= self.limits.chapters_per_project:
                raise LimitReachedError("chapter", self.limits.chapters_per_project)
            place = count + 1 if position is None else min(position, count + 1)
            db.execute(
                "UPDATE chapters SET position = position + 1 WHERE project_id = ? AND position >= ?",
                (project_id, place),
            )
            _renumber_plot_loops(db, project_id, {n: n + 1 for n in range(place, count + 1)})
            added = _insert(db, _CHAPTERS, project_id, chapter, position=place, summary=summarize(chapter.content))
            chapter_versions.keep(db, added.chapter_id, source, run_id)
            return added

    def chapters(self, owner: str, project_id: str) -> list[Chapter]:
        return self._list(owner, project_id, _CHAPTERS)

    def chapter(self, owner: str, project_id: str, chapter_id: str) -> Chapter:
        return self._get(owner, project_id, _CHAPTERS, chapter_id)

    def update_chapter(
        self,
        owner: str,
        project_id: str,
        chapter_id: str,
        chapter: ChapterIn,
        if_match: int | None = None,
        source: VersionSource = "manual",
        run_id: str | None = None,
    ) -> Chapter:
        """The chapter's new title and text, kept as its next version; from a run (`run_id`) whose text the chapter
        already holds as its current version, the chapter as it is (an apply retried is not a second version)."""
        with self._editing(owner, project_id) as db:
            if run_id is not None and chapter_versions.last_is_from(db, chapter_id, run_id, chapter):
                return _CHAPTERS.item(_row(db, _CHAPTERS, project_id, chapter_id))
            changed = _set(db, _CHAPTERS, project_id, chapter_id, chapter, if_match, summary=summarize(chapter.content))
            chapter_versions.keep(db, chapter_id, source, run_id)
            return changed

    def delete_chapter(self, owner: str, project_id: str, chapter_id: str, if_match: int | None = None) -> None:
        """The chapter and its versions; the chapters after it move up one, so the numbers stay without gaps."""
        with self._editing(owner, project_id) as db:
            position = _row(db, _CHAPTERS, project_id, chapter_id)["position"]
            _remove(db, _CHAPTERS, project_id, chapter_id, if_match)
            (left,) = db.execute("SELECT COUNT(*) FROM chapters WHERE project_id = ?", (project_id,)).fetchone()
            db.execute(
                "UPDATE chapters SET position = position - 1 WHERE project_id = ? AND position > ?",
                (project_id, position),
            )
            _renumber_plot_loops(db, project_id, {position: None} | {n: n - 1 for n in range(position + 1, left + 2)})

    def reorder_chapters(
        self, owner: str, project_id: str, chapter_ids: list[str], if_match: int | None = None
    ) -> list[Chapter]:
        """The chapters numbered 1..n in the order of `chapter_ids`, which must name each of them exactly once
        (`ChapterOrderError` otherwise). `if_match` is the chapter list's tag (`chapter_list_tag`) as the caller
        read it: `StaleVersionError` (kind `chapter_list`) when a chapter was added, removed, moved or edited since."""
        with self._editing(owner, project_id) as db:
            if if_match is not None:
                current_tag = chapter_list_tag(_rows(db, _CHAPTERS, project_id))
                if current_tag != if_match:
                    raise StaleVersionError("chapter_list", project_id, current_tag)
            rows = db.execute("SELECT id, position FROM chapters WHERE project_id = ?", (project_id,)).fetchall()
            current = {row["id"]: row["position"] for row in rows}
            if len(set(chapter_ids)) != len(chapter_ids):
                raise ChapterOrderError("chapterIds names a chapter more than once")
            if set(chapter_ids) != current.keys():
                missing, unknown = len(current.keys() - set(chapter_ids)), len(set(chapter_ids) - current.keys())
                raise ChapterOrderError(
                    f"chapterIds must list every chapter once: {missing} missing, {unknown} unknown"
                )
            db.executemany(
                "UPDATE chapters SET position = ? WHERE id = ? AND position != ?",
                [(place, chapter_id, place) for place, chapter_id in enumerate(chapter_ids, start=1)],
            )
            _renumber_plot_loops(db, project_id, {current[c]: n for n, c in enumerate(chapter_ids, start=1)})
            return _rows(db, _CHAPTERS, project_id)

    def chapter_versions(self, owner: str, project_id: str, chapter_id: str) -> list[ChapterVersionInfo]:
        """The chapter's versions, newest first, without their texts."""
        with self._connection() as db:
            _require_project(db, owner, project_id)
            _row(db, _CHAPTERS, project_id, chapter_id)
            return chapter_versions.listed(db, chapter_id)

    def chapter_version(self, owner: str, project_id: str, chapter_id: str, number: int) -> ChapterVersion:
        with self._connection() as db:
            _require_project(db, owner, project_id)
            _row(db, _CHAPTERS, project_id, chapter_id)
            return chapter_versions.one(db, chapter_id, number)

    def restore_chapter_version(
        self, owner: str, project_id: str, chapter_id: str, number: int, if_match: int | None = None
    ) -> Chapter:
        """A new version of the chapter whose title and text are version `number`'s."""
        with self._editing(owner, project_id) as db:
            _row(db, _CHAPTERS, project_id, chapter_id)
            old = chapter_versions.one(db, chapter_id, number)
            restored = ChapterIn(title=old.title, content=old.content)
            changed = _set(db, _CHAPTERS, project_id, chapter_id, restored, if_match, summary=summarize(old.content))
            chapter_versions.keep(db, chapter_id, "restore", restored_from=number)
            return changed

    # characters (by name)

    def add_character(self, owner: str, project_id: str, character: CharacterIn) -> Character:
        return self._add(owner, project_id, _CHARACTERS, character)

    def characters(self, owner: str, project_id: str) -> list[Character]:
        return self._list(owner, project_id, _CHARACTERS)

    def character(self, owner: str, project_id: str, character_id: str) -> Character:
        return self._get(owner, project_id, _CHARACTERS, character_id)

    def update_character(
        self, owner: str, project_id: str, character_id: str, character: CharacterIn, if_match: int | None = None
    ) -> Character:
        return self._update(owner, project_id, _CHARACTERS, character_id, character, if_match)

    def delete_character(self, owner: str, project_id: str, character_id: str, if_match: int | None = None) -> None:
        self._delete(owner, project_id, _CHARACTERS, character_id, if_match)

    # plot loops (by the chapter they are planted in; those without one last)

    def add_plot_loop(self, owner: str, project_id: str, plot_loop: PlotLoopIn) -> PlotLoop:
        return self._add(owner, project_id, _PLOT_LOOPS, plot_loop)

    def plot_loops(self, owner: str, project_id: str) -> list[PlotLoop]:
        return self._list(owner, project_id, _PLOT_LOOPS)

    def plot_loop(self, owner: str, project_id: str, plot_loop_id: str) -> PlotLoop:
        return self._get(owner, project_id, _PLOT_LOOPS, plot_loop_id)

    def update_plot_loop(
        self, owner: str, project_id: str, plot_loop_id: str, plot_loop: PlotLoopIn, if_match: int | None = None
    ) -> PlotLoop:
        return self._update(owner, project_id, _PLOT_LOOPS, plot_loop_id, plot_loop, if_match)

    def delete_plot_loop(self, owner: str, project_id: str, plot_loop_id: str, if_match: int | None = None) -> None:
        self._delete(owner, project_id, _PLOT_LOOPS, plot_loop_id, if_match)

    # style samples (in the order they are added)

    def add_style_sample(self, owner: str, project_id: str, sample: StyleSampleIn) -> StyleSample:
        return self._add(owner, project_id, _STYLE_SAMPLES, sample)

    def style_samples(self, owner: str, project_id: str) -> list[StyleSample]:
        return self._list(owner, project_id, _STYLE_SAMPLES)

    def style_sample(self, owner: str, project_id: str, sample_id: str) -> StyleSample:
        return self._get(owner, project_id, _STYLE_SAMPLES, sample_id)

    def update_style_sample(
        self, owner: str, project_id: str, sample_id: str, sample: StyleSampleIn, if_match: int | None = None
    ) -> StyleSample:
        return self._update(owner, project_id, _STYLE_SAMPLES, sample_id, sample, if_match)

    def delete_style_sample(self, owner: str, project_id: str, sample_id: str, if_match: int | None = None) -> None:
        self._delete(owner, project_id, _STYLE_SAMPLES, sample_id, if_match)

    # world notes (in the order they are added)

    def add_world_note(self, owner: str, project_id: str, note: WorldNoteIn) -> WorldNote:
        return self._add(owner, project_id, _WORLD_NOTES, note)

    def world_notes(self, owner: str, project_id: str) -> list[WorldNote]:
        return self._list(owner, project_id, _WORLD_NOTES)

    def world_note(self, owner: str, project_id: str, note_id: str) -> WorldNote:
        return self._get(owner, project_id, _WORLD_NOTES, note_id)

    def update_world_note(
        self, owner: str, project_id: str, note_id: str, note: WorldNoteIn, if_match: int | None = None
    ) -> WorldNote:
        return self._update(owner, project_id, _WORLD_NOTES, note_id, note, if_match)

    def delete_world_note(self, owner: str, project_id: str, note_id: str, if_match: int | None = None) -> None:
        self._delete(owner, project_id, _WORLD_NOTES, note_id, if_match)

    # relationships (one per pair of characters, whichever way round; by source, then target)

    def upsert_relationship(
        self, owner: str, project_id: str, relationship: RelationshipIn
    ) -> tuple[Relationship, Upsert]:
        """The pair's relationship as given: added, or the pair's existing one changed to it (its direction too)."""
        pair = _pair(relationship)
        with self._editing(owner, project_id) as db:
            row = db.execute(
                f"SELECT * FROM relationships WHERE project_id = ? AND {_SAME_PAIR}", (project_id, *pair)
            ).fetchone()
            if row is None:
                return _insert(db, _RELATIONSHIPS, project_id, relationship), "added"
            if all(row[column] == value for column, value in _columns(relationship).items()):
                return _RELATIONSHIPS.item(row), "unchanged"
            return _set(db, _RELATIONSHIPS, project_id, row["id"], relationship), "changed"

    def relationships(self, owner: str, project_id: str) -> list[Relationship]:
        return self._list(owner, project_id, _RELATIONSHIPS)

    def relationship(self, owner: str, project_id: str, relationship_id: str) -> Relationship:
        return self._get(owner, project_id, _RELATIONSHIPS, relationship_id)

    def update_relationship(
        self,
        owner: str,
        project_id: str,
        relationship_id: str,
        relationship: RelationshipIn,
        if_match: int | None = None,
    ) -> Relationship:
        """The relationship changed to `relationship`; `PairTakenError` if another one already joins its pair."""
        try:
            return self._update(owner, project_id, _RELATIONSHIPS, relationship_id, relationship, if_match)
        except INTEGRITY_ERRORS:  # the unique index on the pair
            raise PairTakenError(relationship.source, relationship.target) from None

    def delete_relationship(
        self, owner: str, project_id: str, relationship_id: str, if_match: int | None = None
    ) -> None:
        self._delete(owner, project_id, _RELATIONSHIPS, relationship_id, if_match)

    # proposals (what agents want written into the project: none of it is an item until the writer accepts it)

    def propose(
        self,
        owner: str,
        project_id: str,
        run_id: str,
        kind: ProposalKind,
        key: str,
        item: dict[str, str],
        before: tuple[str, int, dict[str, str]] | None = None,
    ) -> Proposal | AlreadyThere:
        """A pending proposal (`writing_proposals.add`), or what says the same already; the project's revision
        stays: nothing in it changed."""
        with self._connection() as db:
            db.begin_write()
            _require_project(db, owner, project_id, lock=True)
            return writing_proposals.add(db, project_id, run_id, kind, key, item, before)

    def proposals(self, owner: str, project_id: str, status: ProposalStatus | None = None) -> list[Proposal]:
        with self._connection() as db:
            _require_project(db, owner, project_id)
            return writing_proposals.listed(db, project_id, status)

    def reject_proposal(self, owner: str, project_id: str, proposal_id: str) -> Proposal:
        with self._connection() as db:
            db.begin_write()
            _require_project(db, owner, project_id, lock=True)
            writing_proposals.pending(db, project_id, proposal_id)
            return writing_proposals.decide(db, proposal_id, "rejected")

    def accept_proposal(self, owner: str, project_id: str, proposal_id: str) -> Proposal:
        """The proposed item written into the project, marked as accepted from its run, in the same transaction as
        the proposal's new status. A change of an item refuses (`ProposalStaleError`) unless that item is still as
        it was proposed; a relationship needs both its characters in the project (`ProposalNeedsCharacterError`)."""
        with self._editing(owner, project_id) as db:
            proposal = writing_proposals.pending(db, project_id, proposal_id)
            origin = {"origin": "accepted", "source_run_id": proposal.run_id}
            if proposal.kind == "relationship":
                item_id = _accept_relationship(db, project_id, proposal, origin)
            elif proposal.kind == "character":
                item_id = _insert(db, _CHARACTERS, project_id, CharacterIn(**proposal.item), **origin).character_id
            elif proposal.kind == "plot_loop":
                loop = PlotLoopIn.model_validate(proposal.item)
                item_id = _insert(db, _PLOT_LOOPS, project_id, loop, **origin).plot_loop_id
            else:
                item_id = _insert(db, _WORLD_NOTES, project_id, WorldNoteIn(**proposal.item), **origin).world_note_id
            return writing_proposals.decide(db, proposal_id, "accepted", item_id)

    # any kind of item

    def _add(self, owner: str, project_id: str, table: _Table[ItemT], body: BaseModel) -> ItemT:
        with self._editing(owner, project_id) as db:
            return _insert(db, table, project_id, body)

    def _list(self, owner: str, project_id: str, table: _Table[ItemT]) -> list[ItemT]:
        with self._connection() as db:
            _require_project(db, owner, project_id)
            return _rows(db, table, project_id)

    def _get(self, owner: str, project_id: str, table: _Table[ItemT], item_id: str) -> ItemT:
        with self._connection() as db:
            _require_project(db, owner, project_id)
            return table.item(_row(db, table, project_id, item_id))

    def _update(
        self,
        owner: str,
        project_id: str,
        table: _Table[ItemT],
        item_id: str,
        body: BaseModel,
        if_match: int | None = None,
    ) -> ItemT:
        with self._editing(owner, project_id) as db:
            return _set(db, table, project_id, item_id, body, if_match)

    def _delete(
        self, owner: str, project_id: str, table: _Table[Any], item_id: str, if_match: int | None = None
    ) -> None:
        with self._editing(owner, project_id) as db:
            _remove(db, table, project_id, item_id, if_match)


def chapter_list_tag(chapters: list[Chapter]) -> int:
    """The ETag of a project's chapter list: a hash of each chapter's id, position and version, so it changes when a
    chapter is added, removed, moved or edited. A number (56 bits of SHA-256) like every item's version."""
    listed = "\n".join(f"{chapter.chapter_id}:{chapter.position}:{chapter.version}" for chapter in chapters)
    return int(hashlib.sha256(listed.encode()).hexdigest()[:14], 16)


def _accept_relationship(db: Connection, project_id: str, proposal: Proposal, origin: dict[str, str]) -> str:
    """The proposed relationship added (its pair still has none) or the pair's changed to it (still at the version
    it was proposed against); its id."""
    relationship = RelationshipIn(**proposal.item)
    names = {row["name"] for row in db.execute("SELECT name FROM characters WHERE project_id = ?", (project_id,))}
    missing = [name for name in (relationship.source, relationship.target) if name not in names]
    if missing:
        raise writing_proposals.ProposalNeedsCharacterError(proposal.proposal_id, missing)
    pair = _pair(relationship)
    row = db.execute(
        f"SELECT id, version FROM relationships WHERE project_id = ? AND {_SAME_PAIR}", (project_id, *pair)
    ).fetchone()
    now_at = (row["id"], row["version"]) if row is not None else None
    if now_at != (None if proposal.target_id is None else (proposal.target_id, proposal.target_version)):
        raise writing_proposals.ProposalStaleError(proposal.proposal_id, "relationship", proposal.target_id)
    if row is None:
        return _insert(db, _RELATIONSHIPS, project_id, relationship, **origin).relationship_id
    _set(db, _RELATIONSHIPS, project_id, row["id"], relationship)
    db.execute(
        "UPDATE relationships SET origin = ?, source_run_id = ? WHERE id = ?",
        (origin["origin"], origin["source_run_id"], row["id"]),
    )
    relationship_id: str = row["id"]
    return relationship_id


def _renumber_plot_loops(db: Connection, project_id: str, moved: dict[int, int | None]) -> None:
    """The chapter numbers the project's plot loops name (planted in, resolved in), moved as the chapters were:
    `moved` maps an old number to its new one (None: that chapter is gone); numbers not in it stay."""
    loops = db.execute(
        "SELECT id, planted_in_chapter, resolved_in_chapter FROM plot_loops WHERE project_id = ?", (project_id,)
    ).fetchall()
    for loop in loops:
        before = (loop["planted_in_chapter"], loop["resolved_in_chapter"])
        after = tuple(moved.get(number, number) if number is not None else None for number in before)
        if after != before:
            db.execute(
                "UPDATE plot_loops SET planted_in_chapter = ?, resolved_in_chapter = ?, version = version + 1 "
                "WHERE id = ?",
                (*after, loop["id"]),
            )


def _require_project(db: Connection, owner: str, project_id: str, lock: bool = False) -> None:
    """`NotFoundError` unless the owner has the project; with `lock`, its row stays locked until the transaction
    ends (on PostgreSQL; SQLite's write transaction holds the whole database), so writers of one project queue."""
    found = "SELECT 1 FROM projects WHERE id = ? AND owner = ?" + (db.for_update if lock else "")
    if db.execute(found, (project_id, owner)).fetchone() is None:
        raise NotFoundError("project", project_id)


def _pair(relationship: RelationshipIn) -> tuple[str, str, str, str]:
    """`_SAME_PAIR`'s parameters for the relationship's pair."""
    return relationship.source, relationship.target, relationship.target, relationship.source


def _row(db: Connection, table: _Table[Any], project_id: str, item_id: str) -> Any:
    row = db.execute(f"SELECT * FROM {table.name} WHERE id = ? AND project_id = ?", (item_id, project_id)).fetchone()
    if row is None:
        raise NotFoundError(table.kind, item_id)
    return row


def _rows(db: Connection, table: _Table[ItemT], project_id: str) -> list[ItemT]:
    rows = db.execute(f"SELECT * FROM {table.name} WHERE project_id = ? ORDER BY {table.order_by}", (project_id,))
    return [table.item(row) for row in rows]


def _insert(db: Connection, table: _Table[ItemT], project_id: str, body: BaseModel, **more: object) -> ItemT:
    """A new item of `table` from `body` (and `more` columns), as stored."""
    item_id = f"{table.id_prefix}_{uuid.uuid4().hex[:16]}"
    values = {"id": item_id, "project_id": project_id, **_columns(body), **more, "updated_at": _now()}
    db.execute(
        f"INSERT INTO {table.name} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
        tuple(values.values()),
    )
    return table.item(_row(db, table, project_id, item_id))


def _set(
    db: Connection,
    table: _Table[ItemT],
    project_id: str,
    item_id: str,
    body: BaseModel,
    if_match: int | None = None,
    **more: object,
) -> ItemT:
    """The item changed to `body` (and `more` columns) and its version raised, as stored; refused unless it is
    still at `if_match`."""
    _require_version(db, table, project_id, item_id, if_match)
    values = {**_columns(body), **more, "updated_at": _now()}
    assignments = ", ".join(f"{column} = ?" for column in values)
    db.execute(
        f"UPDATE {table.name} SET {assignments}, version = version + 1 WHERE id = ? AND project_id = ?",
        (*values.values(), item_id, project_id),
    )
    return table.item(_row(db, table, project_id, item_id))


def _remove(db: Connection, table: _Table[Any], project_id: str, item_id: str, if_match: int | None) -> None:
    _require_version(db, table, project_id, item_id, if_match)
    db.execute(f"DELETE FROM {table.name} WHERE id = ? AND project_id = ?", (item_id, project_id))


def _require_version(db: Connection, table: _Table[Any], project_id: str, item_id: str, if_match: int | None) -> None:
    """`NotFoundError` unless the item exists; `StaleVersionError` unless it is at version `if_match` (if given)."""
    current: int = _row(db, table, project_id, item_id)["version"]
    if if_match is not None and current != if_match:
        raise StaleVersionError(table.kind, item_id, current)


def _columns(body: BaseModel) -> dict[str, Any]:
    """A request body as its table's columns (named as the model's fields are in Python)."""
    return body.model_dump(by_alias=False)


def _values(row: Any) -> dict[str, Any]:
    return dict(zip(row.keys(), row, strict=True))


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _chapter_document(chapter: Chapter) -> IndexDocument:
    return IndexDocument(
        kind="chapter",
        ref_id=chapter.chapter_id,
        title=chapter.title,
        text=chapter.content,
        chapter_position=chapter.position,
    )


def _character_document(character: Character) -> IndexDocument:
    text = f"{character.name}：{character.description}" if character.description else character.name
    return IndexDocument(kind="character", ref_id=character.character_id, title=character.name, text=text)


def _style_sample_document(sample: StyleSample) -> IndexDocument:
    return IndexDocument(kind="style_sample", ref_id=sample.style_sample_id, title=sample.title, text=sample.text)


def _world_note_document(note: WorldNote) -> IndexDocument:
    return IndexDocument(kind="world_note", ref_id=note.world_note_id, title=note.title, text=note.content)


def _plot_loop_document(loop: PlotLoop) -> IndexDocument:
    """e.g. `伏笔「玉佩」，未回收（open），第3章埋下：苏念的玉佩来历不明`."""
    facts = [f"伏笔「{loop.title}」", "已回收（resolved）" if loop.status == "resolved" else "未回收（open）"]
    if loop.planted_in_chapter is not None:
        facts.append(f"第{loop.planted_in_chapter}章埋下")
    if loop.resolved_in_chapter is not None:
        facts.append(f"第{loop.resolved_in_chapter}章回收")
    text = "，".join(facts) + (f"：{loop.description}" if loop.description else "")
    return IndexDocument(kind="plot_loop", ref_id=loop.plot_loop_id, title=loop.title, text=text)


def _relationship_document(relationship: Relationship) -> IndexDocument:
    """e.g. `林舟 — 师徒 — 苏念：十年前收她为徒`."""
    title = f"{relationship.source} — {relationship.kind} — {relationship.target}"
    text = f"{title}：{relationship.description}" if relationship.description else title
    return IndexDocument(kind="relationship", ref_id=relationship.relationship_id, title=title, text=text)
