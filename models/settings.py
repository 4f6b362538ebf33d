"""The one `Settings` class for the gateway and worker processes (read from the environment and `.env`).

Workflows never read settings: whatever they need arrives in their input.
"""

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DASHSCOPE_IMAGE_MODELS = ("qwen-image", "qwen-image-plus", "qwen-image-max", "z-image-turbo")
"""The seed's `preferredModel`s (000 §2.1), all served by DashScope."""


class Settings(BaseSettings):
    """Every setting of the gateway and the worker, from the environment (or `.env`), by field name."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    temporal_host: str = "127.0.0.1"
    temporal_port: int = 7233
    temporal_ui_port: int = 8233
    temporal_namespace: str = "default"
    run_retention_days: int = Field(default=365, ge=1, le=36_500)
    """How long Temporal keeps a run after it closed, and with it what lives in the run (a content post and its
    versions, an app's rounds, an image session's turns, their events): after it, they are deleted. The embedded
    stack sets it on its namespace at every start (the dev server creates it with 24 h); a cluster sets it on its
    namespace once (`temporal operator namespace update --retention`, deploy/k8s/README.md)."""
    task_queue_prefix: str = ""
    """Each family's task queue is this prefix plus the family's name (`image`, ...): one worker per queue."""

    api_host: str = "127.0.0.1"
    api_port: int = 8000
    public_base_url: str | None = None
    """Base of the URLs the gateway issues for blobs; defaults to http://{api_host}:{api_port}."""

    data_dir: Path = Path("./data")

    blob_store: Literal["folder", "s3"] = "folder"
    """Where blobs live (`stores.blob_backends`): a folder under `DATA_DIR`, or an S3-compatible bucket (`S3_*`),
    which every gateway and worker host shares without a shared disk."""
    s3_bucket: str = ""
    """The bucket `BLOB_STORE=s3` writes to; the operator creates it."""
    s3_endpoint_url: str = ""
    """An S3-compatible server (MinIO, Ceph, moto: `http://` is allowed); empty: AWS S3 itself."""
    s3_region: str = "us-east-1"
    s3_access_key_id: SecretStr | None = None
    """With `S3_SECRET_ACCESS_KEY`; unset: the usual AWS credentials (`AWS_*` variables, the instance's role)."""
    s3_secret_access_key: SecretStr | None = None

    api_keys: SecretStr = SecretStr("")
    """`alice=sha256:<hex>,bob=sha256:<hex>` (or `name=key` for local use): each key's principal (`api.principals`).
    Empty: one principal, `local`, and the gateway listens on loopback only."""
    blob_url_secret: SecretStr = SecretStr("")
    """Signs the blob URLs shown to each principal (`api.blob_urls`); empty: a random one kept in `DATA_DIR`."""
    blob_url_ttl_seconds: int = Field(default=3600, ge=1, le=7 * 24 * 3600)
    """How long a signed blob URL works after the gateway issued it (at least three quarters of it: expiries are
    rounded down to a quarter of it, so URLs read close together are the same). A URL is issued on every read."""

    otel_exporter: Literal["none", "console", "otlp"] = "none"
    otel_endpoint: str | None = None
    """OTLP/HTTP endpoint, e.g. http://collector:4318; the exporter's own default when unset."""
    otel_service_name: str = "durable-agents"

    llm_provider: str | None = None
    """openai, anthropic, gemini, deepseek, qwen, ollama or openai-compatible; unset: the offline keyword rules."""
    llm_api_key: SecretStr | None = None
    """Overrides the provider's own key variable below."""
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_protocol: Literal["responses", "chat"] | None = None
    """OpenAI only: Responses (the default) or Chat Completions."""
    llm_timeout_seconds: float = 20.0
    """The longest wait for a streamed answer's first chunk and between two chunks (reasoning chunks count): a
    model silent that long has stalled. It does not cap a whole answer: a call's budget is its node's
    start-to-close timeout (`workflows.policies`), so a 90 s node may take 90 s; the nodes that declare a
    heartbeat timeout stream, and for them it is cut to that timeout less a second. Outside activities, the
    client's timeout per call."""
    llm_max_output_tokens: int | None = Field(default=None, ge=256)
    """The most output tokens the configured model accepts in one answer; unset: the provider's preset (16384;
    8192 for deepseek, qwen and openai-compatible). Each LLM node sends its own limit (`models.output_limits`:
    4096 for decisions and reviews, 8192 for chapters and posts, 16384 for an app's documents and files), capped
    at this: lower it for a model that refuses a larger `max_tokens`."""
    openai_api_key: SecretStr | None = None
    anthropic_api_key: SecretStr | None = None
    gemini_api_key: SecretStr | None = None
    deepseek_api_key: SecretStr | None = None
    dashscope_api_key: SecretStr | None = None

    dashscope_base_url: str = "https://dashscope-intl.aliyuncs.com"
    """DashScope's image API (international endpoint; in China `https://dashscope.aliyuncs.com`; the Qwen LLM's
    endpoint is `LLM_BASE_URL`). With `DASHSCOPE_API_KEY` set, the `preferredModel`s qwen-image, qwen-image-plus,
    qwen-image-max and z-image-turbo are generated there; without it every model renders locally."""
    image_provider_default: Literal["local", "dashscope", "openai"] = "local"
    """What renders a turn that names no `preferredModel`: the local renderer, DashScope's `qwen-image` (with
    `DASHSCOPE_API_KEY`) or OpenAI Images' `OPENAI_IMAGE_MODEL` (with `OPENAI_API_KEY`)."""
    openai_image_model: str = "gpt-image-1"
    openai_image_base_url: str = "https://api.openai.com/v1"
    allow_image_fallback: bool = True
    """Whether a turn whose image API has spent its quota falls back to the local renderer."""

    allow_external_images: bool = False
    """Whether `maskData.imageUrl` may name an image outside this gateway; fetched once per run, under the SSRF
    guard of `imaging.fetch`. Off: only URLs this gateway issued."""
    external_image_timeout_seconds: float = 4.0
    """The whole fetch of an external image (it runs in ValidateInput, whose timeout is 5 s)."""

    max_runs_in_flight: int = 50
    """Runs one gateway keeps open at once (seed 000 §8.2); more wait for a place (`api.admission`)."""
    max_runs_waiting: int = 100
    """Requests that wait for a place; beyond that 429 RUNS_BUSY."""
    max_runs_per_principal: int | None = Field(default=None, ge=1)
    """Places one principal may hold (and the same fraction of the line; beyond it 429 TOO_MANY_RUNS). Unset:
    half of `max_runs_in_flight` on a gateway with API keys, all of them on one that serves a single principal."""
    max_projects_per_principal: int = Field(default=100, ge=1)
    """Writing projects one principal may keep; past them a new one is 422 PROJECT_LIMIT_REACHED."""
    max_chapters_per_project: int = Field(default=300, ge=1)
    """Chapters a writing project may hold; past them a new one is 422 CHAPTER_LIMIT_REACHED (an export is built
    whole: 300 chapters of 100 000 characters is at most ~90 MB of text)."""
    gateway_max_connections: int = Field(default=1000, ge=1)
    """Connections and requests a gateway serves at once; past them uvicorn answers 503 (`api.slow_clients`)."""
    waiting_runs_per_principal: int = Field(default=20, ge=1)
    """Runs one principal may have waiting for its answer on a gateway; beyond them a new run is 429
    TOO_MANY_WAITING_RUNS (`api.admission`)."""
    rate_limit_per_minute: int = 1200
    """Requests one principal may send a minute (0: no limit); beyond that 429 RATE_LIMITED."""
    failed_keys_per_minute: int = 30
    """Wrong or missing API keys one client address may send a minute when keys are required (0: no limit); beyond
    that 429 TOO_MANY_FAILED_KEYS, a right key too, until the minute refills (`api.key_throttle`)."""

    run_deadline_seconds: float = 60.0
    session_idle_minutes: float = 30.0
    writing_run_deadline_seconds: float = 600.0
    """A writing run's active work: routing, preprocessing, agents, checks."""
    writing_input_timeout_hours: float = 24.0
    """How long a writing chain waits for the writer's choice before it ends with what it has."""
    writing_memory_turns: int = Field(default=20, ge=1, le=200)
    """The turns a writing conversation (`sessionId`) keeps; older ones are dropped as new ones come."""
    writing_memory_budget_tokens: int = Field(default=1500, ge=0, le=20_000)
    """The recent turns an agent (and the router) gets, in tokens (about one per Chinese character), newest first."""
    writing_db_url: SecretStr = SecretStr("")
    """Where the writers' projects and conversations live: empty, SQLite files under `DATA_DIR/writing` (one
    machine); `postgresql://user:password@host:port/database`, PostgreSQL (`stores.writing_db`), shared by the
    gateway and every worker. A secret: it may carry a password."""

    content_run_deadline_seconds: float = 1500.0
    """A content run's active work: the Supervisor's decisions, the agents and their tools."""
    content_input_timeout_hours: float = 24.0
    """How long a content run waits for the answer to a clarification before it ends with what it has."""
    content_max_iterations: int = 20
    """The Supervisor's decisions per run when the request names no `maxIterations` (`iterationCount`)."""
    content_max_clarifications: int = 2
    """Questions one content run may ask its user (`clarificationRounds`); beyond that the agents assume."""
    content_export_max_bytes: int = Field(default=64 * 1024 * 1024, ge=1)
    """The largest post download (`export.zip`: the text and every image), in bytes; a larger one is 413."""

    app_run_deadline_seconds: float = 3600.0
    """An app run's whole work: analysis, planning, the waves and the quality/repair rounds."""
    app_toolchain_checks: Literal["off", "auto", "on"] = "auto"
    """Whether the app builder's quality agent also runs `tsc --noEmit` and the build in the generated project:
    `auto` when `npm` is on the worker's PATH (dependencies come from the npm registry, cached under `DATA_DIR`),
    `on` to require it, `off` for the parsers and the import check alone."""
    app_max_rounds: int = 50
    """The longest chain of follow-up changes (`fromRun`): a follow-up of a run of this round is refused."""

    live_text_urls: str = ""
    """The gateways (base URLs, comma-separated) an agent posts its text to while the model writes it, for their
    readers to see at once (`content_live` events; `activities.common.live_text`); the `content` events record it
    in batches of `LIVE_BATCH_SECONDS`. Empty: no live text, and the `content` batches go every tenth of a second.
    `make run` and `make run-scaled` set it (and `LIVE_TEXT_SECRET`) for their own gateway unless it is set
    (`LIVE_TEXT_URLS=` turns live text off there). A reader on a gateway not listed sees the batches only."""
    live_text_secret: SecretStr = SecretStr("")
    """Shared by the workers and the gateways: a live piece without it is refused (403). Required with
    `LIVE_TEXT_URLS` on the worker; on a gateway, empty: it takes no live text."""

    worker_max_concurrent_activities: int = 100
    """Activities (and, separately, local activities) one worker process runs at once. A model call holds its slot
    while it waits on the model, so runs at once need about one each: with 32, 50 content runs at once (time scale 1)
    left 18 waiting for a slot, and their quick tool calls timed out on the queue. CPU-bound nodes do not take more
    than the worker has threads for (they have their own queue: `NodeOptions.cpu_bound`)."""
    worker_max_concurrent_workflow_tasks: int = 32
    worker_max_cached_workflows: int = 1000
    """Workflows kept in memory between their tasks (sticky cache): a cached one needs no replay."""
    worker_threads: int = Field(default=0, ge=0)
    """Threads for the blocking work activities hand off (`asyncio.to_thread`: renders, PNG encoding, pixel
    checks, file work); 0: one per core. More threads than cores only fight over the GIL and the caches."""
    stack_workers: int = 1
    """Worker processes `make run` starts (they share the task queues); `make run-scaled` starts at least 2."""
    stack_postgres_port: int = 55432
    """`make run-scaled`: the port of the PostgreSQL it starts (without `WRITING_DB_URL`)."""
    stack_s3_port: int = 59000
    """`make run-scaled`: the port of the S3 API server it starts (without `S3_ENDPOINT_URL`)."""

    vector_store: Literal["lancedb", "weaviate"] = "lancedb"
    """Where the style library's and the writers' projects' vectors live (`stores.vector_stores`): embedded LanceDB
    under `DATA_DIR`, or a Weaviate server (`WEAVIATE_URL`) that every gateway and worker shares."""
    weaviate_url: str | None = None
    """Weaviate's REST endpoint, e.g. http://weaviate:8080 (https: TLS for REST and gRPC alike)."""
    weaviate_grpc_port: int = Field(default=50051, ge=1, le=65535)
    """Weaviate's gRPC port, on the host of `WEAVIATE_URL`."""
    weaviate_api_key: SecretStr | None = None
    """Sent as Weaviate's API key when set (a server with authentication on)."""

    @field_validator("writing_db_url")
    @classmethod
    def _postgres_url(cls, url: SecretStr) -> SecretStr:
        value = url.get_secret_value()
        if value and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("WRITING_DB_URL must be empty (SQLite under DATA_DIR) or a postgresql:// URL")
        return url

    @property
    def hosted_image_models(self) -> list[str]:
        """The `preferredModel`s a configured image API generates."""
        return list(DASHSCOPE_IMAGE_MODELS) if self.dashscope_api_key is not None else []

    @property
    def direct_image_models(self) -> list[str]:
        """Models of a synchronous image API (one call returns the image): OpenAI Images, when it is the default."""
        configured = self.image_provider_default == "openai" and self.openai_api_key is not None
        return [self.openai_image_model] if configured else []

    @property
    def default_image_model(self) -> str | None:
        """The hosted model a turn without `preferredModel` uses; None: the local renderer."""
        if self.direct_image_models:
            return self.direct_image_models[0]
        return "qwen-image" if self.image_provider_default == "dashscope" and self.hosted_image_models else None

    def task_queue(self, family: str) -> str:
        return f"{self.task_queue_prefix}{family}"

    @property
    def temporal_address(self) -> str:
        return f"{self.temporal_host}:{self.temporal_port}"

    @cached_property
    def base_url(self) -> str:
        return (self.public_base_url or f"http://{self.api_host}:{self.api_port}").rstrip("/")

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    @property
    def lancedb_dir(self) -> Path:
        return self.data_dir / "lancedb"

    @property
    def writing_index_dir(self) -> Path:
        """The writers' projects' search index: one LanceDB table per project (`stores.writing_index`)."""
        return self.lancedb_dir / "writing"
