"""THE list of families (ARCHITECTURE rule 14): the worker serves, the gateway mounts and starts, and the console
shows exactly these. Adding a family is one line here and its own folders (`docs/adding-a-family.md`)."""

from workflows.app_builder.family import APP_BUILDER_FAMILY
from workflows.common.family import Family
from workflows.common.registration import Registry
from workflows.content.family import CONTENT
from workflows.echo.family import ECHO
from workflows.image.family import IMAGE
from workflows.writing.family import WRITING_FAMILY

FAMILIES: tuple[Family, ...] = (IMAGE, WRITING_FAMILY, CONTENT, APP_BUILDER_FAMILY, ECHO)

REGISTRY = Registry([entry for family in FAMILIES for entry in family.workflows])
"""Every family's registered workflows: what the worker runs and the gateway starts, lists and describes."""
