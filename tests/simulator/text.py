"""Made-up text for the simulator's answers: prose in the request's language (Chinese or English) of a target
length in tokens, the simulator's token count, and how a text is cut into the pieces a stream sends.

A token here is one CJK character, or one run of word characters or of punctuation with the spaces after it:
close enough to a real tokenizer for sizes and timing, and exact for the simulator's own `usage`.
"""

import random
import re
from typing import Literal

Language = Literal["zh", "en"]

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff][\s]*|[^\W\u3400-\u9fff\uf900-\ufaff]+\s*|[^\w\s]\s*|\s+")

ZH_SENTENCES = (
    "清晨的雾气还没有散去，街角的早点铺已经排起了长队。",
    "她把那封信折好，放进了抽屉最里面的位置。",
    "这个方案的关键在于先把数据整理清楚，再决定下一步怎么走。",
    "我们需要在本周内完成需求分析，并和团队确认优先级。",
    "远处传来火车的汽笛声，仿佛在提醒他时间不多了。",
    "从用户的角度看，最重要的是操作简单、反馈及时。",
    "雨停以后，城市的灯光在湿漉漉的路面上闪烁。",
    "第一步是明确目标，第二步是拆分任务，第三步是按计划执行。",
    "他沉默了很久，最后只说了一句：明天再说吧。",
    "这篇文章的结构清晰，论点明确，但结尾还可以更有力一些。",
    "小镇上的人们都知道，老槐树下的那口井从来没有干过。",
    "为了保证质量，每个模块都要经过单元测试和代码评审。",
)
EN_SENTENCES = (
    "The morning fog had not lifted yet, and the bakery on the corner already had a queue.",
    "She folded the letter carefully and put it at the back of the drawer.",
    "The key to this plan is to get the data in order before deciding on the next step.",
    "We need to finish the requirements analysis this week and agree on priorities with the team.",
    "A train whistle sounded in the distance, as if to remind him that time was short.",
    "From the user's point of view, what matters most is a simple flow and quick feedback.",
    "After the rain stopped, the city lights shimmered on the wet pavement.",
    "First set the goal, then split the work into tasks, then follow the plan.",
    "He was silent for a long time and finally said only: let's talk tomorrow.",
    "The article is well structured and its argument is clear, but the ending could be stronger.",
    "Everyone in the village knew that the old well under the locust tree had never run dry.",
    "To keep quality high, every module goes through unit tests and a code review.",
)
ZH_WORDS = ("晨雾", "旧信", "方案", "目标", "小镇", "灯光", "计划", "回声", "远方", "记忆", "清单", "故事")
EN_WORDS = ("harbor", "letter", "plan", "goal", "village", "lantern", "outline", "echo", "river", "draft", "note")


def language_of(text: str) -> Language:
    """Chinese when the text has any CJK character, else English."""
    return "zh" if CJK.search(text) else "en"


def tokens(text: str) -> list[str]:
    """The text cut into tokens; joined they give the text back."""
    return TOKEN.findall(text)


def count_tokens(text: str) -> int:
    return len(tokens(text))


def prose(rng: random.Random, language: Language, target_tokens: int) -> str:
    """Sentences in `language` until the text reaches about `target_tokens` tokens (at least one sentence)."""
    pool = ZH_SENTENCES if language == "zh" else EN_SENTENCES
    separator = "" if language == "zh" else " "
    sentences = [rng.choice(pool)]
    while count_tokens(separator.join(sentences)) < target_tokens:
        sentences.append(rng.choice(pool))
    return separator.join(sentences)


def phrase(rng: random.Random, language: Language, words: int) -> str:
    """A short label of `words` words (a title, a name)."""
    pool = ZH_WORDS if language == "zh" else EN_WORDS
    separator = "" if language == "zh" else " "
    return separator.join(rng.choice(pool) for _ in range(max(1, words)))


def fit(text: str, min_length: int, max_length: int | None, rng: random.Random, language: Language) -> str:
    """`text` padded or cut (by characters, as JSON Schema counts them) to lie within the bounds."""
    while len(text) < min_length:
        text += prose(rng, language, 20)
    if max_length is not None and len(text) > max_length:
        text = text[:max_length].rstrip() or text[:max_length]
    return text
