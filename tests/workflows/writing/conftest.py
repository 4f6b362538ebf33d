"""Fixtures for the writing family's workflow tests: a harness per test and the sample project they write in."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from tests.workflows.writing.harness import WritingHarness, writing_harness

CHAPTERS = [
    (
        "雨夜",
        "林舟推开警局的门，雨水顺着帽檐滴落。苏念已经在档案室等他。\n\n"
        "“老陈的案子，你还记得吗？”苏念问。林舟没有回答，只是摸了摸口袋里那只停走的怀表。",
    ),
    (
        "码头",
        "三年前，老陈死在码头的那个雨夜，林舟就在对岸。\n\n"
        "如今码头早已废弃，只有走私船还在深夜靠岸。苏念举着相机，记下每一艘船的编号。",
    ),
]
CHARACTERS = [
    ("林舟", "退役侦探，蓝眼睛，沉默寡言，一直在查师父的死因"),
    ("苏念", "调查记者，执着，和林舟是搭档"),
    ("老陈", "林舟的师父，三年前在码头遇害，已故"),
]
PLOT_LOOPS = ["老陈的怀表"]
STYLE_SAMPLES = ["雨下了一整夜。他没有说话，只是把烟按灭在窗台上。“走吧。”她说。"]


@pytest.fixture
async def writing(env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[WritingHarness]:
    async with writing_harness(env, tmp_path) as harness:
        yield harness


@pytest.fixture
def project(writing: WritingHarness) -> str:
    """The sample project: two chapters, three characters (one of them dead), a plot loop, a style sample."""
    return writing.project(chapters=CHAPTERS, characters=CHARACTERS, plot_loops=PLOT_LOOPS, style_samples=STYLE_SAMPLES)
