"""The deployment files are valid and share no disk: `deploy/compose.yaml` against the Compose specification's
JSON schema (vendored by check-jsonschema), every manifest under `deploy/k8s/` against Kubernetes' own schemas
(kubernetes-validate, strict: an unknown field fails), and neither gives the gateway or the workers a volume another
process writes. No Docker engine or cluster runs here; this is what can be checked without one."""

import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate.utils as k8s
import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S_VERSION = "1.30.0"
APP_SERVICES = ("gateway", "worker")
SCALE_SETTINGS = {
    "BLOB_STORE": "s3",
    "VECTOR_STORE": "weaviate",
}
"""What makes the app keep nothing on its own disk that another process needs (README, "Beyond one machine")."""


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return loaded


def _manifests() -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.name, doc)
        for path in sorted((DEPLOY / "k8s").glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]


def _compose_schema() -> dict[str, Any]:
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    schema: dict[str, Any] = json.loads(vendor.joinpath("compose-spec.json").read_text())
    return schema


def test_the_compose_file_follows_the_compose_specification() -> None:
    errors = [error.message for error in jsonschema.Draft202012Validator(_compose_schema()).iter_errors(_compose())]
    assert errors == []


def test_the_compose_schema_check_would_catch_a_mistake() -> None:
    broken = _compose()
    broken["services"]["gateway"]["restart"] = ["always"]
    assert list(jsonschema.Draft202012Validator(_compose_schema()).iter_errors(broken))


def test_no_compose_volume_is_mounted_by_the_gateway_or_a_worker() -> None:
    services = _compose()["services"]
    for name in APP_SERVICES:
        assert "volumes" not in services[name], name
    environment = services["gateway"]["environment"]
    assert {key: environment[key] for key in SCALE_SETTINGS} == SCALE_SETTINGS
    assert environment["WRITING_DB_URL"].startswith("postgresql://")
    assert {"writing-db", "minio", "weaviate"} <= set(services)


@pytest.mark.parametrize(("file", "manifest"), _manifests(), ids=lambda value: str(value)[:40])
def test_each_kubernetes_manifest_follows_the_kubernetes_schema(file: str, manifest: dict[str, Any]) -> None:
    k8s.validate(manifest, K8S_VERSION, strict=True)


def test_the_kubernetes_schema_check_would_catch_a_mistake() -> None:
    deployment = next(doc for file, doc in _manifests() if file == "worker.yaml")
    deployment["spec"]["template"]["spec"]["containers"][0]["envFromm"] = []
    with pytest.raises(k8s.ValidationError):
        k8s.validate(deployment, K8S_VERSION, strict=True)


def test_no_kubernetes_pod_shares_a_volume() -> None:
    manifests = _manifests()
    assert all(doc["kind"] != "PersistentVolumeClaim" for _, doc in manifests)
    for _, doc in manifests:
        if doc["kind"] not in ("Deployment", "StatefulSet"):
            continue
        for volume in doc["spec"]["template"]["spec"].get("volumes", []):
            assert "persistentVolumeClaim" not in volume and "nfs" not in volume, doc["metadata"]["name"]
        for claim in doc["spec"].get("volumeClaimTemplates", []):
            assert claim["spec"]["accessModes"] == ["ReadWriteOnce"], doc["metadata"]["name"]
    config = next(doc for _, doc in manifests if doc["kind"] == "ConfigMap")["data"]
    assert {key: config[key] for key in SCALE_SETTINGS} == SCALE_SETTINGS
