"""Benchmark: wall time of offline image-agent runs through the gateway, and the size of one run's history.

`make bench` (or `python -m tests.bench_image_agent [runs]`) starts the real stack on free ports, sends chat
turns over HTTP (each in its own session, so none waits for another), times each from the POST to its
`stream_end`, and reports the median and the number of history events of one run.
"""

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from temporalio.client import Client

from tests.stack_process import running_stack

PROMPTS = ["生成一只赛博朋克风格的猫", "画一幅水彩风格的山水", "a pixel art fox", "生成一只猫"]


def one_run(http: httpx.Client, index: int) -> tuple[float, str]:
    body = {"text": PROMPTS[index % len(PROMPTS)], "sessionId": f"bench{index}"}
    started = time.perf_counter()
    with http.stream("POST", "/api/agent/chat", json=body) as response:
        response.raise_for_status()
        text = "".join(response.iter_text())
    elapsed = time.perf_counter() - started
    if "event: stream_end" not in text:
        raise RuntimeError(f"run {index} did not end with stream_end")
    return elapsed, response.headers["x-run-id"]


async def history_length(address: str, run_id: str) -> int:
    client = await Client.connect(address)
    history = await client.get_workflow_handle(run_id).fetch_history()
    return len(history.events)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    with tempfile.TemporaryDirectory() as tmp, running_stack(Path(tmp) / "data", Path(tmp) / "stack.log") as stack:
        with httpx.Client(base_url=stack.gateway, timeout=120) as http:
            one_run(http, -1)  # warm-up: imports, first LanceDB search, first workflow task
            results = [one_run(http, i) for i in range(runs)]
        times = [t for t, _ in results]
        events = asyncio.run(history_length(stack.temporal_address, results[0][1]))
    sys.stdout.write(
        f"runs: {runs}\nmedian wall time: {statistics.median(times) * 1000:.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})\n"
        f"history events of one run ({results[0][1]}): {events}\n"
    )


if __name__ == "__main__":
    main()
