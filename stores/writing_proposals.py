"""The proposals a project holds (`proposals` in the projects database, issue 28 item 2): what agents want written
into it, pending until the writer accepts or rejects each. A run proposes each item once (a retried activity
finds its earlier proposal: one per run, kind and key), and nothing the project or a pending proposal says already
is filed again (`AlreadyThere`): whitespace aside, the same world-note text, a character's name, the same
relationship. These helpers run inside a `ProjectStore` transaction;
writing the accepted item is the store's (`ProjectStore.accept_proposal`)."""

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from models.writing.language import has_cjk
from models.writing.proposals import PROPOSAL_ID_PREFIX, AlreadyThere, Proposal, ProposalKind, ProposalStatus
from stores.writing_db import Connection

SCHEMA = """
CREATE TABLE IF NOT EXISTS proposals (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    run_id TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL, item TEXT NOT NULL,
    before TEXT, target_id TEXT, target_version INTEGER, item_id TEXT, created_at TEXT NOT NULL, decided_at TEXT,
    UNIQUE (project_id, run_id, kind, key));
CREATE INDEX IF NOT EXISTS proposals_by_project ON proposals(project_id, status, created_at);
"""


class ProposalNotFoundError(KeyError):
    """No such proposal in this project (for this principal)."""

    def __init__(self, proposal_id: str) -> None:
        super().__init__(proposal_id)
        self.proposal_id = proposal_id


class ProposalDecidedError(ValueError):
    """The proposal was accepted or rejected already."""

    def __init__(self, proposal_id: str, status: ProposalStatus) -> None:
        super().__init__(f"proposal {proposal_id} is {status}")
        self.proposal_id = proposal_id
        self.status = status


class ProposalStaleError(ValueError):
    """The item the proposal changes was changed (or deleted, or a relationship was added for its pair) since the
    proposal was made: accepting it would overwrite the writer's edit."""

    def __init__(self, proposal_id: str, kind: str, item_id: str | None) -> None:
        super().__init__(f"proposal {proposal_id}: the {kind} {item_id or ''} changed since it was proposed")
        self.proposal_id = proposal_id
        self.kind = kind
        self.item_id = item_id


class ProposalNeedsCharacterError(ValueError):
    """A relationship proposal between characters the project does not have (yet): accept them first."""

    def __init__(self, proposal_id: str, names: list[str]) -> None:
        super().__init__(f"proposal {proposal_id} relates characters the project lacks: {', '.join(names)}")
        self.proposal_id = proposal_id
        self.names = names


def add(
    db: Connection,
    project_id: str,
    run_id: str,
    kind: ProposalKind,
    key: str,
    item: dict[str, str],
    before: tuple[str, int, dict[str, str]] | None = None,
) -> Proposal | AlreadyThere:
    """A pending proposal of `item` by `run_id` (`key` names the item within the run's proposals of this kind);
    the one made already when the run proposed it before; `AlreadyThere` when the project or another run's
    pending proposal says the same. `before` is the item it changes: id, version, values."""
    mine = "SELECT * FROM proposals WHERE project_id = ? AND run_id = ? AND kind = ? AND key = ?"
    if db.execute(mine, (project_id, run_id, kind, key)).fetchone() is None:
        already = _already_there(db, project_id, kind, item)
        if already is not None:
            return already
    target_id, target_version, old = before if before is not None else (None, None, None)
    db.execute(
        "INSERT OR IGNORE INTO proposals (id, project_id, run_id, kind, key, status, item, before, target_id, "
        "target_version, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)",
        (
            f"{PROPOSAL_ID_PREFIX}{uuid.uuid4().hex[:16]}",
            project_id,
            run_id,
            kind,
            key,
            json.dumps(item, ensure_ascii=False),
            None if old is None else json.dumps(old, ensure_ascii=False),
            target_id,
            target_version,
            now(),
        ),
    )
    return _proposal(db.execute(mine, (project_id, run_id, kind, key)).fetchone())


_SAME = {
    "world_note": ("content",),
    "character": ("name",),
    "relationship": ("source", "target", "kind", "description"),
    "plot_loop": ("title",),
}
"""What makes two items of a kind the same: a note's text (not its title), a character's name, all of an edge, a
plot loop's title."""
_ITEMS = {
    "world_note": "world_notes",
    "character": "characters",
    "relationship": "relationships",
    "plot_loop": "plot_loops",
}


def _already_there(db: Connection, project_id: str, kind: ProposalKind, item: dict[str, str]) -> AlreadyThere | None:
    """The project's item or pending proposal that says what `item` says, if any."""
    wanted = _same(kind, item)
    columns = ", ".join(_SAME[kind])
    for row in db.execute(f"SELECT id, {columns} FROM {_ITEMS[kind]} WHERE project_id = ?", (project_id,)):
        if _same(kind, dict(zip(row.keys(), row, strict=True))) == wanted:
            return AlreadyThere(kind=kind, label=_label(kind, item), existing_id=row["id"])
    rows = db.execute(
        "SELECT id, item FROM proposals WHERE project_id = ? AND kind = ? AND status = 'pending' ORDER BY rowid",
        (project_id, kind),
    )
    for row in rows:
        if _same(kind, json.loads(row["item"])) == wanted:
            return AlreadyThere(kind=kind, label=_label(kind, item), existing_id=row["id"])
    return None


def _same(kind: ProposalKind, item: dict[str, str]) -> tuple[str, ...]:
    return tuple(" ".join(str(item.get(field, "")).split()) for field in _SAME[kind])


def _label(kind: ProposalKind, item: dict[str, str]) -> str:
    if kind == "relationship":
        pair, kind_name = f"{item['source']}—{item['target']}", item["kind"]
        return f"{pair}（{kind_name}）" if has_cjk(kind_name) else f"{pair} ({kind_name})"
    return item["name"] if kind == "character" else item["title"]


def listed(db: Connection, project_id: str, status: ProposalStatus | None) -> list[Proposal]:
    """The project's proposals (with `status`, or all), oldest first."""
    rows = db.execute(
        "SELECT * FROM proposals WHERE project_id = ? AND (CAST(? AS TEXT) IS NULL OR status = ?) "
        "ORDER BY created_at, rowid",
        (project_id, status, status),
    )
    return [_proposal(row) for row in rows]


def pending(db: Connection, project_id: str, proposal_id: str) -> Proposal:
    """The proposal, which must still be pending."""
    row = db.execute("SELECT * FROM proposals WHERE id = ? AND project_id = ?", (proposal_id, project_id)).fetchone()
    if row is None:
        raise ProposalNotFoundError(proposal_id)
    proposal = _proposal(row)
    if proposal.status != "pending":
        raise ProposalDecidedError(proposal_id, proposal.status)
    return proposal


def decide(db: Connection, proposal_id: str, status: ProposalStatus, item_id: str | None = None) -> Proposal:
    db.execute(
        "UPDATE proposals SET status = ?, item_id = ?, decided_at = ? WHERE id = ?",
        (status, item_id, now(), proposal_id),
    )
    return _proposal(db.execute("SELECT * FROM proposals WHERE id = ?", (proposal_id,)).fetchone())


def now() -> str:
    return datetime.now(UTC).isoformat()


def _proposal(row: Any) -> Proposal:
    values: dict[str, Any] = dict(zip(row.keys(), row, strict=True))
    values["proposal_id"] = values.pop("id")
    values.pop("key")
    values["item"] = json.loads(values["item"])
    values["before"] = None if values["before"] is None else json.loads(values["before"])
    return Proposal.model_validate(values)
