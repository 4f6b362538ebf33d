"""The echo family's one tool: how long a text is, in characters and words (each CJK character counts as a word)."""

import re

from models.echo import nodes
from models.echo.nodes import CountRequest
from models.echo.runs import WordCount

WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W\u3400-\u9fff\uf900-\ufaff]+")


class EchoTools:
    """The tools an echo run may call (one, here): each is one activity."""

    @nodes.COUNT_WORDS.defn
    async def count_words(self, request: CountRequest) -> WordCount:
        return WordCount(characters=len(request.text), words=len(WORD.findall(request.text)))
