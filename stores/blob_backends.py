"""Which blob store a process uses: `open_blob_store(settings)`, called once at start by the gateway and the
worker. `BLOB_STORE=folder` (the default) is the folder under `DATA_DIR/blobs`; `BLOB_STORE=s3` an S3-compatible
bucket (`S3_BUCKET`, `S3_ENDPOINT_URL`, `S3_REGION`, `S3_ACCESS_KEY_ID`/`S3_SECRET_ACCESS_KEY`), checked with a
write before the process serves anything: a missing bucket or refused credentials stop the start with a message
that names the setting, not the first upload with a stack trace.
"""

from typing import TYPE_CHECKING

from obstore.exceptions import BaseError, PermissionDeniedError, UnauthenticatedError

from models.settings import Settings
from stores.blob_store import BlobStore, LocalBlobStore
from stores.s3_blob_store import S3BlobStore

if TYPE_CHECKING:
    from obstore.store import S3Config


class BlobStoreConfigError(ValueError):
    """The configured blob store cannot be used; the message names the setting to fix."""


def open_blob_store(settings: Settings) -> BlobStore:
    """The blob store `BLOB_STORE` names, ready to write (blocking: the S3 store is checked with a write)."""
    if settings.blob_store == "folder":
        return LocalBlobStore(settings.blob_dir)
    store = S3BlobStore(s3_config(settings))
    where = f"bucket {settings.s3_bucket!r} at {settings.s3_endpoint_url or 'AWS S3'}"
    try:
        store.check()
    except FileNotFoundError as err:  # NoSuchBucket
        raise BlobStoreConfigError(f"S3_BUCKET: there is no {where} (the operator creates it)") from err
    except (PermissionDeniedError, UnauthenticatedError) as err:
        raise BlobStoreConfigError(
            f"S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY: the {where} refused these credentials ({_first_line(err)})"
        ) from err
    except (BaseError, OSError) as err:
        raise BlobStoreConfigError(
            f"S3_ENDPOINT_URL/S3_BUCKET: cannot write to the {where}: {_first_line(err)}"
        ) from err
    return store


def s3_config(settings: Settings) -> "S3Config":
    """obstore's configuration for the settings' bucket; credentials only when both keys are set."""
    if not settings.s3_bucket:
        raise BlobStoreConfigError("S3_BUCKET: BLOB_STORE=s3 needs the bucket's name")
    config: S3Config = {"bucket": settings.s3_bucket, "region": settings.s3_region}
    if settings.s3_endpoint_url:
        config["endpoint"] = settings.s3_endpoint_url
    key_id, secret = settings.s3_access_key_id, settings.s3_secret_access_key
    if (key_id is None) != (secret is None):
        raise BlobStoreConfigError("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both, or neither")
    if key_id is not None and secret is not None:
        config["access_key_id"] = key_id.get_secret_value()
        config["secret_access_key"] = secret.get_secret_value()
    return config


def _first_line(err: Exception) -> str:
    """The error's first line (obstore appends a debug dump of the request; no credentials are in either)."""
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
