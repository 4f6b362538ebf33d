"""FastAPI dependencies: the Temporal client, settings, blob store, intake process, workflow registry and
launchers, all held by the app's lifespan in `app.state` (never module globals), the calling principal and the
blob URLs it is shown."""

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Header, Request
from starlette.requests import HTTPConnection
from temporalio.client import Client

from api.admission import Admission, RateLimiter
from api.blob_urls import BlobLinks
from api.bodies import before_body
from api.errors import ApiError
from api.intake import Intake
from api.key_throttle import FailedKeyThrottle
from api.launch import Launchers, PrepareContext
from api.principals import LOCAL_PRINCIPAL, KeyRing
from models.errors import ErrorCode
from models.settings import Settings
from stores.blob_store import BlobStore
from workflows.common.registration import Registry

T = TypeVar("T")


def _app_state(attribute: str, kind: type[T]) -> Callable[[Request], T]:
    """A dependency that returns `app.state.<attribute>` (a `kind`)."""

    def dependency(request: Request) -> T:
        value: T = getattr(request.app.state, attribute)
        return value

    dependency.__name__ = f"app_state_{attribute}"
    return dependency


_CHECKED_PRINCIPAL = "checked_principal"
"""Where a request's scope keeps its principal once its key has been checked."""
_COUNTED = "counted_against_rate"
"""Set in a request's scope once it has been counted against its principal's rate."""

TemporalClient = Annotated[Client, Depends(_app_state("temporal", Client))]
AppSettings = Annotated[Settings, Depends(_app_state("settings", Settings))]
Blobs = Annotated[BlobStore, Depends(_app_state("blobs", BlobStore))]
RequestIntake = Annotated[Intake, Depends(_app_state("intake", Intake))]
WorkflowRegistry = Annotated[Registry, Depends(_app_state("registry", Registry))]
RunLaunchers = Annotated[Launchers, Depends(_app_state("launchers", dict))]


@before_body
def calling_principal(request: Request) -> str:
    """The principal whose `Authorization: Bearer <key>` this is (401 without a known key, 429 from an address that
    sent too many wrong ones); `local` when the gateway has no keys configured. Checked once per request, before its
    body is read (`api.bodies`)."""
    checked: str | None = request.scope.get(_CHECKED_PRINCIPAL)
    if checked is None:
        scheme, _, key = request.headers.get("authorization", "").partition(" ")
        checked = keyed_principal(request, key.strip() if scheme.lower() == "bearer" else "")
        request.scope[_CHECKED_PRINCIPAL] = checked
    return checked


def keyed_principal(connection: HTTPConnection, key: str) -> str:
    """The principal whose key `key` is (401 `UNAUTHORIZED` for an empty or unknown one, counted against the
    client's address; 429 `TOO_MANY_FAILED_KEYS` once that address has sent too many); `local` when the gateway has
    no keys configured."""
    keys: KeyRing = connection.app.state.keys
    if not keys.required:
        return LOCAL_PRINCIPAL
    throttle: FailedKeyThrottle = connection.app.state.failed_keys
    address = connection.client.host if connection.client is not None else "-"
    throttle.check(address)
    principal = keys.principal(key) if key else None
    if principal is None:
        throttle.failed(address)
        message = "需要有效的 API key（Authorization: Bearer <key>）"
        raise ApiError(401, ErrorCode.UNAUTHORIZED, message, {"WWW-Authenticate": "Bearer"})
    return principal


Principal = Annotated[str, Depends(calling_principal)]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[\x21-\x7e]{1,255}$",
        description="Names this request: a retry with the same key gets the run the first one started.",
    ),
]
"""A request's `Idempotency-Key` (1 to 255 printable ASCII characters, else 422)."""


def principal_links(connection: HTTPConnection, principal: Principal) -> BlobLinks:
    """Blob URLs as the calling principal sees them (signed for it when the gateway has keys)."""
    settings: Settings = connection.app.state.settings
    state = connection.app.state
    return BlobLinks(settings.base_url, state.blob_secret, principal, state.blobs, settings.blob_url_ttl_seconds)


Links = Annotated[BlobLinks, Depends(principal_links)]


def prepare_context(request: Request, links: Links) -> PrepareContext:
    """What a launcher's `prepare` gets in the intake process for this request."""
    return PrepareContext(request.app.state.blobs, request.app.state.settings, links)


Preparation = Annotated[PrepareContext, Depends(prepare_context)]
RunAdmission = Annotated[Admission, Depends(_app_state("admission", Admission))]


@before_body
def rate_limited(request: Request) -> str:
    """The calling principal, counted against its request rate (429 RATE_LIMITED beyond it), once per request and
    before its body is read (`api.bodies`)."""
    principal = calling_principal(request)
    if not request.scope.get(_COUNTED):
        limiter: RateLimiter = request.app.state.rate_limiter
        limiter.check(principal)
        request.scope[_COUNTED] = True
    return principal
