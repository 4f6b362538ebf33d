"""`make bench-masks` / `python -m tests.bench.masks`: the gateway's memory and time with maximal masks at once.

Starts the real stack (`python -m deploy.stack`, data under `DATA_DIR/bench/masks`), then sends `--at-once` (3) chat
messages together, each with the largest legal mask: 100 paths of 10 000 points (a JSON body of about 26 MB), each
repainting the image an earlier message of its session made. While they run, the resident memory of the gateway's
process tree (the gateway and its intake process) is sampled every 20 ms. Prints and writes to
`DATA_DIR/bench/masks.json`: the peak RSS (total, and per process), the RSS before, each message's time from POST to
`stream_end` and its status.
"""

import argparse
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

from models.paths import MAX_PATHS, MAX_POINTS_PER_PATH
from models.settings import Settings
from tests.sse import parse_sse
from tests.stack_process import Stack, running_stack


def maximal_mask_body(seed: int) -> bytes:
    """A chat body for session `m<seed>` with the largest legal mask: `MAX_PATHS` paths of `MAX_POINTS_PER_PATH`
    points, to repaint the image that session made."""
    rng = random.Random(seed)
    paths = [
        [{"x": round(rng.uniform(0, 1024), 2), "y": round(rng.uniform(0, 1024), 2)} for _ in range(MAX_POINTS_PER_PATH)]
        for _ in range(MAX_PATHS)
    ]
    body = {"text": "把猫涂成红色", "sessionId": f"m{seed}", "maskData": {"coordinates": paths}}
    return json.dumps(body).encode()


def gateway_rss(stack: Stack) -> dict[int, int]:
    """Resident bytes of each process of the gateway's tree."""
    sizes: dict[int, int] = {}
    for pid in stack.processes()["gateway"]:
        try:
            sizes[pid] = psutil.Process(pid).memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return sizes


async def sample_peak(stack: Stack, stop: asyncio.Event) -> dict[str, Any]:
    peak_total, peak_each = 0, {}
    while not stop.is_set():
        sizes = await asyncio.to_thread(gateway_rss, stack)
        total = sum(sizes.values())
        if total > peak_total:
            peak_total, peak_each = total, sizes
        await asyncio.sleep(0.02)
    return {"peak_mb": peak_total / 2**20, "peak_per_process_mb": [size / 2**20 for size in peak_each.values()]}


async def send(http: httpx.AsyncClient, body: bytes) -> dict[str, Any]:
    started = time.perf_counter()
    response = await http.post("/api/agent/chat", content=body, headers={"content-type": "application/json"})
    seconds = time.perf_counter() - started
    if response.status_code != 200:
        return {"seconds": seconds, "status": response.status_code, "body": response.text[:300]}
    events = parse_sse(response.text)
    errors = [event.data["data"] for event in events if event.event == "error"]
    return {"seconds": seconds, "status": events[-1].data["data"].get("status"), "errors": errors}


async def measure(stack: Stack, at_once: int) -> dict[str, Any]:
    bodies = await asyncio.to_thread(lambda: [maximal_mask_body(seed) for seed in range(at_once)])
    async with httpx.AsyncClient(base_url=stack.gateway, timeout=120) as http:
        for seed in range(at_once):  # each session makes the image its mask repaints
            await send(http, json.dumps({"text": "画一只猫", "sessionId": f"m{seed}"}).encode())
        before = sum(gateway_rss(stack).values()) / 2**20
        stop = asyncio.Event()
        sampler = asyncio.create_task(sample_peak(stack, stop))
        started = time.perf_counter()
        results = await asyncio.gather(*(send(http, body) for body in bodies))
        wall = time.perf_counter() - started
        stop.set()
        memory = await sampler
    return {
        "at_once": at_once,
        "body_mb": [len(body) / 2**20 for body in bodies],
        "rss_before_mb": before,
        **memory,
        "wall_s": wall,
        "runs": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at-once", type=int, default=3)
    args = parser.parse_args()
    out = Settings().data_dir.resolve() / "bench"
    data = out / "masks"
    data.mkdir(parents=True, exist_ok=True)
    os.environ["OTEL_EXPORTER"] = "none"
    with running_stack(data, out / "masks-stack.log") as stack:
        report = asyncio.run(measure(stack, args.at_once))
    text = json.dumps(report, indent=2, ensure_ascii=False)
    Path(out / "masks.json").write_text(text)
    sys.stdout.write(text + "\n")


if __name__ == "__main__":
    main()
