"""Issue 30's proof: the scale settings on separate hosts. One Temporal dev server, one PostgreSQL, one S3 API
server and the Weaviate double; a gateway and two workers, each its own process with its own empty `DATA_DIR`
(`tests/scaled_topology.py`). Every family's README example runs over HTTP at once: an image turn and then
inpainting on an uploaded image, a content post from notes and a reference photo, a writing chain answered by a
person, and an app. Worker 1 is killed with SIGKILL while they run (the app in its second wave, the chain waiting
for its person); every run finishes on worker 2. Afterwards no process's `DATA_DIR` holds anything but its own
caches: what the gateway served (the images, the post, the chain's project, the app's files) came through the
shared services, and each run's last workflow task was completed by worker 2. Each family's wall time (from the
start of all four) and the moment of the kill are written to `test-artifacts/separate-hosts.json`."""

import asyncio
import io
import json
import threading
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from PIL import Image
from temporalio.client import Client

from deploy.scaled import postgres_bin_dir
from imaging.rendering import encode_png, render_text_to_image
from tests.api.image.test_chat import mask_png
from tests.e2e.image.test_stack import sse_events
from tests.e2e.writing.test_brainstorm_over_http import readme_project
from tests.scaled_topology import Topology, separate_hosts
from tests.sse import SseEvent

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(postgres_bin_dir() is None, reason="PostgreSQL is not installed (apt-get install postgresql)"),
]

RUN_S = 300.0
CACHES = {"app_builder"}
"""What a process may keep in its own `DATA_DIR`: the app builder's npm cache and build scratch."""
ARTIFACT = Path(__file__).resolve().parents[3] / "test-artifacts" / "separate-hosts.json"


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    with separate_hosts(tmp_path_factory.mktemp("hosts")) as topology:
        yield topology


class Kill:
    """Worker 1's SIGKILL, once, by whichever run reaches its moment first; the others wait for it."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.cause = ""
        self.at = 0.0

    def now(self, cause: str) -> None:
        with self.lock:
            if not self.done.is_set():
                self.topology.kill("worker-1")
                self.cause = cause
                self.at = time.monotonic()
                self.done.set()

    def wait(self) -> None:
        assert self.done.wait(RUN_S), "worker 1 was never killed"


def _png(text: str, seed: int) -> bytes:
    return encode_png(render_text_to_image(text, seed=seed, width=400, height=300, style_strength=0.9))


def _served_png(http: httpx.Client, url: str) -> Image.Image:
    response = http.get(url)
    assert response.status_code == 200, (url, response.text[:200])
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG"
    return image


def image_family(http: httpx.Client, kill: Kill) -> str:
    """An image turn, then (after the kill) inpainting on an uploaded image in the same session."""
    _, first = _chat(http, {"text": "生成一只赛博朋克风格的猫", "sessionId": "hosts"})
    assert first[-1].data["data"]["status"] == "completed"
    uploaded = http.post("/v1/blobs", content=_png("海边 灯塔", 3), headers={"content-type": "image/png"})
    assert uploaded.status_code == 201, uploaded.text
    kill.wait()
    body = {
        "text": "换成机械头盔",
        "sessionId": "hosts",
        "maskData": {"base64": mask_png((400, 300), (100, 60, 220, 180)), "imageUrl": uploaded.json()["url"]},
    }
    run_id, events = _chat(http, body)
    assert events[-1].data["data"]["status"] == "completed", [e.data for e in events if e.event == "error"]
    canvases = [e for e in events if e.event == "gen_ui_component" and e.data["data"]["widgetType"] == "SmartCanvas"]
    edited = _served_png(http, canvases[-1].data["data"]["props"]["imageUrl"]).convert("RGB")
    original = _served_png(http, uploaded.json()["url"]).convert("RGB")
    assert edited.size == original.size
    assert edited.getpixel((10, 10)) == original.getpixel((10, 10)), "outside the mask nothing changed"
    return run_id


def _chat(http: httpx.Client, body: Mapping[str, object]) -> tuple[str, list[SseEvent]]:
    with http.stream("POST", "/api/agent/chat", json=body) as response:
        assert response.status_code == 200, response.read()
        events = list(sse_events(response))
    assert events[-1].event == "stream_end"
    return response.headers["x-run-id"], events


def content_family(http: httpx.Client, kill: Kill) -> str:
    """A post from notes and a reference photo; its images and export come from S3 through the gateway."""
    uploaded = http.post("/v1/blobs", content=_png("咖啡 清晨", 5), headers={"content-type": "image/png"})
    assert uploaded.status_code == 201, uploaded.text
    body = {
        "topic": "打工人的咖啡续命指南",
        "platform": "xiaohongshu",
        "referenceImages": [uploaded.json()["url"]],
        "evidence": ["2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。", "营养师建议：每天咖啡因不超过 400 毫克。"],
    }
    with http.stream("POST", "/v1/content/runs", json=body) as response:
        assert response.status_code == 200, response.read()
        run_id = response.headers["x-run-id"]
        seen = [event.event for event in sse_events(response)]
    assert seen[-2:] == ["post_ready", "done"], seen
    post = http.get(f"/v1/content/runs/{run_id}/post").json()
    assert post["complete"] and post["imageUrls"]
    for url in post["imageUrls"]:
        _served_png(http, url)
    archive = http.get(f"/v1/content/runs/{run_id}/export.zip")
    assert archive.status_code == 200
    with zipfile.ZipFile(io.BytesIO(archive.content)) as files:
        assert sum(name.endswith(".png") for name in files.namelist()) == len(post["imageUrls"])
    return run_id


def writing_family(http: httpx.Client, kill: Kill) -> str:
    """A project in PostgreSQL, searched through Weaviate; the chain's choice is answered after the kill."""
    base = readme_project(http)
    seen: list[str] = []
    chosen = ""
    with http.stream("POST", f"{base}/chat", json={"text": "先想三个结局方案，我选一个再写"}) as response:
        assert response.status_code == 200, response.read()
        run_id = response.headers["x-run-id"]
        for event in sse_events(response):
            seen.append(event.event)
            if event.event == "user_input_required":
                options = event.data["data"]["options"]
                chosen = options[1]["label"].split("：")[-1].split("；")[0]
                kill.wait()
                answered = http.post(f"/v1/runs/{run_id}/input", json={"answer": "B"})
                assert answered.status_code == 200, answered.text
    assert seen[-1] == "done" and "chain_summary" in seen, seen
    result = http.get(f"/v1/runs/{run_id}").json()
    assert result["status"] == "completed" and chosen in result["state"]["result"]["text"]
    assert http.get(f"{base}/chapters").json()[0]["title"] == "雨夜", "the project is read back from PostgreSQL"
    return run_id


def app_family(http: httpx.Client, kill: Kill) -> str:
    """An app: worker 1 is killed when its second wave starts; the run finishes and its workspace downloads."""
    body = {
        "message": "做一个待办事项应用：可以添加、完成和删除待办，并按状态筛选",
        "techStack": ["react", "typescript"],
    }
    with http.stream("POST", "/v1/apps/runs", json=body) as response:
        assert response.status_code == 200, response.read()
        run_id = response.headers["x-run-id"]
        events = []
        for event in sse_events(response):
            events.append(event)
            if event.event == "wave_started" and event.data["data"]["wave"] == 2:
                kill.now("the app's second wave")
    assert events[-1].event == "done" and events[-1].data["data"]["status"] == "completed", events[-1].data
    download = http.get(f"/v1/apps/runs/{run_id}/workspace.zip")
    assert download.status_code == 200
    with zipfile.ZipFile(io.BytesIO(download.content)) as archive:
        assert f"{run_id}/src/App.tsx" in archive.namelist()
    return run_id


FAMILIES: dict[str, Callable[[httpx.Client, Kill], str]] = {
    "image": image_family,
    "content": content_family,
    "writing": writing_family,
    "app_builder": app_family,
}


def test_every_family_runs_on_separate_hosts_and_finishes_after_a_worker_is_killed(hosts: Topology) -> None:
    kill = Kill(hosts)
    timer = threading.Timer(90.0, kill.now, ["a timer"])  # if the app's second wave never came
    timer.start()
    began = time.monotonic()

    def timed(family: str) -> tuple[str, float]:
        with httpx.Client(base_url=hosts.gateway, headers=hosts.headers, timeout=RUN_S) as http:
            run_id = FAMILIES[family](http, kill)
        return run_id, round(time.monotonic() - began, 1)

    try:
        with ThreadPoolExecutor(len(FAMILIES)) as pool:
            futures = {family: pool.submit(timed, family) for family in FAMILIES}
            finished = {family: future.result(timeout=RUN_S * 2) for family, future in futures.items()}
    except Exception as exc:
        raise AssertionError(hosts.log_tail()) from exc
    finally:
        timer.cancel()

    assert kill.cause == "the app's second wave"
    assert hosts.processes["worker-1"].poll() is not None and hosts.processes["worker-2"].poll() is None
    survivor = f"{hosts.processes['worker-2'].pid}@"
    finishers = asyncio.run(last_workflow_task_identities(hosts.temporal_address, [r for r, _ in finished.values()]))
    assert all(identity.startswith(survivor) for identity in finishers.values()), finishers
    for role in ("gateway", "worker-1", "worker-2"):
        kept = {path.name for path in hosts.data_dirs[role].iterdir()}
        assert kept <= CACHES, f"{role} kept {kept} on its own disk"
    ARTIFACT.parent.mkdir(exist_ok=True)
    report = {
        "wall_s": {family: wall for family, (_, wall) in finished.items()},
        "killed_at_s": round(kill.at - began, 1),
        "killed_when": kill.cause,
    }
    ARTIFACT.write_text(json.dumps(report, indent=2))


async def last_workflow_task_identities(address: str, run_ids: list[str]) -> dict[str, str]:
    """Which worker (`pid@host`) completed each run's last workflow task: the one the run finished on."""
    client = await Client.connect(address, namespace="default")
    found: dict[str, str] = {}
    for run_id in run_ids:
        history = await client.get_workflow_handle(run_id).fetch_history()
        completed = [e for e in history.events if e.HasField("workflow_task_completed_event_attributes")]
        found[run_id] = completed[-1].workflow_task_completed_event_attributes.identity
    return found
