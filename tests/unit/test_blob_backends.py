"""Choosing the blob store by settings (`stores.blob_backends`): the folder by default, S3 with `BLOB_STORE=s3`, and
a configuration S3 refuses stops the start with a message that names the setting (and never shows a secret): a
missing bucket, no bucket name, half a key pair, an unreachable endpoint, credentials the server refuses."""

import time
from pathlib import Path
from typing import Any

import pytest

from models.settings import Settings
from stores.blob_backends import BlobStoreConfigError, open_blob_store, s3_config
from stores.blob_store import LocalBlobStore
from stores.s3_blob_store import S3BlobStore
from tests.s3_server import SECRET_ACCESS_KEY, create_bucket, s3_settings, start_s3_server
from tests.stack_process import free_port


def s3(fields: dict[str, Any], **changes: Any) -> Settings:
    return Settings(_env_file=None, **(fields | changes))


def test_the_default_is_the_folder_under_the_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, _env_file=None)
    store = open_blob_store(settings)
    assert settings.blob_store == "folder"
    assert isinstance(store, LocalBlobStore)
    key = store.put(b"x", kind="masks", ext="png")
    assert (settings.blob_dir / key).read_bytes() == b"x"


def test_the_settings_are_read_from_their_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "BLOB_STORE": "s3",
        "S3_BUCKET": "media",
        "S3_ENDPOINT_URL": "http://127.0.0.1:9000",
        "S3_REGION": "eu-west-1",
        "S3_ACCESS_KEY_ID": "id",
        "S3_SECRET_ACCESS_KEY": "secret",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = s3_config(Settings(_env_file=None))
    assert config == {
        "bucket": "media",
        "region": "eu-west-1",
        "endpoint": "http://127.0.0.1:9000",
        "access_key_id": "id",
        "secret_access_key": "secret",
    }


def test_without_keys_the_aws_environment_provides_the_credentials(s3_blob_settings: dict[str, str]) -> None:
    settings = s3(s3_blob_settings, s3_access_key_id=None, s3_secret_access_key=None, s3_endpoint_url="")
    assert s3_config(settings) == {"bucket": s3_blob_settings["s3_bucket"], "region": "us-east-1"}


def test_s3_opens_a_bucket_that_takes_writes(s3_blob_settings: dict[str, str]) -> None:
    store = open_blob_store(s3(s3_blob_settings))
    assert isinstance(store, S3BlobStore) and store.bucket == s3_blob_settings["s3_bucket"]


def test_a_missing_bucket_names_s3_bucket(s3_blob_settings: dict[str, str]) -> None:
    with pytest.raises(BlobStoreConfigError, match=r"^S3_BUCKET: there is no bucket 'not-created'") as caught:
        open_blob_store(s3(s3_blob_settings, s3_bucket="not-created"))
    assert s3_blob_settings["s3_secret_access_key"] not in str(caught.value)


def test_s3_without_a_bucket_name_is_refused(s3_blob_settings: dict[str, str]) -> None:
    with pytest.raises(BlobStoreConfigError, match=r"^S3_BUCKET: BLOB_STORE=s3 needs"):
        open_blob_store(s3(s3_blob_settings, s3_bucket=""))


def test_half_a_key_pair_is_refused(s3_blob_settings: dict[str, str]) -> None:
    with pytest.raises(BlobStoreConfigError, match="S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY"):
        open_blob_store(s3(s3_blob_settings, s3_secret_access_key=None))


def test_an_unreachable_endpoint_names_s3_endpoint_url_at_once(s3_blob_settings: dict[str, str]) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(BlobStoreConfigError, match=r"^S3_ENDPOINT_URL/S3_BUCKET: cannot write") as caught:
        open_blob_store(s3(s3_blob_settings, s3_endpoint_url=nowhere))
    assert time.monotonic() - started < 3  # the start check does not retry
    assert s3_blob_settings["s3_secret_access_key"] not in str(caught.value)


def test_a_store_whose_server_is_gone_is_not_writable(s3_blob_settings: dict[str, str]) -> None:
    settings = s3(s3_blob_settings, s3_endpoint_url=f"http://127.0.0.1:{free_port()}")
    assert not S3BlobStore(s3_config(settings)).writable()


def test_refused_credentials_name_the_key_settings() -> None:
    endpoint, stop = start_s3_server(refusing_credentials=True)
    try:
        create_bucket(endpoint, "blobs")
        settings = s3(s3_settings(endpoint, "blobs"))
        with pytest.raises(BlobStoreConfigError, match=r"^S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY: .* refused") as caught:
            open_blob_store(settings)
        assert SECRET_ACCESS_KEY not in str(caught.value)
    finally:
        stop()
