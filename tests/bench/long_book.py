"""`python -m tests.bench.long_book`: the writing index on a long book (issue 28 item 4), timed, not a test.

Builds a project of 200 chapters x 5 000 characters (1 000 000 characters) plus a few characters, indexes it,
edits one chapter (a sentence no other chapter holds), then times the index's answer to the next retrieval,
which must see the edit, and a retrieval of the unchanged revision. Prints the times in seconds; the retrieval
activity's timeout is `workflows.policies`' 5 s. Runs on a temporary directory and the project's defaults
(`ProjectIndex.open`, the hashing embedder). Then moves the first chapter last (every chapter's position
changes) and times that update and a retrieval.
"""

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from models.writing.context import IndexDocument
from stores.writing_index import ProjectIndex
from tests.unit.writing.test_writing_index import FILLER as SENTENCES

EDIT = "林舟在码头的第七号仓库里找到了那只锈迹斑斑的铁皮箱。"


def chapter_text(number: int, characters: int) -> str:
    """About `characters` characters of filler, one paragraph per four sentences, varied by `number`."""
    sentences: list[str] = []
    length = 0
    while length < characters:
        sentence = SENTENCES[(number * 7 + len(sentences) * 5) % len(SENTENCES)]
        sentences.append(sentence + ("\n" if len(sentences) % 4 == 3 else ""))
        length += len(sentences[-1])
    return "".join(sentences)[:characters]


def book(chapters: int, characters: int, edited: int | None = None) -> list[IndexDocument]:
    documents = []
    for number in range(1, chapters + 1):
        text = chapter_text(number, characters)
        if number == edited:
            text = f"{text[: characters // 2]}\n{EDIT}\n{text[characters // 2 :]}"
        documents.append(
            IndexDocument(
                kind="chapter", ref_id=f"ch{number}", title=f"第{number}章", text=text, chapter_position=number
            )
        )
    documents.append(IndexDocument(kind="character", ref_id="linzhou", title="林舟", text="码头的搬运工，沉默寡言。"))
    return documents


def timed(label: str, action: Callable[[], object]) -> object:
    started = time.perf_counter()
    result = action()
    sys.stdout.write(f"{label}: {time.perf_counter() - started:.2f} s\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chapters", type=int, default=200)
    parser.add_argument("--characters", type=int, default=5000)
    arguments = parser.parse_args()
    original = book(arguments.chapters, arguments.characters)
    edited = book(arguments.chapters, arguments.characters, edited=arguments.chapters // 2)
    characters = sum(len(document.text) for document in original)
    sys.stdout.write(f"{characters} characters in {arguments.chapters} chapters\n")
    with tempfile.TemporaryDirectory() as directory:
        index = ProjectIndex.open(Path(directory))
        timed("build + first retrieval", lambda: index.search("proj_long", 1, lambda: original, "钟楼敲了七下"))
        timed("retrieval, unchanged", lambda: index.search("proj_long", 1, lambda: original, "说书人拍下醒木"))
        found = timed(
            "one chapter edited: update + retrieval", lambda: index.search("proj_long", 2, lambda: edited, EDIT)
        )
        timed("retrieval after the edit", lambda: index.search("proj_long", 2, lambda: edited, "铁皮箱"))
        reordered = [
            document.model_copy(update={"chapter_position": (document.chapter_position or 1) - 1 or len(edited) - 1})
            if document.kind == "chapter"
            else document
            for document in edited
        ]
        timed(
            "first chapter moved last: update + retrieval",
            lambda: index.search("proj_long", 3, lambda: reordered, EDIT),
        )
        timed("retrieval after the move", lambda: index.search("proj_long", 3, lambda: reordered, "铁皮箱"))
        assert isinstance(found, list) and found and EDIT in found[0].text, "the edit is not found"
        sys.stdout.write(f"the edit is found in {found[0].title}\n")


if __name__ == "__main__":
    main()
