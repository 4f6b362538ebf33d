"""Issue 29's first "Done when" row, over HTTP and offline: the README's example (打工人的咖啡续命指南 on 小红书 with
two notes) gives a post headed by the notes' facts, never by the Supervisor's focus areas, within 小红书's limits,
saying it is offline, with image prompts free of process words and four images that differ in what they show (their
grayscale structure, not only their palette); an English topic stays whole in an English post."""

import io
import itertools
import re
from typing import Any

import numpy as np
from PIL import Image

from imaging.rendering import composition_for
from models.content.artifacts import BODY_LENGTH, TITLE_LIMIT
from tests.api.conftest import Gateway
from tests.api.content.test_content_runs import NOTES, TOPIC

FOCUS_AREA_STEMS = ("的平台", "的受众", "的核心信息")
SAME_STRUCTURE = 0.9
"""Two images whose normalised grayscale correlates above this show the same thing (a palette change keeps it ~1)."""
PROCESS_WORDS = re.compile(r"要求：|生成计划|；重点：|Supervisor|agent", re.IGNORECASE)


async def finished_run(gateway: Gateway, topic: str, notes: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The post and the run's state of one offline 小红书 run."""
    response = await gateway.http.post(
        "/v1/content/runs", json={"topic": topic, "platform": "xiaohongshu", "evidence": notes}
    )
    assert response.status_code == 200, response.text
    run_id = response.headers["x-run-id"]
    post = (await gateway.http.get(f"/v1/content/runs/{run_id}/post")).json()
    state = (await gateway.http.get(f"/v1/runs/{run_id}")).json()["state"]
    return post, state


async def test_the_readme_example_is_a_post_built_from_the_notes_within_xiaohongshus_limits(gateway: Gateway) -> None:
    post, state = await finished_run(gateway, TOPIC, NOTES)

    headings = [section["heading"] for section in post["sections"] if section["kind"] == "text"]
    assert headings and not [h for h in headings if any(stem in h for stem in FOCUS_AREA_STEMS)], headings
    assert not all(TOPIC in heading for heading in headings)
    assert any("67%" in heading for heading in headings) and any("400 毫克" in heading for heading in headings)
    content = state["generatedContent"]
    body: str = content["body"]
    assert "67%" in body and "400 毫克" in body
    assert body.startswith("【离线草稿·未接入大模型】")
    low, high = BODY_LENGTH["xiaohongshu"]
    assert low <= len(body) <= high and len(content["title"]) <= TITLE_LIMIT["xiaohongshu"]
    assert 3 <= len(content["hashtags"]) <= 5
    assert not any(PROCESS_WORDS.search(plan["prompt"]) for plan in state["imagePlans"]), state["imagePlans"]
    assert post["approved"], post["qualityScores"]

    plans = state["imagePlans"]
    assert len(post["imageUrls"]) == 4 == len(plans)
    assert len({composition_for(plan["prompt"]) for plan in plans}) == 4, [plan["prompt"] for plan in plans]
    structures = [await grayscale(gateway, url) for url in post["imageUrls"]]
    for first, second in itertools.combinations(structures, 2):
        assert float(np.mean(first * second)) < SAME_STRUCTURE


async def grayscale(gateway: Gateway, url: str) -> np.ndarray[Any, np.dtype[np.float64]]:
    """The image's luminance at 48x64, normalised to mean 0 and deviation 1: its structure without its colours."""
    response = await gateway.http.get(url)
    assert response.status_code == 200
    pixels = np.asarray(Image.open(io.BytesIO(response.content)).convert("L").resize((48, 64)), dtype=np.float64)
    normalised: np.ndarray[Any, np.dtype[np.float64]] = (pixels - pixels.mean()) / (float(pixels.std()) or 1.0)
    return normalised


async def test_an_english_topic_stays_whole_in_an_english_post(gateway: Gateway) -> None:
    topic = "How to pack light for a weekend trip"
    notes = ["Pack one pair of shoes besides the ones you wear.", "Roll your clothes: it saves 30% of the space."]
    post, state = await finished_run(gateway, topic, notes)

    body: str = state["generatedContent"]["body"]
    assert body.startswith("[Offline draft: no language model is connected]")
    assert topic in body and "的" not in body
    assert "Pack one pair of shoes besides the ones you wear." in body.replace("\n", " ")
    assert not re.search(r"[\u4e00-\u9fff]", " ".join(s["heading"] for s in post["sections"] if s["heading"]))
