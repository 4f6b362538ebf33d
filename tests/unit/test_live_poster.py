"""The worker's live-text poster (`activities.common.live_text.LivePoster`) against a gateway on a socket: the first
piece after a quiet spell goes at once, and a model writing a chunk every 2 ms reaches the gateway in posts at most
`POST_INTERVAL_SECONDS` apart, each carrying what was written since the last, joined, with nothing lost or reordered.
"""

import asyncio

from fastapi import FastAPI, Request

from activities.common.live_text import POST_INTERVAL_SECONDS, LivePoster
from models.streaming import LIVE_TEXT_PATH, LivePiece
from tests.api.sockets import on_a_socket

CHUNKS = 200
CHUNK_GAP_SECONDS = 0.002


async def test_a_fast_writer_reaches_the_gateway_in_few_posts_with_its_text_whole() -> None:
    posts: list[list[dict[str, object]]] = []
    gateway = FastAPI()

    @gateway.post(LIVE_TEXT_PATH)
    async def take(request: Request) -> dict[str, bool]:
        posts.append((await request.json())["pieces"])
        return {"ok": True}

    chunks = [f"{n}," for n in range(CHUNKS)]
    async with on_a_socket(gateway) as ws_base:
        poster = LivePoster([ws_base.replace("ws://", "http://")], "secret")
        try:
            offset = 0
            started = asyncio.get_running_loop().time()
            for chunk in chunks:
                poster.send(
                    LivePiece(workflow_id="w", agent="coder", call="1", attempt=1, round=0, offset=offset, text=chunk)
                )
                offset += len(chunk)
                await asyncio.sleep(CHUNK_GAP_SECONDS)
            writing = asyncio.get_running_loop().time() - started
            for _ in range(300):
                if sum(len(str(p["text"])) for post in posts for p in post) == offset:
                    break
                await asyncio.sleep(0.01)
        finally:
            await poster.aclose()

    assert len(posts[0]) == 1 and posts[0][0]["text"] == chunks[0]  # the first piece at once, alone
    pieces = [piece for post in posts for piece in post]
    assert "".join(str(p["text"]) for p in pieces) == "".join(chunks)
    assert [p["offset"] for p in pieces] == [sum(len(str(q["text"])) for q in pieces[:i]) for i in range(len(pieces))]
    assert all(len(post) == 1 for post in posts)  # one call: its pieces since the last post joined into one
    assert len(posts) <= writing / POST_INTERVAL_SECONDS + 2, f"{len(posts)} posts in {writing:.2f} s of writing"
