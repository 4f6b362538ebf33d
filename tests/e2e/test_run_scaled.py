"""`make run-scaled` (`deploy.scaled`) as a user runs it, here with the Weaviate double for its vectors: the gateway
and two workers each on a `DATA_DIR` of their own that holds nothing another process needs, a project kept in the
stack's PostgreSQL and a blob in its S3 server; after `kill -9` of the runner no process of it is left (PostgreSQL,
run as the `postgres` user when we are root, included), and the next start finds the project again."""

import json
import shutil
import signal
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from deploy.scaled import postgres_bin_dir
from imaging.rendering import encode_png, render_text_to_image
from tests.e2e.test_stack_killed import GONE_WITHIN_S, alive, start_stack
from tests.stack_process import free_port
from tests.weaviate_double import start_weaviate_double

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(postgres_bin_dir() is None, reason="PostgreSQL is not installed (apt-get install postgresql)"),
]

CACHES = {"app_builder"}


def test_run_scaled_shares_no_disk_keeps_projects_in_postgres_and_dies_whole(tmp_path: Path) -> None:
    # DATA_DIR where the `postgres` user (who runs the cluster when we are root) can reach it, as a user's checkout
    # is; pytest's own temporary folders are private to root.
    data = Path(tempfile.mkdtemp(prefix="run-scaled-"))
    data.chmod(0o755)
    weaviate = start_weaviate_double()
    settings = {name: str(free_port()) for name in ("API_PORT", "TEMPORAL_PORT", "TEMPORAL_UI_PORT")}
    settings |= {"STACK_POSTGRES_PORT": str(free_port()), "STACK_S3_PORT": str(free_port())}
    settings |= {"WEAVIATE_URL": weaviate.url, "WEAVIATE_GRPC_PORT": str(weaviate.grpc_port)}
    gateway = f"http://127.0.0.1:{settings['API_PORT']}"
    try:
        first = start_stack(data, settings, tmp_path / "first.log", module="deploy.scaled")
        with httpx.Client(base_url=gateway, timeout=30) as http:
            project = http.post("/v1/writing/projects", json={"name": "长夜"}).json()["projectId"]
            png = encode_png(render_text_to_image("灯塔", seed=1, width=64, height=48, style_strength=0.5))
            uploaded = http.post("/v1/blobs", content=png, headers={"content-type": "image/png"})
            assert uploaded.status_code == 201, uploaded.text
            assert http.get(uploaded.json()["url"]).content == png, "served back from the stack's S3 server"
        record = json.loads((data / "stack.json").read_text())
        pids = {child["name"]: child["pid"] for child in record["children"]}
        assert {"postgres", "s3", "temporal", "worker 1", "worker 2", "gateway"} <= set(pids)
        for role in ("gateway", "worker-1", "worker-2"):
            kept = {path.name for path in (data / "scaled" / role).iterdir()}
            assert kept <= CACHES, f"{role} kept {kept} on its own disk"

        first.kill()
        first.wait()
        deadline = time.monotonic() + GONE_WITHIN_S
        while any(alive(pid) for pid in pids.values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert {name: pid for name, pid in pids.items() if alive(pid)} == {}, "every part ended with the runner"

        second = start_stack(data, settings, tmp_path / "second.log", module="deploy.scaled")
        with httpx.Client(base_url=gateway, timeout=30) as http:
            assert [p["projectId"] for p in http.get("/v1/writing/projects").json()] == [project]
        second.send_signal(signal.SIGINT)
        assert second.wait(timeout=60) == 0
    finally:
        weaviate.stop()
        shutil.rmtree(data, ignore_errors=True)
