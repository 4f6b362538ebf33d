"""What every offline agent grounds its answer in (`Grounding`): the request, the project's chapters and the
context the caller found (characters and their states, passages, style samples, archetypes, plot loops), the
chain so far and the active skills; plus the helpers the agents share: stable choices (a hash
of the request, never randomness or the clock), place names and the request's topic.
"""

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from activities.writing.consistency import action_span
from activities.writing.story_facts import DECEASED, name_occurrences, sentence_bounds, split_sentences
from models.writing.agents import AgentRequest, AgentResult, BrainstormOption, ChainStepOutput
from models.writing.context import CharacterState, Passage, PlotLoopState, PreprocessingContext
from models.writing.language import written_in_english
from models.writing.projects import Chapter

T = TypeVar("T")

_NOT_IN_PLACE = "的了在进出到去来从往向于和与是着过把被这那个座片一上下里中入回满全整半开离走跑经抵达住守攻打返至由对为"
"""Words that end a place name's first part: 走进青石城 is 青石城, 下山 is no place."""
_PLACE = re.compile(
    rf"(?:(?![{_NOT_IN_PLACE}])[\u4e00-\u9fff]){{1,3}}(?:城|山|村|府|镇|谷|岛|宗|寺|阁|港|湾|街)"
    rf"|(?:(?![{_NOT_IN_PLACE}])[\u4e00-\u9fff]){{0,3}}"
    r"(?:码头|警局|车站|医院|学校|酒店|旅馆|客栈|茶馆|仓库|公寓|广场|公园|大厦|档案室|渡口|驿站)"
)
_ENGLISH_PLACE = re.compile(
    r"\b(?:in|at|to|from|near|into|toward|towards)\s+(?:the\s+)?([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)"
)
_TOPIC_NOISE = re.compile(
    r"^(?:请|帮我|帮忙|麻烦|给我|能不能|可以|你能|我想|我要|please|can you|could you|help me|i want to|i'd like to)\s*"
    r"|(?:吧|呢|吗|。|！|？|\.|!|\?)+$",
    re.IGNORECASE,
)


def stable_number(*parts: str) -> int:
    """A number that depends only on `parts`: the same request always makes the same choices."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def place_names(text: str) -> list[str]:
    """Place-like words in `text` (青石城, 北山, 落霞村, 雾港, 码头, 警局; in English, a capitalised name after
    in/at/to: "at Harrow Dock"), in order of first appearance."""
    found = [m.group() for m in _PLACE.finditer(text)] + [m.group(1) for m in _ENGLISH_PLACE.finditer(text)]
    return list(dict.fromkeys(found))


def request_topic(text: str, limit: int = 30) -> str:
    """The request without its politeness and end punctuation, at most `limit` characters."""
    topic = text.strip()
    for _ in range(3):
        topic = _TOPIC_NOISE.sub("", topic).strip()
    topic = topic or text.strip()
    return topic if len(topic) <= limit else topic[:limit] + "…"


def without_acting(text: str, names: Sequence[str]) -> str:
    """`text` without the sentences in which one of `names` speaks or acts: what the offline agents may quote
    when those characters are dead."""
    cut = [
        sentence_bounds(text, o.start, o.end) for o in name_occurrences(text, names) if action_span(text, o) is not None
    ]
    kept, position = [], 0
    for start, end in sorted(cut):
        kept.append(text[position:start])
        position = max(position, min(len(text), end + 1))
    kept.append(text[position:])
    return "".join(kept).strip()


@dataclass(frozen=True)
class Grounding:
    """One request and everything an offline agent may ground its answer in."""

    request: AgentRequest
    chapters: list[Chapter]
    context: PreprocessingContext

    @classmethod
    def of(cls, request: AgentRequest, chapters: list[Chapter]) -> "Grounding":
        context = request.metadata.preprocessing_context or PreprocessingContext()
        return cls(request, sorted(chapters, key=lambda c: c.position), context)

    def answer(self, text: str, **structured: object) -> AgentResult:
        """The agent's result: offline, its context's source, its text and structured output."""
        has_context = self.request.metadata.preprocessing_context is not None
        return AgentResult.model_validate(
            {
                "agent": self.request.agent,
                "text": text,
                "offline": True,
                "context_source": "preprocessing" if has_context else "none",
                **structured,
            }
        )

    # choices

    def pick(self, options: Sequence[T], salt: str) -> T:
        """One of `options`, chosen by the request's words (and `salt`, so that different choices differ).

        Not by the project's id: the same request gets the same placeholder, in any project and on every run.
        """
        request = self.request
        return options[stable_number(request.agent, request.text, salt) % len(options)]

    @property
    def english(self) -> bool:
        """True when the writer wrote in English (Latin letters, no Chinese)."""
        return written_in_english(self.request.text)

    @property
    def topic(self) -> str:
        return request_topic(self.request.text)

    # characters

    @property
    def characters(self) -> list[CharacterState]:
        return self.context.characters

    @property
    def dead_names(self) -> list[str]:
        return [c.name for c in self.characters if c.status == DECEASED]

    def named(self) -> list[CharacterState]:
        """The known characters the request names (in its text or its quoted entities), in order of appearance."""
        quoted = " ".join(e.text for e in self.request.intent.entities if e.kind != "chapter")
        found = name_occurrences(f"{self.request.text} {quoted}", [c.name for c in self.characters])
        order = list(dict.fromkeys(o.name for o in found))
        return sorted((c for c in self.characters if c.name in order), key=lambda c: order.index(c.name))

    def cast(self, limit: int) -> list[CharacterState]:
        """Who can act on stage: the living characters the request names, else the most mentioned living ones."""
        alive = [c for c in self.characters if c.status != DECEASED]
        named = [c for c in self.named() if c.status != DECEASED]
        ranked = sorted(alive, key=lambda c: (-c.mentions, self.characters.index(c)))
        return (named or ranked)[:limit]

    def quoted_names(self) -> list[str]:
        """Names the request quotes (「」, “”) that are no known character."""
        known = {c.name for c in self.characters}
        return [e.text for e in self.request.intent.entities if e.kind != "chapter" and e.text not in known]

    # the project

    def requested_chapters(self) -> list[int]:
        """The chapter numbers the request names (第三章, chapter 4)."""
        return [int(e.text) for e in self.request.intent.entities if e.kind == "chapter" and e.text.isdigit()]

    def chapter_passages(self) -> list[Passage]:
        return [p for p in self.context.passages if p.kind == "chapter"]

    def latest_passage(self) -> Passage | None:
        """The retrieved chapter passage furthest into the story."""
        passages = [p for p in self.chapter_passages() if p.chapter_position is not None]
        return max(passages, key=lambda p: (p.chapter_position or 0, p.start), default=None)

    def last_chapter_position(self) -> int | None:
        """The furthest chapter the context (passages, characters' last appearances) or the chapters show."""
        positions = [p.chapter_position for p in self.context.passages if p.chapter_position is not None]
        positions += [c.last_seen_chapter for c in self.characters if c.last_seen_chapter is not None]
        positions += [c.position for c in self.chapters]
        return max(positions, default=None)

    def open_loops(self) -> list[PlotLoopState]:
        return [loop for loop in self.context.plot_loops if loop.status == "open"]

    def places(self) -> list[str]:
        """The project's own place names: from its world notes (as retrieved), its characters' descriptions, the
        other passages, then the chapters."""
        notes = [f"{p.title}\n{p.text}" for p in self.context.passages if p.kind == "world_note"]
        others = [p.text for p in self.context.passages if p.kind != "world_note"]
        texts = notes + [c.description for c in self.characters] + others + [c.content for c in self.chapters]
        return list(dict.fromkeys(place for text in texts for place in place_names(text)))

    def source_titles(self, limit: int = 3) -> list[str]:
        """What the answer drew on, as the writer knows it: 第2章《夜雨》, 设定《北山》."""
        titles = []
        for passage in self.context.passages:
            if passage.chapter_position is not None:
                titles.append(f"第{passage.chapter_position}章《{passage.title}》")
            else:
                titles.append(f"《{passage.title}》")
        return list(dict.fromkeys(titles))[:limit]

    def closing_sentence(self, text: str) -> str:
        """The last sentence of `text` in which no dead character speaks or acts ('' when there is none)."""
        sentences = split_sentences(without_acting(text, self.dead_names))
        return sentences[-1] if sentences else ""

    # the chain and the skills

    @property
    def skills(self) -> list[str]:
        return self.request.metadata.skills

    def previous_step(self) -> ChainStepOutput | None:
        chain = self.request.metadata.chain_context
        return chain.steps[-1] if chain and chain.steps else None

    def chosen_option(self) -> BrainstormOption | None:
        """The option the writer chose at the chain's interaction point (by its id); the first one offered when
        they chose nothing; None when they wrote their own direction instead or nothing was offered."""
        step, chain = self.previous_step(), self.request.metadata.chain_context
        if step is None or not step.options or chain is None:
            return None
        selection = (chain.selection or "").strip().upper()
        if not selection:
            return step.options[0]
        return next((o for o in step.options if o.id.upper() == selection), None)

    def free_selection(self) -> str | None:
        """The writer's own words at the chain's interaction point, when they chose no offered option."""
        chain, step = self.request.metadata.chain_context, self.previous_step()
        selection = (chain.selection or "").strip() if chain else ""
        offered = {o.id.upper() for o in step.options} if step else set()
        return selection if selection and selection.upper() not in offered else None

    # the story's register

    def story_texts(self) -> list[str]:
        """Everything that says what kind of story this is: the request, the world notes and other passages, the
        characters' descriptions and the chapters."""
        passages = [f"{p.title}\n{p.text}" for p in self.context.passages]
        characters = [c.description for c in self.characters]
        return [self.request.text, *passages, *characters, *(c.content for c in self.chapters)]
