"""A project's manuscript for the writer to take away (issue 28 item 6): its chapters in order, with their titles as
headings, as Markdown (`markdown`) or as an EPUB 3 book made with `ebooklib` (`epub`: one XHTML file per chapter,
a navigation document and an NCX table of contents, the language guessed from the text). Blocking work: call
these in a thread."""

import io
import re
from html import escape

from ebooklib import epub as ebook

from models.writing.projects import Chapter, Project

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_SAMPLE_CHARS = 20_000


def markdown(project: Project, chapters: list[Chapter]) -> str:
    """`# <project>`, then each chapter as `## <title>` and its text, in order."""
    parts = [f"# {project.name}"]
    parts += [f"## {chapter.title}\n\n{chapter.content.strip()}" for chapter in chapters]
    return "\n\n".join(parts) + "\n"


def epub(project: Project, chapters: list[Chapter]) -> bytes:
    """The chapters in order as an EPUB 3 book titled after the project."""
    language = language_of(project.name + "".join(chapter.content[:2_000] for chapter in chapters[:10]))
    book = ebook.EpubBook()
    book.set_identifier(f"urn:inkflow:{project.project_id}:{project.revision}")
    book.set_title(project.name)
    book.set_language(language)
    pages = []
    for number, chapter in enumerate(chapters, start=1):
        page = ebook.EpubHtml(title=chapter.title, file_name=f"chapter-{number:04d}.xhtml", lang=language)
        page.content = _xhtml(chapter)
        book.add_item(page)
        pages.append(page)
    book.toc = pages
    book.add_item(ebook.EpubNcx())
    book.add_item(ebook.EpubNav())
    book.spine = ["nav", *pages]
    out = io.BytesIO()
    ebook.write_epub(out, book)
    return out.getvalue()


def language_of(text: str) -> str:
    """`zh` when a fifth or more of the sample's letters are Chinese characters, else `en`."""
    sample = text[:_SAMPLE_CHARS]
    letters = len(_LETTER.findall(sample))
    return "zh" if letters and len(_CJK.findall(sample)) * 5 >= letters else "en"


def _xhtml(chapter: Chapter) -> str:
    paragraphs = (line.strip() for line in chapter.content.splitlines())
    body = "".join(f"<p>{escape(line)}</p>" for line in paragraphs if line)
    return f"<h1>{escape(chapter.title)}</h1>{body}"
