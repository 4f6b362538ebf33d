"""FastAPI dependencies: the Temporal client, settings and blob store, held by the app's lifespan."""

from typing import Annotated

from fastapi import Depends, Request
from temporalio.client import Client

from models.settings import Settings
from stores.blob_store import LocalBlobStore


def _client(request: Request) -> Client:
    client: Client = request.app.state.temporal
    return client


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _blobs(request: Request) -> LocalBlobStore:
    blobs: LocalBlobStore = request.app.state.blobs
    return blobs


TemporalClient = Annotated[Client, Depends(_client)]
AppSettings = Annotated[Settings, Depends(_settings)]
BlobStore = Annotated[LocalBlobStore, Depends(_blobs)]
