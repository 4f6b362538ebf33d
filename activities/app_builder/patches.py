"""Applying one wave's patch intents to a workspace snapshot: the `app_builder.apply_patches` activity.

Intents are grouped by path (normalised with `workspace_path`) in list order, which is task order; a task that
wrote one path several times counts once, with its last version against its first base. For each path:
- A fresh intent (its `base_key` is the snapshot's key, or both None) contributes its `new_key` (None deletes).
- A stale intent (its base is another version) is rebased first: its change is merged three-way into the
  snapshot's text (`merge.merge_versions`), and the rebased text is its version. A rebase that conflicts leaves
  the snapshot's version in place, reported as a `ConflictRecord` kept by `SNAPSHOT` (the snapshot's key under
  that id in `versions`, beside each task's own version).
- One version, or all identical: it replaces the file. Otherwise the versions are folded against the snapshot's
  text: a clean fold is stored; a conflicting one keeps the first task's version and records every task's
  version key, the base key and the conflict regions.
- A `MergedFile` is recorded when the file's new text is a merge, i.e. no task's own version nor the snapshot's.

An intent with a path outside the project or a key that names no blob fails the whole call, before anything is
written: non-retryable `INVALID_PATCH`. Blobs are content-addressed, so applying the same request again (a
retried activity) writes nothing new and returns the same outcome; a call that changes nothing returns the same
`WorkspaceRef`.
"""

import asyncio
from dataclasses import dataclass

from temporalio.exceptions import ApplicationError

from activities.app_builder.merge import merge_versions
from activities.common.failures import permanent
from models.app_builder.errors import AppBuilderErrorCode
from models.app_builder.nodes import APPLY_PATCHES
from models.app_builder.workspace import (
    ApplyOutcome,
    ApplyRequest,
    ConflictRecord,
    MergedFile,
    PatchIntent,
    WorkspaceRef,
)
from stores.app_workspace import (
    WorkspacePathError,
    load_manifest,
    read_text,
    store_manifest,
    store_text,
    workspace_path,
)
from stores.blob_store import BlobStore

SNAPSHOT = "snapshot"
"""The `kept_task_id` (and `versions` id) of the snapshot's own version when a stale intent conflicts with it."""


class PatchApplier:
    """The `app_builder.apply_patches` activity over the blob store."""

    def __init__(self, blobs: BlobStore) -> None:
        self._blobs = blobs

    @APPLY_PATCHES.defn
    async def apply_patches(self, request: ApplyRequest) -> ApplyOutcome:
        return await asyncio.to_thread(apply_intents, self._blobs, request.workspace, request.intents)


@dataclass(frozen=True)
class _Resolution:
    """One path's outcome: its new key (None: absent) and what to report about it."""

    key: str | None
    merged: MergedFile | None = None
    conflict: ConflictRecord | None = None


def apply_intents(blobs: BlobStore, workspace: WorkspaceRef, intents: list[PatchIntent]) -> ApplyOutcome:
    """`intents` applied to `workspace` (blocking: call it in a thread)."""
    groups = _group(blobs, intents)
    manifest = load_manifest(blobs, workspace)
    updated = dict(manifest)
    merged: list[MergedFile] = []
    conflicts: list[ConflictRecord] = []
    for path, group in groups.items():
        resolution = _resolve(blobs, path, manifest.get(path), group)
        if resolution.key is None:
            updated.pop(path, None)
        else:
            updated[path] = resolution.key
        if resolution.merged is not None:
            merged.append(resolution.merged)
        if resolution.conflict is not None:
            conflicts.append(resolution.conflict)
    changed = sorted(path for path in groups if updated.get(path) != manifest.get(path))
    snapshot = store_manifest(blobs, updated) if changed else workspace
    return ApplyOutcome(workspace=snapshot, changed=changed, merged=merged, conflicts=conflicts)


def _group(blobs: BlobStore, intents: list[PatchIntent]) -> dict[str, list[PatchIntent]]:
    """Valid intents by normalised path, in list order, one per task (its last version, its first base)."""
    groups: dict[str, dict[str, PatchIntent]] = {}
    for intent in intents:
        by_task = groups.setdefault(_checked_path(blobs, intent), {})
        earlier = by_task.get(intent.task_id)
        by_task[intent.task_id] = (
            intent if earlier is None else intent.model_copy(update={"base_key": earlier.base_key})
        )
    return {path: list(by_task.values()) for path, by_task in groups.items()}


def _checked_path(blobs: BlobStore, intent: PatchIntent) -> str:
    try:
        path = workspace_path(intent.path)
    except WorkspacePathError as err:
        raise _invalid(intent, str(err)) from err
    for key in (intent.base_key, intent.new_key):
        if key is not None and not (blobs.is_valid_key(key) and blobs.exists(key)):
            raise _invalid(intent, f"no blob {key[:80]!r}")
    return path


def _invalid(intent: PatchIntent, reason: str) -> ApplicationError:
    message = f"task {intent.task_id}: invalid patch for {intent.path[:80]!r}: {reason}"
    return permanent(AppBuilderErrorCode.INVALID_PATCH, message)


def _resolve(blobs: BlobStore, path: str, current: str | None, group: list[PatchIntent]) -> _Resolution:
    rebased = {intent.task_id: _rebase(blobs, current, intent) for intent in group}
    stale = [intent for intent in group if rebased[intent.task_id][1]]
    if stale:
        record = ConflictRecord(
            path=path,
            task_ids=list(rebased),
            base_key=stale[0].base_key,
            versions={SNAPSHOT: current, **{intent.task_id: intent.new_key for intent in group}},
            kept_task_id=SNAPSHOT,
            regions=sum(rebased[intent.task_id][1] for intent in stale),
        )
        return _Resolution(current, conflict=record)
    versions = {task_id: key for task_id, (key, _) in rebased.items()}
    return _fold(blobs, path, current, group, versions)


def _rebase(blobs: BlobStore, current: str | None, intent: PatchIntent) -> tuple[str | None, int]:
    """The intent's version against the snapshot, and how many regions conflicted (then: the snapshot's key)."""
    if intent.base_key == current:
        return intent.new_key, 0
    texts = [_text(blobs, current), _text(blobs, intent.new_key)]
    result = merge_versions(_text(blobs, intent.base_key), texts)
    return _store(blobs, result.text), result.conflicts


def _fold(
    blobs: BlobStore,
    path: str,
    current: str | None,
    group: list[PatchIntent],
    versions: dict[str, str | None],
) -> _Resolution:
    """Every task's version (against the snapshot) merged into one, or the first kept on conflict."""
    task_ids = list(versions)
    key = versions[task_ids[0]]
    if any(other != key for other in versions.values()):
        fold = merge_versions(_text(blobs, current), [_text(blobs, other) for other in versions.values()])
        if fold.conflicts:
            record = ConflictRecord(
                path=path,
                task_ids=task_ids,
                base_key=current,
                versions=versions,
                kept_task_id=task_ids[0],
                regions=fold.conflicts,
            )
            return _Resolution(key, conflict=record)
        key = _store(blobs, fold.text)
    if key is None or key == current or key in {intent.new_key for intent in group}:
        return _Resolution(key)
    return _Resolution(key, merged=MergedFile(path=path, task_ids=task_ids, merged_key=key))


def _text(blobs: BlobStore, key: str | None) -> str | None:
    return None if key is None else read_text(blobs, key)


def _store(blobs: BlobStore, text: str | None) -> str | None:
    return None if text is None else store_text(blobs, text)
