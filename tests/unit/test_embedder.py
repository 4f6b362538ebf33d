"""The hashing embedder: unit rows, stable across processes, tolerant of spelling and width variants."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from stores.embedder import HashingEmbedder, text_features


def cosine(embedder: HashingEmbedder, left: str, right: str) -> float:
    rows = embedder.embed([left, right])
    return float(rows[0] @ rows[1])


@pytest.fixture(scope="module")
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


def test_rows_are_unit_length_float32(embedder: HashingEmbedder) -> None:
    rows = embedder.embed(["赛博朋克", "watercolor painting", "Q版 chibi"])

    assert rows.shape == (3, 512)
    assert rows.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, rtol=1e-6)


def test_text_without_letters_digits_or_cjk_embeds_as_zero(embedder: HashingEmbedder) -> None:
    rows = embedder.embed(["🐱🐱", "", "  -- !! "])

    assert text_features("🐱🐱") == {}
    assert not rows.any()


def test_embedding_is_deterministic_within_a_process(embedder: HashingEmbedder) -> None:
    texts = ["赛博朋克风格的猫", "ukiyo-e wave"]

    np.testing.assert_array_equal(embedder.embed(texts), HashingEmbedder().embed(texts))


def test_embedding_is_identical_in_another_process_with_another_hash_seed(embedder: HashingEmbedder) -> None:
    texts = ["赛博朋克风格的猫", "ukiyo-e wave", "水墨 ink wash"]
    script = (
        "import json, sys; from stores.embedder import HashingEmbedder; "
        "sys.stdout.write(json.dumps(HashingEmbedder().embed(json.loads(sys.argv[1])).tolist()))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    completed = subprocess.run(
        [sys.executable, "-c", script, json.dumps(texts)], capture_output=True, check=True, env=env, text=True
    )

    other = np.asarray(json.loads(completed.stdout), dtype=np.float32)
    np.testing.assert_array_equal(other, embedder.embed(texts))


@pytest.mark.parametrize("variant", ["cyber punk", "cyber-punk", "Cyberpunk", "ＣＹＢＥＲＰＵＮＫ"])
def test_spacing_hyphen_case_and_width_variants_match(embedder: HashingEmbedder, variant: str) -> None:
    assert cosine(embedder, "cyberpunk", variant) > 0.6


def test_full_width_text_is_the_same_as_ascii(embedder: HashingEmbedder) -> None:
    assert cosine(embedder, "ＣＹＢＥＲＰＵＮＫ", "cyberpunk") == pytest.approx(1.0)


def test_british_and_american_spellings_share_most_trigrams(embedder: HashingEmbedder) -> None:
    # 9 shared trigrams give 0.78 before hashing; a collision in 512 buckets costs this pair 0.09.
    assert cosine(embedder, "watercolour", "watercolor") > 0.6


def test_chinese_suffixes_keep_the_style_close(embedder: HashingEmbedder) -> None:
    assert cosine(embedder, "赛博朋克风格", "赛博朋克") > 0.9


def test_different_styles_are_far_apart(embedder: HashingEmbedder) -> None:
    assert cosine(embedder, "水彩", "油画") < 0.3
    assert cosine(embedder, "watercolor", "steampunk") < 0.3


def test_version_names_the_algorithm_and_dimension() -> None:
    assert HashingEmbedder().version == "hashing-ngram-v1-d512"
    assert HashingEmbedder(dim=256).version != HashingEmbedder().version


def test_rejects_a_dimension_too_small_to_hash_into() -> None:
    with pytest.raises(ValueError, match="dim"):
        HashingEmbedder(dim=4)
