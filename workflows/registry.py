"""Every family's registered workflows: what the worker runs and the gateway starts, lists and describes."""

from workflows.app_builder.registration import APP_BUILDER
from workflows.common.registration import Registry
from workflows.content.registration import CONTENT_SUPERVISOR
from workflows.image.registration import IMAGE_AGENT, IMAGE_SESSION
from workflows.writing.registration import RELATIONSHIP_UPDATE, WRITING

REGISTRY = Registry([IMAGE_AGENT, IMAGE_SESSION, WRITING, RELATIONSHIP_UPDATE, CONTENT_SUPERVISOR, APP_BUILDER])
