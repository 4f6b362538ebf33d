"""FastAPI dependencies: the Temporal client, settings, blob store and workflow registry, held by the app's
lifespan (never module globals)."""

from typing import Annotated

from fastapi import Depends, Request
from temporalio.client import Client

from api.intake import Intake
from api.launch import Launchers
from models.settings import Settings
from stores.blob_store import LocalBlobStore
from workflows.common.registration import Registry


def _client(request: Request) -> Client:
    client: Client = request.app.state.temporal
    return client


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _blobs(request: Request) -> LocalBlobStore:
    blobs: LocalBlobStore = request.app.state.blobs
    return blobs


def _intake(request: Request) -> Intake:
    intake: Intake = request.app.state.intake
    return intake


def _registry(request: Request) -> Registry:
    registry: Registry = request.app.state.registry
    return registry


def _launchers(request: Request) -> Launchers:
    launchers: Launchers = request.app.state.launchers
    return launchers


TemporalClient = Annotated[Client, Depends(_client)]
AppSettings = Annotated[Settings, Depends(_settings)]
BlobStore = Annotated[LocalBlobStore, Depends(_blobs)]
RequestIntake = Annotated[Intake, Depends(_intake)]
WorkflowRegistry = Annotated[Registry, Depends(_registry)]
RunLaunchers = Annotated[Launchers, Depends(_launchers)]
