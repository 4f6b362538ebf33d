"""A post's zip download (issue 29 item 4): under one folder named after the run, `post.md` (the Markdown, its
images as relative links), `post.txt` (the copy-ready text) and `images/<n>.<ext>` from the blob store. The images'
sizes are added up before any is read, so a post over the cap is refused without loading it. Blocking: call it in
a thread."""

from models.content.export import PostExport
from stores.blob_store import BlobStore
from stores.zip_archive import zip_bytes


class ExportTooLargeError(ValueError):
    """The post's text and images together are over the export cap."""

    def __init__(self, size: int, cap: int) -> None:
        super().__init__(f"the export would hold {size} bytes, over the cap of {cap}")
        self.size = size
        self.cap = cap


def post_zip(blobs: BlobStore, export: PostExport, root: str, cap: int) -> bytes:
    """The post's zip (see the module); raises `ExportTooLargeError` when its files add up to more than `cap`
    bytes, `BlobNotFoundError` when an image is gone."""
    texts = {"post.md": export.markdown.encode(), "post.txt": export.copy_text().encode()}
    size = sum(len(data) for data in texts.values()) + sum(blobs.size(key) for key in export.images.values())
    if size > cap:
        raise ExportTooLargeError(size, cap)
    images = ((name, blobs.get(key)) for name, key in export.images.items())
    return zip_bytes((f"{root}/{name}", data) for name, data in [*texts.items(), *images])
