"""What every family's activity factory builds its activities over: `WorkerDependencies`.

The worker makes one from its settings and passes it to each family's `build_activities` (named by its `Family`);
tests make one with doubles for the outside services (an image API, the LLM provider). Shared parts are built on
first use and then shared, so two families that render images or read blobs use the same provider and store.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import TypedDict

import httpx

from activities.common.hosted_providers import HostedImageProvider, HostedProviders
from imaging.fetch import GuardedImageFetcher
from imaging.image_provider import ImageProvider, LocalImageProvider
from imaging.providers.dashscope import DashScopeProvider
from imaging.providers.openai_images import OpenAIImagesProvider
from llm import LLMClient
from models.settings import Settings
from stores.blob_backends import open_blob_store
from stores.blob_refs import MAX_IMAGE_BYTES, BlobResolver
from stores.blob_store import BlobStore
from stores.embedder import HashingEmbedder
from stores.style_library import StyleEntry, load_style_library
from stores.style_store import StyleStore
from stores.vector_stores import open_project_index, open_style_store
from stores.writing_passages import ProjectSearch


class Overrides(TypedDict, total=False):
    """Services a test gives instead of the embedded ones (doubles for what is outside: an image API, the model)."""

    http: httpx.AsyncClient | None
    llm: LLMClient | None
    blobs: BlobStore | None
    renderer: ImageProvider | None
    style_store: StyleStore | None
    project_index: ProjectSearch | None
    embedder: HashingEmbedder | None


@dataclass
class WorkerDependencies:
    """The worker's shared services: the embedded ones under `DATA_DIR` (blobs: the store `BLOB_STORE` names)
    unless `given`. Without `llm` the agents are the offline rule-based ones; without `embedder` the writing family
    ranks style samples offline."""

    settings: Settings
    given: Overrides = field(default_factory=lambda: Overrides())

    @property
    def http(self) -> httpx.AsyncClient | None:
        return self.given.get("http")

    @property
    def llm(self) -> LLMClient | None:
        return self.given.get("llm")

    @property
    def embedder(self) -> HashingEmbedder | None:
        return self.given.get("embedder")

    @cached_property
    def blobs(self) -> BlobStore:
        given = self.given.get("blobs")
        return given if given is not None else open_blob_store(self.settings)

    @cached_property
    def resolver(self) -> BlobResolver:
        return BlobResolver(self.blobs)

    @cached_property
    def image_fetcher(self) -> GuardedImageFetcher | None:
        """Fetches a user's external image URL under the SSRF guard (`ALLOW_EXTERNAL_IMAGES`); None: refused."""
        settings = self.settings
        if not settings.allow_external_images:
            return None
        timeout = settings.external_image_timeout_seconds
        return GuardedImageFetcher(
            self._http("ALLOW_EXTERNAL_IMAGES"), max_bytes=MAX_IMAGE_BYTES, timeout_seconds=timeout
        )

    @cached_property
    def image_provider(self) -> ImageProvider:
        """What renders an image no hosted model is asked for: the local renderer unless a test gives another."""
        return self.given.get("renderer") or LocalImageProvider()

    @cached_property
    def hosted_images(self) -> HostedProviders:
        """The task-based image APIs this worker may call (`DASHSCOPE_API_KEY`): none, and every model renders
        locally, without a key."""
        providers: list[HostedImageProvider] = []
        settings = self.settings
        if settings.dashscope_api_key is not None:
            key = settings.dashscope_api_key.get_secret_value()
            http = self._http("DASHSCOPE_API_KEY")
            providers.append(DashScopeProvider(http, api_key=key, base_url=settings.dashscope_base_url))
        return HostedProviders(providers)

    @cached_property
    def direct_images(self) -> ImageProvider | None:
        """OpenAI Images, when it renders the turns that name no model (`IMAGE_PROVIDER_DEFAULT=openai`)."""
        settings = self.settings
        if not settings.direct_image_models or settings.openai_api_key is None:
            return None
        return OpenAIImagesProvider(
            self._http("IMAGE_PROVIDER_DEFAULT=openai"),
            api_key=settings.openai_api_key.get_secret_value(),
            base_url=settings.openai_image_base_url,
            model=settings.openai_image_model,
        )

    @cached_property
    def style_library(self) -> list[StyleEntry]:
        return load_style_library()

    @cached_property
    def style_store(self) -> StyleStore:
        return self.given.get("style_store") or open_style_store(self.settings, self.style_library)

    @cached_property
    def project_index(self) -> ProjectSearch:
        """The writing family's search over the writers' projects (`VECTOR_STORE`: embedded LanceDB under `DATA_DIR`,
        or Weaviate)."""
        return self.given.get("project_index") or open_project_index(self.settings)

    def _http(self, needed_by: str) -> httpx.AsyncClient:
        if self.http is None:
            raise ValueError(f"{needed_by} needs the worker's HTTP client")
        return self.http
