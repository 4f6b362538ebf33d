"""Response bodies of the gateway's own resources (camelCase JSON)."""

from models.base import CamelModel


class BlobView(CamelModel):
    """A stored blob: its key and the URL it is served under."""

    key: str
    url: str
    content_type: str
    size: int
