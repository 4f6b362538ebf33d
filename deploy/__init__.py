"""Deployment: the embedded stack runner, container image, compose and Kubernetes manifests.

`deploy/stack.py` runs everything on one machine (`make run`); `Dockerfile`, `compose.yaml` and `k8s/` run the
worker and the gateway against a Temporal cluster.
"""
