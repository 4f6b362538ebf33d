"""A finished post as a creator takes it away (issue 29 item 4): the copy-ready text for its platform (title, the
writer's body as the platform shows it, the hashtags in the platform's form) and the Markdown (title, sections in
layout order, each image as a relative link `images/<n>.<ext>` with alt text: 封面 and the title for the cover, else
the heading of the section before it, or after it; then the closing call to action). Pure: the gateway builds both from
the run's state at the time of the request, so an export always holds the post's latest version; the zip of both
and the images is `stores.content_export`."""

from models.blobs import key_of
from models.content.artifacts import HASHTAG_PLATFORMS
from models.content.post import assemble_post
from models.content.state import ContentState

IMAGE_FOLDER = "images"
ALT_CHARS = 80


class PostExport:
    """What the exports of one post are made of: its title, copy-ready text, Markdown and images (zip name → key)."""

    def __init__(self, state: ContentState) -> None:
        post = assemble_post(state)
        content = state.generated_content
        self.platform = state.creative_brief.platform if state.creative_brief else None
        self.title = post.title
        self.body = content.body.strip() if content else ""
        self.hashtags = [tag.strip("#＃ ") for tag in post.hashtags if tag.strip("#＃ ")]
        self.images: dict[str, str] = {}
        lines = [f"# {self.title}", ""]
        lines += [post.opening, ""] if post.opening else []
        for index, section in enumerate(post.sections):
            if section.kind == "text":
                lines += [f"## {section.heading}", ""] if section.heading else []
                lines += [section.text or "", ""]
                continue
            key = key_of(section.image_url or "")
            if key is None:
                continue
            name = f"{IMAGE_FOLDER}/{len(self.images) + 1}.{key.rsplit('.', 1)[-1]}"
            self.images[name] = key
            near = [s.heading for s in post.sections[:index][::-1] + post.sections[index + 1 :] if s.heading]
            what = near[0] if near else self.title
            alt = f"封面：{self.title}" if section.slot == "cover" else f"配图 {len(self.images)}：{what}"
            lines += [f"![{_escaped(alt[:ALT_CHARS])}]({name})", ""]
        lines += [post.closing, ""] if post.closing else []
        if self.tags():
            lines += [self.tags(), ""]
        self.markdown = "\n".join(lines)

    def tags(self) -> str:
        """The hashtags as the platform writes them: `#话题#` on Weibo, `#话题` on Xiaohongshu and Douyin, none on
        WeChat (公众号 has no hashtags)."""
        if self.platform not in HASHTAG_PLATFORMS:
            return ""
        form = "#{}#" if self.platform == "weibo" else "#{}"
        return " ".join(form.format(tag) for tag in self.hashtags)

    def copy_text(self) -> str:
        """The post ready to paste into the platform: title, body, hashtags, separated by blank lines."""
        return "\n\n".join(part for part in (self.title, self.body, self.tags()) if part) + "\n"


def _escaped(alt: str) -> str:
    return alt.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]").replace("\n", " ")
