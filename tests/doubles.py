"""Test doubles for external services only: an image API, a vector store and object storage (LLM providers are
stood in for by the loopback server in `tests.llm.loopback`)."""

import asyncio
from datetime import datetime

from temporalio import activity

from imaging.image_provider import ImageRequest, LocalImageProvider
from imaging.rendering import encode_png
from models.image.state import RetrievedStyle
from stores.blob_store import LocalBlobStore
from stores.style_store import StyleStore


class UnavailableImageApi:
    """An image API that answers 503 for its first `failures` calls, then works; records when each call started."""

    name = "unavailable-image-api"

    def max_references(self, model: str | None) -> int:
        return 0

    def __init__(self, failures: int = 10**9) -> None:
        self.failures = failures
        self.calls: list[datetime] = []
        self._real = LocalImageProvider()

    async def generate(self, request: ImageRequest) -> bytes:
        self.calls.append(activity.info().started_time)
        if len(self.calls) <= self.failures:
            raise ConnectionError("image API answered 503 Service Unavailable")
        return await self._real.generate(request)


class BlankImageApi:
    """An image API that returns a blank image of the requested size (a broken model)."""

    name = "blank-image-api"

    def max_references(self, model: str | None) -> int:
        return 0

    def __init__(self) -> None:
        self.calls = 0

    async def generate(self, request: ImageRequest) -> bytes:
        from PIL import Image

        self.calls += 1
        return encode_png(Image.new("RGB", (request.width, request.height), (128, 128, 128)))


class HangingImageApi:
    """An image API that never answers."""

    name = "hanging-image-api"

    def max_references(self, model: str | None) -> int:
        return 0

    async def generate(self, request: ImageRequest) -> bytes:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class UnreachableVectorStore:
    """A vector database that cannot be reached."""

    def __init__(self) -> None:
        self.calls = 0

    def search(self, query: str, *, limit: int = 3, min_similarity: float = 0.6) -> list[RetrievedStyle]:
        self.calls += 1
        raise ConnectionError("vector store unreachable")


class CountingVectorStore:
    """A vector database that answers (from the real embedded store) and counts the searches it was sent."""

    def __init__(self, real: StyleStore) -> None:
        self.calls = 0
        self._real = real

    def search(self, query: str, *, limit: int = 3, min_similarity: float = 0.6) -> list[RetrievedStyle]:
        self.calls += 1
        return self._real.search(query, limit=limit, min_similarity=min_similarity)


class ImagesUnreadableStore(LocalBlobStore):
    """Object storage that stores images but cannot read them back (e.g. an S3 outage after the write)."""

    def get(self, key: str) -> bytes:
        if key.startswith("images/"):
            raise OSError("object storage read timed out")
        return super().get(key)
