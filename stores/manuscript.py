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
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""What XML 1.0 cannot hold (C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF), which a title or a
chapter may: each becomes U+FFFD in the book, so the reader sees that something was there."""


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
    book.set_title(_xml_text(project.name))
    book.set_language(language)
    pages = []
    for number, chapter in enumerate(chapters, start=1):
        page = ebook.EpubHtml(title=_xml_text(chapter.title), file_name=f"chapter-{number:04d}.xhtml", lang=language)
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
    paragraphs = (line.strip() for line in _xml_text(chapter.content).splitlines())
    body = "".join(f"<p>{escape(line)}</p>" for line in paragraphs if line)
    return f"<h1>{escape(_xml_text(chapter.title))}</h1>{body}"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
