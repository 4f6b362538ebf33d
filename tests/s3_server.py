"""A real S3 API server on loopback for tests (moto's server mode, from PyPI), as a process of its own: the blob
contract tests, the gateway over S3 and the separate-hosts test use it, and outside pytest
`python -m tests.s3_server` serves one until Ctrl-C (its URL and bucket printed, with the settings to use).

`start_s3_server()` starts one on a free port and returns its URL and a function that stops it; `create_bucket`
makes a bucket there (the operator's job in production); `s3_settings` are the `Settings` fields (env variables:
upper case) that point `BLOB_STORE=s3` at it. moto accepts any credentials, but tests always give these explicit
ones, so no client looks for the AWS environment or asks an instance-metadata endpoint.
"""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import httpx

from deploy.scaled import create_bucket
from tests.stack_process import free_port

__all__ = ["create_bucket", "s3_settings", "start_s3_server"]

ACCESS_KEY_ID = "test-key"
SECRET_ACCESS_KEY = "test-secret"
REGION = "us-east-1"
START_SECONDS = 30.0


def start_s3_server(*, refusing_credentials: bool = False) -> tuple[str, Callable[[], None]]:
    """An S3 server on 127.0.0.1 and a free port, as its own process: its endpoint URL and a function that stops it
    (idempotent). Raises RuntimeError if it does not answer within `START_SECONDS`. `refusing_credentials`: after
    its first request (creating the bucket) it checks every request against its IAM users, of which it has none,
    and refuses it (403), as S3 refuses a wrong key."""
    port = free_port()
    auth = {"INITIAL_NO_AUTH_ACTION_COUNT": "1"} if refusing_credentials else {}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env=os.environ | auth,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # it logs every request
    )
    endpoint = f"http://127.0.0.1:{port}"

    def stop() -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    deadline = time.monotonic() + START_SECONDS
    while not _answers(endpoint):
        if process.poll() is not None or time.monotonic() > deadline:
            stop()
            raise RuntimeError(f"the S3 server (moto) did not start on {endpoint}")
        time.sleep(0.1)
    return endpoint, stop


def s3_settings(endpoint: str, bucket: str) -> dict[str, str]:
    """The settings fields that store blobs in `bucket` at `endpoint` (as env variables: the names upper case)."""
    return {
        "blob_store": "s3",
        "s3_bucket": bucket,
        "s3_endpoint_url": endpoint,
        "s3_region": REGION,
        "s3_access_key_id": ACCESS_KEY_ID,
        "s3_secret_access_key": SECRET_ACCESS_KEY,
    }


def _answers(endpoint: str) -> bool:
    try:
        httpx.get(f"{endpoint}/moto-api/", timeout=1)
    except httpx.TransportError:
        return False
    return True


if __name__ == "__main__":
    url, stop_server = start_s3_server()
    create_bucket(url, "blobs")
    settings = " ".join(f"{name.upper()}={value}" for name, value in s3_settings(url, "blobs").items())
    sys.stdout.write(f"S3 server on {url}, bucket 'blobs'; {settings}\nCtrl-C stops it\n")
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        stop_server()
