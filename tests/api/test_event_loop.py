"""Rule 12: the gateway's event loop never blocks. Twenty requests carrying 10 MB masks at once go through the
gateway running as its own process, whose loop is watched for the longest stretch it could not run."""

import asyncio
import base64
import io
import json
from pathlib import Path

import httpx
import numpy as np
from PIL import Image
from temporalio.testing import WorkflowEnvironment

from models.image.requests import MAX_MASK_BYTES
from stores.style_store import LanceStyleStore
from tests.gateway_process import gateway_process
from tests.sse import parse_sse
from tests.workflows.harness import settings_for, terminate_running
from worker import build_activities, running_workers

REQUESTS = 20
MAX_BLOCK_SECONDS = 0.1


def largest_legal_mask() -> bytes:
    """A PNG mask just under the 10 MB limit (noise does not compress)."""
    side = 3150
    noise = np.random.default_rng(7).integers(0, 256, (side, side), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise, mode="L").save(buffer, format="PNG", compress_level=0)
    data = buffer.getvalue()
    assert 9 * 1024 * 1024 < len(data) <= MAX_MASK_BYTES
    return data


async def test_twenty_requests_with_10_mb_masks_never_block_the_gateway_loop_for_100_ms(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    host, port = env.client.service_client.config.target_host.rsplit(":", 1)
    settings = settings_for(tmp_path, temporal_host=host, temporal_port=int(port))
    mask = base64.b64encode(largest_legal_mask()).decode()
    bodies = [
        json.dumps({"text": "换成一朵花", "sessionId": f"loop{i}", "maskData": {"base64": mask}}).encode()
        for i in range(REQUESTS)
    ]

    async with running_workers(env.client, settings, build_activities(settings, style_store=api_style_store)):
        with gateway_process(settings, tmp_path / "gateway.log") as gateway:
            async with httpx.AsyncClient(base_url=gateway.url, timeout=120) as http:
                await http.post("/_test/loop-watch/reset")
                responses = await asyncio.gather(
                    *(
                        http.post("/api/agent/chat", content=body, headers={"content-type": "application/json"})
                        for body in bodies
                    )
                )
                watch = (await http.get("/_test/loop-watch")).json()
        await terminate_running(env.client, {f"session-local-loop{i}" for i in range(REQUESTS)})

    assert [r.status_code for r in responses] == [200] * REQUESTS
    assert all(parse_sse(r.text)[-1].event == "stream_end" for r in responses)
    assert watch["ticks"] > 0
    longest = watch["longestBlock"]
    assert longest < MAX_BLOCK_SECONDS, f"the gateway's event loop was blocked for {longest * 1000:.0f} ms"
