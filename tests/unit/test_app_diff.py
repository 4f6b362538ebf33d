"""A round's changes against its base (`stores.app_diff`): counts by manifest, the unified diff file by file, and
its limits (lines per file, a large or non-text file summarised, one answer's budget); and the chain's messages
as a follow-up's agents read them."""

from pathlib import Path

import pytest

from api.routes.app_rounds import PROMPT_MESSAGE_CHARS, PROMPT_MESSAGES, prompt_messages
from models.app_builder.rounds import RoundChanges
from stores import app_diff
from stores.app_diff import round_changes, workspace_diff
from stores.app_workspace import FILE_KIND, load_manifest, store_files, store_manifest
from stores.blob_store import BlobStore, LocalBlobStore

BASE = {"src/App.tsx": "export function App() {\n  return <h1>Todo</h1>\n}\n", "README.md": "# todo\n", "x.css": ""}
CHANGED = {"src/App.tsx": "export function App() {\n  return <h1 className='dark'>Todo</h1>\n}\n", "x.css": "a{}"}


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return LocalBlobStore(tmp_path / "blobs")


def test_counts_and_diff_say_what_changed_file_by_file(blobs: BlobStore) -> None:
    base = store_files(blobs, BASE)
    after = store_files(blobs, CHANGED | {"src/theme.ts": "export const dark = true\n"})

    assert round_changes(blobs, base, after) == RoundChanges(added=1, modified=2, removed=1)
    assert round_changes(blobs, None, base) == RoundChanges(added=3)
    diffs = {d.path: d for d in workspace_diff(blobs, base, after)}
    assert {path: d.status for path, d in diffs.items()} == {
        "README.md": "removed",
        "src/App.tsx": "modified",
        "src/theme.ts": "added",
        "x.css": "modified",
    }
    app = diffs["src/App.tsx"]
    assert (app.additions, app.deletions, app.truncated) == (1, 1, False)
    assert app.diff is not None and app.diff.startswith("--- a/src/App.tsx\n+++ b/src/App.tsx\n")
    assert "-  return <h1>Todo</h1>\n+  return <h1 className='dark'>Todo</h1>\n" in app.diff
    assert diffs["README.md"].diff == "--- a/README.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-# todo\n"
    assert diffs["x.css"].diff is not None and diffs["x.css"].diff.endswith("+a{}\n\\ No newline at end of file\n")
    assert workspace_diff(blobs, base, base) == []


def test_a_long_diff_is_cut_and_a_large_or_binary_file_is_summarised(
    blobs: BlobStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = "".join(f"line {n}\n" for n in range(1000))
    manifest = load_manifest(blobs, store_files(blobs, {"long.ts": long, "big.json": "x" * (300 * 1024)}))
    manifest["logo.bin"] = blobs.put(b"\xff\xfe\x00", kind=FILE_KIND, ext="txt")
    after = store_manifest(blobs, manifest)

    diffs = {d.path: d for d in workspace_diff(blobs, None, after)}

    cut = diffs["long.ts"]
    assert cut.truncated and cut.additions == 1000 and cut.diff is not None
    assert cut.diff.count("\n") == app_diff.MAX_DIFF_LINES and "400 lines" in (cut.note or "")
    assert diffs["big.json"].diff is None and "too large" in (diffs["big.json"].note or "")
    assert diffs["logo.bin"].diff is None and diffs["logo.bin"].note == "not UTF-8 text"
    monkeypatch.setattr(app_diff, "MAX_DIFF_CHARS", 10)
    spent = {d.path: d for d in workspace_diff(blobs, None, after)}["long.ts"]
    assert spent.diff is None and spent.additions == 1000 and "budget" in (spent.note or "")


def test_the_agents_read_the_first_request_and_the_latest_changes() -> None:
    few = [f"m{n}" for n in range(PROMPT_MESSAGES)]
    many = [f"m{n}" for n in range(30)]

    assert prompt_messages(few) == few
    assert prompt_messages(["x" * 5000]) == ["x" * PROMPT_MESSAGE_CHARS + "…"]
    shown = prompt_messages(many)
    assert shown[0] == "m0" and shown[-1] == "m29" and "20" in shown[1]
    assert len(shown) == PROMPT_MESSAGES + 1 and shown[2:] == many[-(PROMPT_MESSAGES - 1) :]
