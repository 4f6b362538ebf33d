"""Applying patch intents to a snapshot: replacement, merges, conflicts, stale intents, invalid intents, no-ops and
retries."""

from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.app_builder.patches import SNAPSHOT, PatchApplier, apply_intents
from models.app_builder.workspace import ApplyRequest, ConflictRecord, MergedFile, PatchIntent, WorkspaceRef
from stores.app_workspace import load_manifest, read_files, store_files, store_text
from stores.blob_store import BlobStore, LocalBlobStore

APP = "import React from 'react'\n\nexport function App() {\n  return null\n}\n\nexport const title = 'app'\n"


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return LocalBlobStore(tmp_path / "blobs")


@pytest.fixture
def snapshot(blobs: BlobStore) -> WorkspaceRef:
    return store_files(blobs, {"src/App.tsx": APP, "package.json": "{}\n"})


def key(blobs: BlobStore, snapshot: WorkspaceRef, path: str) -> str | None:
    return load_manifest(blobs, snapshot).get(path)


def intent(blobs: BlobStore, task_id: str, path: str, base_key: str | None, text: str | None) -> PatchIntent:
    new_key = None if text is None else store_text(blobs, text)
    return PatchIntent(task_id=task_id, agent_id="component-agent", path=path, base_key=base_key, new_key=new_key)


def edit(blobs: BlobStore, snapshot: WorkspaceRef, task_id: str, text: str | None) -> PatchIntent:
    return intent(blobs, task_id, "src/App.tsx", key(blobs, snapshot, "src/App.tsx"), text)


def test_a_fresh_intent_replaces_the_file(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    edited = APP.replace("'app'", "'shop'")

    outcome = apply_intents(blobs, snapshot, [edit(blobs, snapshot, "t1", edited)])

    assert read_files(blobs, outcome.workspace) == {"src/App.tsx": edited, "package.json": "{}\n"}
    assert outcome.changed == ["src/App.tsx"]
    assert (outcome.merged, outcome.conflicts) == ([], [])
    assert outcome.workspace.files == 2


def test_a_fresh_delete_removes_the_file(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    outcome = apply_intents(blobs, snapshot, [edit(blobs, snapshot, "t1", None)])

    assert read_files(blobs, outcome.workspace) == {"package.json": "{}\n"}
    assert outcome.changed == ["src/App.tsx"]


def test_two_non_overlapping_edits_are_merged(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    first = edit(blobs, snapshot, "t1", APP.replace("import React from 'react'", "import { useState } from 'react'"))
    second = edit(blobs, snapshot, "t2", APP.replace("'app'", "'shop'"))

    outcome = apply_intents(blobs, snapshot, [first, second])

    merged = (
        "import { useState } from 'react'\n\nexport function App() {\n  return null\n}\n\nexport const title = 'shop'\n"
    )
    assert read_files(blobs, outcome.workspace)["src/App.tsx"] == merged
    merged_key = key(blobs, outcome.workspace, "src/App.tsx")
    assert merged_key is not None
    assert outcome.merged == [MergedFile(path="src/App.tsx", task_ids=["t1", "t2"], merged_key=merged_key)]
    assert outcome.conflicts == []
    assert outcome.changed == ["src/App.tsx"]


def test_overlapping_edits_keep_the_first_and_record_both(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    first = edit(blobs, snapshot, "t1", APP.replace("return null", "return <main />"))
    second = edit(blobs, snapshot, "t2", APP.replace("return null", "return <div />"))

    outcome = apply_intents(blobs, snapshot, [first, second])

    assert key(blobs, outcome.workspace, "src/App.tsx") == first.new_key
    assert outcome.conflicts == [
        ConflictRecord(
            path="src/App.tsx",
            task_ids=["t1", "t2"],
            base_key=first.base_key,
            versions={"t1": first.new_key, "t2": second.new_key},
            kept_task_id="t1",
            regions=1,
        )
    ]
    assert outcome.merged == []
    assert outcome.changed == ["src/App.tsx"]


def test_identical_edits_apply_without_merge_or_conflict(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    edited = APP.replace("'app'", "'shop'")

    outcome = apply_intents(blobs, snapshot, [edit(blobs, snapshot, "t1", edited), edit(blobs, snapshot, "t2", edited)])

    assert read_files(blobs, outcome.workspace)["src/App.tsx"] == edited
    assert (outcome.merged, outcome.conflicts) == ([], [])


def test_a_new_file_added_twice_with_the_same_text(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    intents = [intent(blobs, task, "./src/util.ts", None, "export const x = 1\n") for task in ("t1", "t2")]

    outcome = apply_intents(blobs, snapshot, intents)

    assert read_files(blobs, outcome.workspace)["src/util.ts"] == "export const x = 1\n"
    assert outcome.changed == ["src/util.ts"]
    assert (outcome.merged, outcome.conflicts) == ([], [])


def test_a_new_file_added_twice_with_different_texts(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    first = intent(blobs, "t1", "src/util.ts", None, "export const x = 1\n")
    second = intent(blobs, "t2", "./src/util.ts", None, "export const y = 2\n")

    outcome = apply_intents(blobs, snapshot, [first, second])

    assert read_files(blobs, outcome.workspace)["src/util.ts"] == "export const x = 1\n"
    [conflict] = outcome.conflicts
    assert conflict.path == "src/util.ts"
    assert conflict.base_key is None
    assert conflict.versions == {"t1": first.new_key, "t2": second.new_key}
    assert conflict.kept_task_id == "t1"


def test_delete_against_edit_keeps_the_first_tasks_delete(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    deleted = edit(blobs, snapshot, "t1", None)
    edited = edit(blobs, snapshot, "t2", APP + "// more\n")

    outcome = apply_intents(blobs, snapshot, [deleted, edited])

    assert "src/App.tsx" not in load_manifest(blobs, outcome.workspace)
    [conflict] = outcome.conflicts
    assert conflict.versions == {"t1": None, "t2": edited.new_key}
    assert conflict.kept_task_id == "t1"
    assert outcome.changed == ["src/App.tsx"]


def test_three_versions_are_folded(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    intents = [
        edit(blobs, snapshot, "t1", APP.replace("'react'", "'preact'")),
        edit(blobs, snapshot, "t2", APP.replace("return null", "return <main />")),
        edit(blobs, snapshot, "t3", APP.replace("'app'", "'shop'")),
    ]

    outcome = apply_intents(blobs, snapshot, intents)

    merged = (
        "import React from 'preact'\n\nexport function App() {\n  return <main />\n}\n\nexport const title = 'shop'\n"
    )
    assert read_files(blobs, outcome.workspace)["src/App.tsx"] == merged
    assert [file.task_ids for file in outcome.merged] == [["t1", "t2", "t3"]]
    assert outcome.conflicts == []


def test_a_stale_intent_is_merged_into_the_current_text(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    old_base = key(blobs, snapshot, "src/App.tsx")
    current = apply_intents(blobs, snapshot, [edit(blobs, snapshot, "t1", APP.replace("'app'", "'shop'"))])
    stale = intent(blobs, "t2", "src/App.tsx", old_base, APP.replace("return null", "return <main />"))

    outcome = apply_intents(blobs, current.workspace, [stale])

    merged = (
        "import React from 'react'\n\nexport function App() {\n  return <main />\n}\n\nexport const title = 'shop'\n"
    )
    assert read_files(blobs, outcome.workspace)["src/App.tsx"] == merged
    assert [(file.path, file.task_ids) for file in outcome.merged] == [("src/App.tsx", ["t2"])]
    assert outcome.conflicts == []


def test_a_conflicting_stale_intent_keeps_the_snapshot(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    old_base = key(blobs, snapshot, "src/App.tsx")
    current = apply_intents(blobs, snapshot, [edit(blobs, snapshot, "t1", APP.replace("'app'", "'shop'"))])
    current_key = key(blobs, current.workspace, "src/App.tsx")
    stale = intent(blobs, "t2", "src/App.tsx", old_base, APP.replace("'app'", "'store'"))

    outcome = apply_intents(blobs, current.workspace, [stale])

    assert outcome.workspace == current.workspace
    assert outcome.changed == []
    assert outcome.conflicts == [
        ConflictRecord(
            path="src/App.tsx",
            task_ids=["t2"],
            base_key=old_base,
            versions={SNAPSHOT: current_key, "t2": stale.new_key},
            kept_task_id=SNAPSHOT,
            regions=1,
        )
    ]


def test_a_task_writing_a_path_twice_counts_with_its_last_version(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    draft = edit(blobs, snapshot, "t1", APP.replace("'app'", "'draft'"))
    final = intent(blobs, "t1", "src/App.tsx", draft.new_key, APP.replace("'app'", "'final'"))

    outcome = apply_intents(blobs, snapshot, [draft, final])

    assert key(blobs, outcome.workspace, "src/App.tsx") == final.new_key
    assert (outcome.merged, outcome.conflicts) == ([], [])


@pytest.mark.parametrize("path", ["../outside.ts", "/etc/passwd", "src\\App.tsx", ""])
def test_an_invalid_path_is_a_permanent_failure(blobs: BlobStore, snapshot: WorkspaceRef, path: str) -> None:
    bad = intent(blobs, "t7", path, None, "x\n")

    with pytest.raises(ApplicationError) as raised:
        apply_intents(blobs, snapshot, [bad])

    assert raised.value.type == "INVALID_PATCH"
    assert raised.value.non_retryable
    assert "t7" in raised.value.message


def test_a_missing_blob_fails_before_anything_is_written(
    blobs: BlobStore, snapshot: WorkspaceRef, tmp_path: Path
) -> None:
    good = edit(blobs, snapshot, "t1", APP.replace("'app'", "'shop'"))
    missing = PatchIntent(
        task_id="t2", agent_id="style-agent", path="src/a.css", base_key=None, new_key="appfile/0.txt"
    )
    manifests = tmp_path / "blobs" / "appmanifest"
    before = sorted(manifests.iterdir())

    with pytest.raises(ApplicationError) as raised:
        apply_intents(blobs, snapshot, [good, missing])

    assert raised.value.type == "INVALID_PATCH"
    assert raised.value.non_retryable
    assert "t2" in raised.value.message
    assert "src/a.css" in raised.value.message
    assert sorted(manifests.iterdir()) == before


def test_intents_that_change_nothing_return_the_same_snapshot(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    unchanged = edit(blobs, snapshot, "t1", APP)
    absent = intent(blobs, "t2", "src/gone.ts", None, None)

    outcome = apply_intents(blobs, snapshot, [unchanged, absent])

    assert outcome.workspace == snapshot
    assert outcome.changed == []
    assert apply_intents(blobs, snapshot, []).workspace == snapshot


async def test_a_retried_apply_gives_the_same_outcome(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    intents = [
        edit(blobs, snapshot, "t1", APP.replace("'react'", "'preact'")),
        edit(blobs, snapshot, "t2", APP.replace("'app'", "'shop'")),
        intent(blobs, "t3", "src/new.ts", None, "export {}\n"),
    ]
    request = ApplyRequest(run_id="run-1", workspace=snapshot, intents=intents)
    applier = PatchApplier(blobs)

    first = await ActivityEnvironment().run(applier.apply_patches, request)
    again = await ActivityEnvironment().run(applier.apply_patches, request)

    assert again == first
    assert first.workspace.manifest_ref != snapshot.manifest_ref
    assert first.changed == ["src/App.tsx", "src/new.ts"]
