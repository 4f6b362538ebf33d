"""Issue 27 item 3, the build kept for the preview: `dist/` read within limits (regular files only, no symlink
followed), stored as one blob per file plus a manifest, read back by path only from that manifest; and with the
real toolchain, the quality agent's toolchain report of the offline todo app carries its stored build, built with
a relative base."""

import json
import shutil
from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

from activities.app_builder.checks.build_output import read_build
from activities.app_builder.quality import QualityAgent
from models.app_builder.quality import QualityRequest
from models.blobs import key_of
from stores.app_preview import FILE_KIND, preview_file, preview_manifest_key, store_build
from stores.app_workspace import store_files
from stores.blob_store import LocalBlobStore
from tests.unit.app_builder.test_offline_project import MESSAGES, compose

INDEX = b'<!doctype html><script type="module" crossorigin src="./assets/index-1.js"></script>'


def dist(root: Path, files: dict[str, bytes]) -> Path:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


def test_the_build_is_every_regular_file_under_dist_by_its_path(tmp_path: Path) -> None:
    built = dist(tmp_path / "dist", {"index.html": INDEX, "assets/index-1.js": b"console.log(1)"})

    output = read_build(built)

    assert output.note is None
    assert output.files == {"index.html": INDEX, "assets/index-1.js": b"console.log(1)"}


def test_a_symlink_in_dist_is_not_followed_nor_kept(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("worker secret")
    built = dist(tmp_path / "dist", {"index.html": INDEX})
    (built / "leak.txt").symlink_to(secret)
    (built / "outside").symlink_to(tmp_path, target_is_directory=True)

    output = read_build(built)

    assert set(output.files) == {"index.html"}


@pytest.mark.parametrize(
    ("limits", "why"), [({"max_files": 2}, "more than 2 files"), ({"max_bytes": 100}, "larger than")]
)
def test_a_build_over_a_limit_keeps_nothing_and_says_why(tmp_path: Path, limits: dict[str, int], why: str) -> None:
    built = dist(tmp_path / "dist", {"index.html": INDEX, "a.js": b"a" * 60, "b.js": b"b" * 60})

    output = read_build(built, **limits)

    assert output.files == {}
    assert output.note is not None and why in output.note and "too big for a preview" in output.note


def test_a_build_without_index_html_has_no_preview(tmp_path: Path) -> None:
    output = read_build(dist(tmp_path / "dist", {"main.js": b"1"}))

    assert output.files == {} and output.note == "the build wrote no index.html: no preview"


def test_a_stored_build_serves_its_files_by_path_and_nothing_else(tmp_path: Path) -> None:
    blobs = LocalBlobStore(tmp_path / "blobs")
    workspace = store_files(blobs, {"index.html": "<!doctype html>"})
    files = {"index.html": INDEX, "assets/index-1.js": b"console.log(1)"}

    build = store_build(blobs, files, workspace)
    manifest_key = preview_manifest_key(build)

    assert (build.files, build.bytes, build.workspace_ref) == (2, len(INDEX) + 14, workspace.manifest_ref)
    manifest = json.loads(blobs.get(manifest_key))
    assert sorted(manifest) == ["assets/index-1.js", "index.html"]
    assert all(key.startswith(f"{FILE_KIND}/") for key in manifest.values()), "one blob per file"
    assert preview_file(blobs, manifest_key, "assets/index-1.js") == b"console.log(1)"
    for outside in ("../index.html", "assets/../../x", "/index.html", "missing.js"):
        assert preview_file(blobs, manifest_key, outside) is None, outside
    workspace_key = key_of(workspace.manifest_ref or "")
    assert workspace_key is not None
    assert preview_file(blobs, workspace_key, "index.html") is None, "a workspace manifest is no preview"


@pytest.mark.toolchain
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
async def test_the_toolchain_report_carries_the_stored_build_with_a_relative_base(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    blobs = LocalBlobStore(tmp_path / "blobs")
    agent = QualityAgent(blobs, tmp_path_factory.getbasetemp() / "app-builder-work")  # one npm install a session
    workspace = store_files(blobs, compose(MESSAGES["todo"]).files)

    report = await ActivityEnvironment().run(
        agent.toolchain_checks, QualityRequest(run_id="run-1", workspace=workspace, toolchain="on")
    )

    assert report.passed, report.findings
    assert report.preview is not None and report.preview_note is None
    assert report.preview.workspace_ref == workspace.manifest_ref
    manifest_key = preview_manifest_key(report.preview)
    index = preview_file(blobs, manifest_key, "index.html")
    assert index is not None and b'src="./assets/' in index, "built with --base ./"
    scripts = [path for path in json.loads(blobs.get(manifest_key)) if path.endswith(".js")]
    assert scripts and all(path.startswith("assets/") for path in scripts)
