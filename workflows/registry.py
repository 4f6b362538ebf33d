"""Every family's registered workflows: what the worker runs and the gateway starts, lists and describes."""

from workflows.common.registration import Registry
from workflows.image.registration import IMAGE_AGENT, IMAGE_SESSION

REGISTRY = Registry([IMAGE_AGENT, IMAGE_SESSION])
