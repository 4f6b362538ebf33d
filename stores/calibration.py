"""Calibration of style-search scores: raw cosine -> the `similarity` the RAG node thresholds at 0.6.

`calibrate` is what the store applies; `main` (`python -m stores.calibration`) re-measures, on the library
itself and on the held-out queries below, where matching and non-matching pairs fall, and prints the knots
that follow from the measurement. Method and numbers: docs/rag.md.
"""

import logging
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from stores.embedder import HashingEmbedder
from stores.style_library import StyleEntry, load_style_library

log = logging.getLogger(__name__)

THRESHOLD = 0.6
"""The seed's `minSimilarity` (000 §3.2); the calibration puts the measured boundary here."""

# Measured by `python -m stores.calibration` (docs/rag.md, "Calibration"); rerun it after changing the
# embedder or the library, and copy the knots it prints.
RAW_KNOTS = (0.0, 0.341, 0.6, 0.862, 1.0)
CALIBRATED_KNOTS = (0.0, 0.3, THRESHOLD, 0.9, 1.0)


def calibrate(raw_cosine: float) -> float:
    """Map a raw cosine to a similarity on which `THRESHOLD` separates "same style" from "other"."""
    return float(np.interp(raw_cosine, RAW_KNOTS, CALIBRATED_KNOTS))


HELD_OUT_PARAPHRASES: tuple[tuple[str, str], ...] = (
    ("赛博朋克风格", "cyberpunk"),
    ("赛博朋克风", "cyberpunk"),
    ("cyberpunk style", "cyberpunk"),
    ("Cyberpunk City", "cyberpunk"),
    ("ＣＹＢＥＲＰＵＮＫ", "cyberpunk"),
    ("蒸汽朋克风格", "steampunk"),
    ("steampunk style", "steampunk"),
    ("水彩风格", "watercolor"),
    ("watercolour painting", "watercolor"),
    ("水彩插画", "watercolor"),
    ("water colour", "watercolor"),
    ("油画风格", "oil_painting"),
    ("oil-painting", "oil_painting"),
    ("古典油画", "oil_painting"),
    ("水墨风", "ink_wash"),
    ("中国水墨画", "ink_wash"),
    ("ink wash painting", "ink_wash"),
    ("水墨山水", "ink_wash"),
    ("浮世绘风格", "ukiyo_e"),
    ("ukiyo e", "ukiyo_e"),
    ("japanese woodblock", "ukiyo_e"),
    ("动漫风格", "anime"),
    ("二次元风格", "anime"),
    ("anime art", "anime"),
    ("日系二次元", "anime"),
    ("像素风格", "pixel_art"),
    ("pixel-art", "pixel_art"),
    ("8bit pixel", "pixel_art"),
    ("像素艺术", "pixel_art"),
    ("低多边形风格", "low_poly"),
    ("low polygon", "low_poly"),
    ("蒸汽波风格", "vaporwave"),
    ("vaporwave aesthetic", "vaporwave"),
    ("新艺术运动风格", "art_nouveau"),
    ("印象派风格", "impressionism"),
    ("印象派油画", "impressionism"),
    ("impressionist painting", "impressionism"),
    ("超现实风格", "surrealism"),
    ("surrealism art", "surrealism"),
    ("波普艺术风格", "pop_art"),
    ("popart", "pop_art"),
    ("极简风格", "minimalism"),
    ("minimalistic", "minimalism"),
    ("素描风格", "sketch"),
    ("pencil sketch drawing", "sketch"),
    ("铅笔素描画", "sketch"),
    ("写实风格", "photorealistic"),
    ("photo-realistic", "photorealistic"),
    ("照片级写实风格", "photorealistic"),
    ("3D渲染风格", "render_3d"),
    ("3d rendering", "render_3d"),
    ("c4d渲染", "render_3d"),
    ("黏土风格", "claymation"),
    ("clay animation", "claymation"),
    ("粘土风", "claymation"),
    ("剪纸风格", "papercut"),
    ("papercutting", "papercut"),
    ("工笔画风格", "gongbi"),
    ("吉卜力风格", "ghibli"),
    ("宫崎骏动画", "ghibli"),
    ("ghibli style", "ghibli"),
    ("奇幻风格", "fantasy"),
    ("fantasy style", "fantasy"),
    ("哥特风格", "gothic"),
    ("gothic style", "gothic"),
    ("巴洛克风", "baroque"),
    ("国潮风格", "guochao"),
    ("黑色电影风格", "film_noir"),
    ("noir film", "film_noir"),
    ("80年代风格", "retro_80s"),
    ("复古风", "retro_80s"),
    ("1980s retro", "retro_80s"),
    ("等距风格", "isometric"),
    ("isometric illustration", "isometric"),
    ("线稿风格", "line_art"),
    ("line-art", "line_art"),
    ("美漫风格", "comic"),
    ("comic style", "comic"),
    ("q版风格", "chibi"),
    ("Q版人物", "chibi"),
    ("蜡笔画风格", "crayon"),
    ("crayons", "crayon"),
    ("彩色玻璃窗", "stained_glass"),
    ("stained glass art", "stained_glass"),
    ("马赛克风格", "mosaic"),
    ("霓虹风格", "neon"),
    ("neon light", "neon"),
    ("胶片风格", "vintage_film"),
    ("胶片质感", "vintage_film"),
    ("film photo", "vintage_film"),
    ("电影感画面", "cinematic"),
    ("cinematic style", "cinematic"),
    ("敦煌壁画风格", "dunhuang"),
    ("敦煌飞天", "dunhuang"),
    ("唐卡风格", "thangka"),
    ("立体派风格", "cubism"),
    ("梵高风格", "post_impressionism"),
    ("故障艺术风格", "glitch_art"),
    ("扁平风格", "flat_illustration"),
    ("古风插画", "chinese_style"),
    ("科幻风格", "sci_fi"),
    ("scifi concept art", "sci_fi"),
    ("涂鸦风格", "graffiti"),
    ("版画风格", "woodcut"),
    ("刺绣风格", "embroidery"),
)
"""Style phrases a user or the planner may produce, none of them verbatim in the library."""

HELD_OUT_SENTENCES: tuple[tuple[str, str], ...] = (
    ("赛博朋克 猫 画一只赛博朋克风格的猫", "cyberpunk"),
    ("水彩 山水 用水彩画一幅江南山水", "watercolor"),
    ("watercolor fox a fox in watercolor style", "watercolor"),
    ("浮世绘 海浪 浮世绘风格的海浪", "ukiyo_e"),
    ("像素风 城堡 像素风的城堡", "pixel_art"),
    ("oil painting portrait an oil painting portrait of an old man", "oil_painting"),
    ("吉卜力 小镇 吉卜力风格的海边小镇", "ghibli"),
    ("pixel art dragon a pixel art dragon", "pixel_art"),
)
"""Queries shaped like seed 000 §3.2's `[style, subject, text].join(' ')`."""

UNRELATED_QUERIES: tuple[str, ...] = (
    "今天天气怎么样",
    "banana smoothie recipe",
    "🐱🐱",
    "帮我画一只猫",
    "a cat sitting on a sofa",
    "把背景换成蓝色",
    "make it brighter",
    "你好",
    "hello world",
    "一个穿红衣服的女孩",
    "sunset over the ocean",
    "生日蛋糕",
    "公司logo设计",
    "提高分辨率",
    "画一幅风景画",
    "再调整一下",
    "宽度改成1024",
    "a red sports car",
    "森林里的小鹿",
    "medieval castle on a hill",
    "把这里改成红色",
    "please make the sky bluer",
    "一只狗在草地上奔跑",
    "spaceship",
)
"""Texts that name no style at all."""


class StyleScorer:
    """Raw cosines of a query against every style: the best over the style's names and aliases."""

    def __init__(self, embedder: HashingEmbedder, library: Sequence[StyleEntry]) -> None:
        self._embedder = embedder
        self.rows = [(entry.id, form) for entry in library for form in entry.surface_forms]
        """(style id, name or alias), one per row, as in the LanceDB table."""
        self._vectors = embedder.embed([form for _, form in self.rows])

    def scores(self, query: str, *, without_row: int | None = None) -> dict[str, float]:
        cosines = self._vectors @ self._embedder.embed([query])[0]
        best: dict[str, float] = {}
        for row, ((style_id, _), cosine) in enumerate(zip(self.rows, cosines.tolist(), strict=True)):
            if row != without_row:
                best[style_id] = max(cosine, best.get(style_id, -1.0))
        return best


@dataclass
class Measurement:
    """Own-style scores of matching queries, best wrong-style scores of every query."""

    positives: list[float]
    negatives: list[float]
    unrelated: list[float]
    sentence_positives: list[float]
    loo_positives: list[float]
    loo_ranked_first: int

    @property
    def boundary_positives(self) -> list[float]:
        return [*self.positives, *self.sentence_positives]

    @property
    def boundary_negatives(self) -> list[float]:
        return [*self.negatives, *self.unrelated]


def _own_and_best_other(scores: dict[str, float], style_id: str) -> tuple[float, float]:
    return scores[style_id], max(score for other, score in scores.items() if other != style_id)


def _score_labelled(scorer: StyleScorer, queries: Sequence[tuple[str, str]], result: Measurement) -> list[float]:
    """Own-style scores of `queries`; their best wrong-style scores go to `result.negatives`."""
    own_scores = []
    for query, style_id in queries:
        own, other = _own_and_best_other(scorer.scores(query), style_id)
        own_scores.append(own)
        result.negatives.append(other)
    return own_scores


def _score_leave_one_out(scorer: StyleScorer, result: Measurement) -> None:
    """Each name or alias against the library without its own row: the library's own paraphrase test."""
    for row, (style_id, form) in enumerate(scorer.rows):
        own, other = _own_and_best_other(scorer.scores(form, without_row=row), style_id)
        result.loo_positives.append(own)
        result.negatives.append(other)
        result.loo_ranked_first += own > other


def measure(scorer: StyleScorer) -> Measurement:
    result = Measurement([], [], [], [], [], 0)
    result.positives = _score_labelled(scorer, HELD_OUT_PARAPHRASES, result)
    result.sentence_positives = _score_labelled(scorer, HELD_OUT_SENTENCES, result)
    result.unrelated = [max(scorer.scores(query).values()) for query in UNRELATED_QUERIES]
    _score_leave_one_out(scorer, result)
    return result


def best_boundary(positives: Sequence[float], negatives: Sequence[float]) -> tuple[float, float]:
    """The raw cosine maximising balanced accuracy (the middle of the best plateau), and that accuracy."""
    candidates = np.round(np.arange(0.30, 0.95, 0.005), 3)
    accuracy = [_balanced_accuracy(positives, negatives, float(cut)) for cut in candidates]
    best = max(accuracy)
    plateau = [float(cut) for cut, value in zip(candidates, accuracy, strict=True) if value == best]
    return round(statistics.median(plateau), 3), best


def _balanced_accuracy(positives: Sequence[float], negatives: Sequence[float], cut: float) -> float:
    hits = sum(score >= cut for score in positives) / len(positives)
    rejections = sum(score < cut for score in negatives) / len(negatives)
    return (hits + rejections) / 2


def _quantiles(values: Sequence[float]) -> str:
    points = np.percentile(np.asarray(values), [0, 5, 25, 50, 75, 95, 100])
    return " ".join(f"{point:.3f}" for point in points)


def _share_at_least(values: npt.ArrayLike, cut: float) -> float:
    return float(np.mean(np.asarray(values) >= cut))


def derive_knots(result: Measurement) -> tuple[float, ...]:
    """Raw cosines for `CALIBRATED_KNOTS`: 0, unrelated p95, the boundary, the median paraphrase, 1."""
    boundary, _ = best_boundary(result.boundary_positives, result.boundary_negatives)
    unrelated_p95 = round(float(np.percentile(result.unrelated, 95)), 3)
    return (0.0, unrelated_p95, boundary, round(statistics.median(result.positives), 3), 1.0)


def report(result: Measurement) -> str:
    positives, negatives = result.boundary_positives, result.boundary_negatives
    boundary, accuracy = best_boundary(positives, negatives)
    lines = [
        "raw cosine quantiles (min p5 p25 p50 p75 p95 max):",
        f"  paraphrase -> own style   n={len(result.positives):3d}  {_quantiles(result.positives)}",
        f"  sentence   -> own style   n={len(result.sentence_positives):3d}  {_quantiles(result.sentence_positives)}",
        f"  any query  -> best other  n={len(result.negatives):3d}  {_quantiles(result.negatives)}",
        f"  unrelated  -> best style  n={len(result.unrelated):3d}  {_quantiles(result.unrelated)}",
        f"  library leave-one-out -> own style  n={len(result.loo_positives):3d}  "
        f"{_quantiles(result.loo_positives)}  (own style first: {result.loo_ranked_first})",
        f"boundary: {boundary} (balanced accuracy {accuracy:.3f})",
        f"  positives >= boundary: {_share_at_least(positives, boundary):.3f}",
        f"  negatives >= boundary: {_share_at_least(negatives, boundary):.3f}",
        f"  unrelated >= boundary: {_share_at_least(result.unrelated, boundary):.3f}",
        f"  leave-one-out >= boundary: {_share_at_least(result.loo_positives, boundary):.3f}",
        f"knots: raw {derive_knots(result)} -> calibrated {CALIBRATED_KNOTS}",
        f"current knots: raw {RAW_KNOTS}",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    library = load_style_library()
    embedder = HashingEmbedder()
    log.info("measuring %s on %d styles", embedder.version, len(library))
    sys.stdout.write(report(measure(StyleScorer(embedder, library))))


if __name__ == "__main__":
    main()
