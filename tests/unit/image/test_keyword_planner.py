"""The offline keyword planner (seed 000 §3.1, §5.2, §7, §8.4): Chinese and English phrasings to `Intent`s."""

import json
from typing import Any

import pytest

from activities.image.keyword_planner import classify_intent
from models.image.state import Intent, PreviousResult

VOCABULARY = [
    "赛博朋克",
    "cyberpunk",
    "水彩",
    "watercolor",
    "watercolour",
    "水墨",
    "ink wash",
    "浮世绘",
    "ukiyo-e",
    "油画",
    "oil painting",
    "像素",
    "pixel art",
]
ANY = object()  # the table does not pin this field


@pytest.fixture
def vocabulary() -> list[str]:
    return list(VOCABULARY)


@pytest.fixture
def previous() -> PreviousResult:
    return PreviousResult(
        blob_key="images/1.png",
        prompt="生成一只赛博朋克风格的猫",
        subject="猫",
        style="赛博朋克",
        width=800,
        height=600,
        style_strength=0.7,
        seed=42,
    )


def classify(text: str, vocabulary: list[str], previous: PreviousResult | None = None) -> Intent:
    return classify_intent(text, has_mask=False, style_vocabulary=vocabulary, previous=previous)


PHRASINGS = [
    # generate_image, Chinese
    pytest.param("生成一只赛博朋克风格的猫", "generate_image", "猫", "赛博朋克", id="zh-generate-style"),
    pytest.param("画一幅水彩风的山水", "generate_image", "山水", "水彩", id="zh-draw-style-feng"),
    pytest.param("来一张日落", "generate_image", "日落", None, id="zh-lai-yi-zhang"),
    pytest.param("来一幅水墨画的竹子", "generate_image", "竹子", "水墨", id="zh-lai-yi-fu"),
    pytest.param("给我一只猫", "generate_image", "猫", None, id="zh-gei-wo"),
    pytest.param("帮我画一个戴帽子的女孩", "generate_image", "戴帽子的女孩", None, id="zh-bang-wo-hua"),
    pytest.param("创作一幅水墨山水画", "generate_image", "山水", "水墨", id="zh-chuang-zuo"),
    pytest.param("绘制一张浮世绘风格的海浪", "generate_image", "海浪", "浮世绘", id="zh-hui-zhi"),
    pytest.param("做一张像素风格的城堡", "generate_image", "城堡", "像素", id="zh-zuo-yi-zhang"),
    pytest.param("设计一个logo", "generate_image", "logo", None, id="zh-she-ji"),
    pytest.param("请帮我生成一幅美丽的风景画", "generate_image", "美丽的风景", None, id="zh-polite"),
    pytest.param("我想要一张海边日落的照片", "generate_image", "海边日落", None, id="zh-want-photo"),
    pytest.param("生成一张猫的图片", "generate_image", "猫", None, id="zh-de-tu-pian"),
    pytest.param("画一只猫和一只狗", "generate_image", "猫和狗", None, id="zh-two-subjects"),
    pytest.param("以梵高的风格画一片星空", "generate_image", "星空", "梵高", id="zh-style-not-in-vocab"),
    pytest.param("生成一只蒸汽波风格的猫", "generate_image", "猫", "蒸汽波", id="zh-x-fengge-pattern"),
    pytest.param("你能画一只猫吗", "generate_image", "猫", None, id="zh-question-with-verb"),
    # generate_image, English
    pytest.param("generate a cyberpunk cat", "generate_image", "cat", "cyberpunk", id="en-generate-style"),
    pytest.param(
        "a watercolor painting of a fox in the snow",
        "generate_image",
        "fox in the snow",
        "watercolor",
        id="en-painting-of",
    ),
    pytest.param("create an image of a dragon", "generate_image", "dragon", None, id="en-create-image-of"),
    pytest.param("draw me a cat", "generate_image", "cat", None, id="en-draw-me"),
    pytest.param("paint a sunset over the ocean", "generate_image", "sunset over the ocean", None, id="en-paint"),
    pytest.param("make a pixel art castle", "generate_image", "castle", "pixel art", id="en-make"),
    pytest.param("render a city at night", "generate_image", "city at night", None, id="en-render"),
    pytest.param("an image of a robot", "generate_image", "robot", None, id="en-image-of"),
    pytest.param("show me a picture of the moon", "generate_image", "moon", None, id="en-picture-of"),
    pytest.param(
        "illustration of a castle in ukiyo-e style",
        "generate_image",
        "castle",
        "ukiyo-e",
        id="en-illustration-of",
    ),
    pytest.param(
        "painting of a cat in the style of Van Gogh",
        "generate_image",
        "cat",
        "Van Gogh",
        id="en-in-the-style-of",
    ),
    pytest.param("a vaporwave style cat", "generate_image", "cat", "vaporwave", id="en-x-style-pattern"),
    pytest.param("can you draw a cat?", "generate_image", "cat", None, id="en-question-with-verb"),
    pytest.param("Generate a CYBERPUNK city", "generate_image", "city", "cyberpunk", id="en-case-insensitive"),
    pytest.param("an ink-wash painting of bamboo", "generate_image", "bamboo", "ink wash", id="en-hyphen"),
    # generate_image without a verb
    pytest.param("赛博朋克猫", "generate_image", "猫", "赛博朋克", id="zh-subject-style-only"),
    pytest.param("一只在月光下奔跑的狼", "generate_image", "月光下奔跑的狼", None, id="zh-subject-only"),
    pytest.param("a red fox", "generate_image", "red fox", None, id="en-subject-only"),
    pytest.param("a cat, cyberpunk style", "generate_image", "cat", "cyberpunk", id="en-style-after"),
    # inpainting without a mask
    pytest.param("修改这里", "inpainting", None, None, id="zh-modify-here"),
    pytest.param("改这里", "inpainting", None, None, id="zh-change-here"),
    pytest.param("这块换成一朵花", "inpainting", "花", None, id="zh-this-block"),
    pytest.param("局部重绘", "inpainting", None, None, id="zh-local-redraw"),
    pytest.param("把猫换成狗", "inpainting", "狗", None, id="zh-ba-huan-cheng"),
    pytest.param("替换背景", "inpainting", "背景", None, id="zh-replace"),
    pytest.param("擦除这个人", "inpainting", ANY, None, id="zh-erase"),
    pytest.param("去掉背景里的人", "inpainting", "背景里的人", None, id="zh-remove"),
    pytest.param("抹掉水印", "inpainting", "水印", None, id="zh-wipe"),
    pytest.param("inpaint the sky", "inpainting", "sky", None, id="en-inpaint"),
    pytest.param("replace the cat with a dog", "inpainting", "dog", None, id="en-replace-with"),
    pytest.param("erase the tree", "inpainting", "tree", None, id="en-erase"),
    pytest.param("remove the person", "inpainting", "person", None, id="en-remove"),
    pytest.param("change this area", "inpainting", None, None, id="en-change-this-area"),
    pytest.param("add a flower here", "inpainting", "flower", None, id="en-here"),
    # adjust_parameters without a previous image
    pytest.param("再调整一下", "adjust_parameters", None, None, id="zh-adjust-again"),
    pytest.param("调整尺寸为1024x768", "adjust_parameters", None, None, id="zh-size"),
    pytest.param("分辨率调到1024*768", "adjust_parameters", None, None, id="zh-resolution"),
    pytest.param("大一点", "adjust_parameters", None, None, id="zh-bigger"),
    pytest.param("缩小", "adjust_parameters", None, None, id="zh-shrink"),
    pytest.param("横版", "adjust_parameters", None, None, id="zh-landscape"),
    pytest.param("竖版", "adjust_parameters", None, None, id="zh-portrait"),
    pytest.param("风格强一点", "adjust_parameters", None, None, id="zh-stronger"),
    pytest.param("更亮", "adjust_parameters", None, None, id="zh-brighter"),
    pytest.param("把尺寸改成1024x768", "adjust_parameters", None, None, id="zh-ba-size"),
    pytest.param("resize to 1024 x 768", "adjust_parameters", None, None, id="en-resize"),
    pytest.param("make it bigger", "adjust_parameters", None, None, id="en-make-it-bigger"),
    pytest.param("landscape", "adjust_parameters", None, None, id="en-landscape"),
    pytest.param("make it square", "adjust_parameters", None, None, id="en-square"),
    pytest.param("style strength 0.9", "adjust_parameters", None, None, id="en-style-strength"),
    pytest.param("weaker", "adjust_parameters", None, None, id="en-weaker"),
    # nouns that look like parameter words
    pytest.param("a portrait of a woman", "generate_image", "woman", None, id="en-portrait-of"),
    pytest.param("生成一张横版的猫", "generate_image", "猫", None, id="zh-generate-with-orientation"),
    # unknown
    pytest.param("你好", "unknown", None, None, id="zh-greeting"),
    pytest.param("hello", "unknown", None, None, id="en-greeting"),
    pytest.param("今天天气怎么样", "unknown", None, None, id="zh-chitchat"),
    pytest.param("what's the weather like?", "unknown", None, None, id="en-chitchat"),
    pytest.param("what can you do?", "unknown", None, None, id="en-question"),
    pytest.param("谢谢", "unknown", None, None, id="zh-thanks"),
    pytest.param("请帮我", "unknown", None, None, id="zh-filler-only"),
    pytest.param("再来一张", "unknown", None, None, id="zh-again-without-previous"),
    pytest.param("another one", "unknown", None, None, id="en-again-without-previous"),
]


@pytest.mark.parametrize(("text", "action", "subject", "style"), PHRASINGS)
def test_phrasings(vocabulary: list[str], text: str, action: str, subject: Any, style: Any) -> None:
    intent = classify(text, vocabulary)

    assert intent.action == action
    assert intent.source == "keywords"
    if subject is not ANY:
        assert intent.subject == subject
    if style is not ANY:
        assert intent.style == style
    if action == "unknown":
        assert intent.confidence <= 0.3
    else:
        assert intent.confidence >= 0.5, "the workflow would treat it as unknown (seed 000 §8.4)"


@pytest.mark.parametrize("text", [param.values[0] for param in PHRASINGS])
def test_raw_response_and_reasoning_describe_the_decision(vocabulary: list[str], text: str) -> None:
    intent = classify(text, vocabulary)

    decided = json.loads(intent.raw_response)
    assert decided["action"] == intent.action
    assert decided["confidence"] == intent.confidence
    assert decided["subject"] == intent.subject
    assert decided["style"] == intent.style
    assert any("\u4e00" <= char <= "\u9fff" for char in intent.reasoning)


@pytest.mark.parametrize(
    ("text", "confidence"),
    [
        pytest.param("生成一只赛博朋克风格的猫", 0.85, id="verb-and-subject"),
        pytest.param("画一幅油画", 0.8, id="verb-without-subject"),
        pytest.param("修改这里", 0.8, id="inpainting-keyword"),
        pytest.param("再调整一下", 0.8, id="adjust-without-parameters"),
        pytest.param("大一点", 0.85, id="adjust-with-parameters"),
        pytest.param("赛博朋克猫", 0.6, id="subject-and-style-only"),
        pytest.param("a red fox", 0.6, id="subject-only"),
    ],
)
def test_confidence_levels(vocabulary: list[str], text: str, confidence: float) -> None:
    assert classify(text, vocabulary).confidence == confidence


def test_prompt_is_the_cleaned_request(vocabulary: list[str]) -> None:
    intent = classify("  画一只\n  赛博朋克风格的猫  ", vocabulary)

    assert intent.prompt == "画一只 赛博朋克风格的猫"


def test_is_deterministic(vocabulary: list[str], previous: PreviousResult) -> None:
    first = classify("再来一张水墨的", vocabulary, previous)

    assert classify("再来一张水墨的", vocabulary, previous) == first


# --- Style vocabulary ----------------------------------------------------------------------------------


def test_longest_vocabulary_entry_wins_whatever_the_order(vocabulary: list[str]) -> None:
    words = ["oil", *vocabulary, "oil painting of"]

    for order in (words, list(reversed(words))):
        intent = classify("an oil painting of a ship", order)
        assert intent.style == "oil painting of"


def test_style_is_returned_as_written_in_the_vocabulary() -> None:
    intent = classify("draw a CyberPunk cat", ["Cyberpunk"])

    assert intent.style == "Cyberpunk"
    assert intent.subject == "cat"


def test_exact_spelling_wins_over_a_spaced_alias() -> None:
    aliases = ["cyber punk", "cyberpunk"]

    assert classify("draw a cyberpunk cat", aliases).style == "cyberpunk"
    assert classify("draw a cyber-punk cat", aliases).style == "cyber punk"


def test_style_words_of_another_word_are_not_styles(vocabulary: list[str]) -> None:
    assert classify("draw a pixelated cat", ["pixel"]).style is None
    assert classify("这种风格很好看，画一只猫", vocabulary).style is None


def test_empty_vocabulary_still_finds_patterns() -> None:
    assert classify("画一只中国风的龙", []).style == "中国"
    assert classify("a cat in the style of Monet", []).style == "Monet"


# --- Mask override (seed 000 §3.1) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "subject", "style"),
    [
        pytest.param("把这里换成一朵花", "花", None, id="zh-replace-here"),
        pytest.param("生成一只赛博朋克风格的猫", "猫", "赛博朋克", id="generate-text"),
        pytest.param("replace it with a red balloon", "red balloon", None, id="en-replace"),
        pytest.param("改成水彩风格的天空", "天空", "水彩", id="style"),
        pytest.param("修改这里", None, None, id="no-subject"),
        pytest.param("", None, None, id="empty-text"),
        pytest.param("😀", None, None, id="emoji"),
    ],
)
def test_mask_forces_inpainting(vocabulary: list[str], text: str, subject: str | None, style: str | None) -> None:
    intent = classify_intent(text, has_mask=True, style_vocabulary=vocabulary)

    assert intent.action == "inpainting"
    assert intent.confidence == 0.9
    assert intent.source == "mask"
    assert intent.subject == subject
    assert intent.style == style
    assert json.loads(intent.raw_response)["source"] == "mask"


def test_mask_wins_over_a_previous_result(vocabulary: list[str], previous: PreviousResult) -> None:
    intent = classify_intent("再来一张", has_mask=True, style_vocabulary=vocabulary, previous=previous)

    assert (intent.action, intent.source) == ("inpainting", "mask")


# --- Parameters -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "parameters"),
    [
        pytest.param("调整尺寸为1024x768", {"width": 1024, "height": 768}, id="x"),
        pytest.param("1024*768", {"width": 1024, "height": 768}, id="star"),
        pytest.param("1024×768", {"width": 1024, "height": 768}, id="times-sign"),
        pytest.param("resize to 1024 x 768", {"width": 1024, "height": 768}, id="spaced"),
        pytest.param("尺寸改成１０２４Ｘ７６８", {"width": 1024, "height": 768}, id="full-width"),
        pytest.param("5000x100", {"width": 2048, "height": 256}, id="clamped"),
        pytest.param("1000x750", {"width": 1000, "height": 752}, id="multiple-of-8"),
        pytest.param("宽度1024", {"width": 1024}, id="zh-width"),
        pytest.param("height 768", {"height": 768}, id="en-height"),
        pytest.param("大一点", {"width": 1000, "height": 752}, id="zh-bigger"),
        pytest.param("bigger", {"width": 1000, "height": 752}, id="en-bigger"),
        pytest.param("小一点", {"width": 640, "height": 480}, id="zh-smaller"),
        pytest.param("smaller", {"width": 640, "height": 480}, id="en-smaller"),
        pytest.param("横版", {"width": 1024, "height": 576}, id="zh-landscape"),
        pytest.param("宽屏", {"width": 1024, "height": 576}, id="zh-widescreen"),
        pytest.param("landscape", {"width": 1024, "height": 576}, id="en-landscape"),
        pytest.param("竖版", {"width": 576, "height": 1024}, id="zh-portrait"),
        pytest.param("switch to portrait mode", {"width": 576, "height": 1024}, id="en-portrait"),
        pytest.param("方形", {"width": 768, "height": 768}, id="zh-square"),
        pytest.param("make it square", {"width": 768, "height": 768}, id="en-square"),
        pytest.param("风格强度 0.9", {"style_strength": 0.9}, id="zh-strength"),
        pytest.param("风格强度 90%", {"style_strength": 0.9}, id="zh-strength-percent"),
        pytest.param("风格强度调到0.5", {"style_strength": 0.5}, id="zh-strength-to"),
        pytest.param("style strength 0.9", {"style_strength": 0.9}, id="en-strength"),
        pytest.param("style strength 150%", {"style_strength": 1.0}, id="strength-clamped"),
        pytest.param("风格强一点", {"style_strength": 0.9}, id="zh-stronger"),
        pytest.param("风格强度大一点", {"style_strength": 0.9}, id="zh-strength-bigger-is-not-size"),
        pytest.param("stronger", {"style_strength": 0.9}, id="en-stronger"),
        pytest.param("弱一点", {"style_strength": 0.5}, id="zh-weaker"),
        pytest.param("weaker", {"style_strength": 0.5}, id="en-weaker"),
        pytest.param("横版，风格强一点", {"width": 1024, "height": 576, "style_strength": 0.9}, id="combined"),
        pytest.param("再调整一下", {}, id="nothing-specific"),
        pytest.param("更暗", {}, id="brightness-has-no-parameter"),
    ],
)
def test_parameters_from_defaults(vocabulary: list[str], text: str, parameters: dict[str, Any]) -> None:
    intent = classify(text, vocabulary)

    assert intent.action == "adjust_parameters"
    assert intent.parameters == parameters


def test_relative_parameters_start_from_the_previous_image(vocabulary: list[str]) -> None:
    previous = PreviousResult(
        blob_key="images/2.png",
        prompt="a cat",
        width=1920,
        height=1080,
        style_strength=0.95,
        seed=7,
    )

    assert classify("bigger", vocabulary, previous).parameters == {"width": 2048, "height": 1352}
    assert classify("缩小", vocabulary, previous).parameters == {"width": 1536, "height": 864}
    assert classify("风格强一点", vocabulary, previous).parameters == {"style_strength": 1.0}
    assert classify("weaker", vocabulary, previous).parameters == {"style_strength": 0.75}


def test_small_sides_stay_above_the_minimum(vocabulary: list[str]) -> None:
    previous = PreviousResult(blob_key="b", prompt="p", width=256, height=300, style_strength=0.1, seed=1)

    intent = classify("smaller, weaker", vocabulary, previous)

    assert intent.parameters == {"width": 256, "height": 256, "style_strength": 0.0}


# --- Multi-turn (seed 000 §5.2) ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["再来一张", "again", "another one", "one more", "重新生成"])
def test_again_reuses_the_previous_image(vocabulary: list[str], previous: PreviousResult, text: str) -> None:
    intent = classify(text, vocabulary, previous)

    assert intent.action == "generate_image"
    assert intent.confidence >= 0.8
    assert (intent.subject, intent.style) == ("猫", "赛博朋克")
    assert intent.prompt == previous.prompt


def test_again_with_a_new_subject_keeps_the_previous_style(vocabulary: list[str], previous: PreviousResult) -> None:
    intent = classify("再画一只狗", vocabulary, previous)

    assert (intent.action, intent.subject, intent.style) == ("generate_image", "狗", "赛博朋克")
    assert intent.prompt == "赛博朋克风格的狗"


@pytest.mark.parametrize(
    ("text", "style"),
    [
        pytest.param("换成水彩风格", "水彩", id="zh-huan-cheng"),
        pytest.param("把它换成水墨风", "水墨", id="zh-ba-ta"),
        pytest.param("换个油画风格", "油画", id="zh-huan-ge"),
        pytest.param("make it watercolor", "watercolor", id="en-make-it"),
        pytest.param("change the style to ukiyo-e", "ukiyo-e", id="en-change-style"),
    ],
)
def test_naming_only_a_new_style_regenerates_the_previous_subject(
    vocabulary: list[str], previous: PreviousResult, text: str, style: str
) -> None:
    intent = classify(text, vocabulary, previous)

    assert intent.action == "generate_image"
    assert intent.confidence >= 0.8
    assert (intent.subject, intent.style) == ("猫", style)
    assert "猫" in intent.prompt
    assert style in intent.prompt


def test_a_new_style_on_a_region_is_still_inpainting(vocabulary: list[str], previous: PreviousResult) -> None:
    intent = classify("把这里换成水彩风格", vocabulary, previous)

    assert (intent.action, intent.style) == ("inpainting", "水彩")


def test_style_only_without_previous_generates_with_that_style(vocabulary: list[str]) -> None:
    intent = classify("换成水彩风格", vocabulary)

    assert (intent.action, intent.subject, intent.style) == ("generate_image", None, "水彩")
    assert intent.confidence == 0.6


@pytest.mark.parametrize(
    ("text", "parameters"),
    [
        pytest.param("再调整一下", {}, id="nothing-specific"),
        pytest.param("大一点", {"width": 1000, "height": 752}, id="bigger"),
        pytest.param("make it landscape", {"width": 1024, "height": 576}, id="landscape"),
        pytest.param("style strength 90%", {"style_strength": 0.9}, id="strength"),
    ],
)
def test_adjust_inherits_the_previous_request(
    vocabulary: list[str], previous: PreviousResult, text: str, parameters: dict[str, Any]
) -> None:
    intent = classify(text, vocabulary, previous)

    assert intent.action == "adjust_parameters"
    assert intent.parameters == parameters
    assert (intent.subject, intent.style, intent.prompt) == ("猫", "赛博朋克", previous.prompt)


def test_adjust_without_previous_is_still_adjust(vocabulary: list[str]) -> None:
    intent = classify("再调整一下", vocabulary)

    assert intent.action == "adjust_parameters"
    assert intent.subject is None
    assert intent.prompt == "再调整一下"


def test_a_new_request_does_not_inherit(vocabulary: list[str], previous: PreviousResult) -> None:
    intent = classify("画一只狗", vocabulary, previous)

    assert (intent.action, intent.subject, intent.style, intent.prompt) == (
        "generate_image",
        "狗",
        None,
        "画一只狗",
    )


# --- Edge cases (seed 000 §7) -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_input_is_unknown(vocabulary: list[str], text: str) -> None:
    intent = classify(text, vocabulary)

    assert (intent.action, intent.confidence) == ("unknown", 0.0)


@pytest.mark.parametrize("text", ["😀😀", "？？？", "!!!", "...", "👍 🎉"])
def test_emoji_or_symbols_only_is_unknown(vocabulary: list[str], text: str) -> None:
    intent = classify(text, vocabulary)

    assert (intent.action, intent.confidence) == ("unknown", 0.1)


@pytest.mark.parametrize(
    "text", ["asdfghjkl", "qwertyuiop", "xjqpz kvwrt", "sdfkjh wer", "jkjkjk lololo", "fdsa jkl; asdf", "hjkhjk"]
)
def test_keyboard_mashing_is_unknown(vocabulary: list[str], text: str) -> None:
    """Seed 000 §7.2: random Latin letters are no request in any language, not the subject of a picture."""
    intent = classify(text, vocabulary)
    assert intent.action == "unknown"
    assert intent.confidence < 0.5


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("sunset over mountains", "sunset over mountains"),
        ("ein Hund im Schnee", "ein Hund im Schnee"),
        ("zorblax the alien", "zorblax the alien"),
    ],
)
def test_words_without_a_verb_are_still_a_picture(vocabulary: list[str], text: str, subject: str) -> None:
    intent = classify(text, vocabulary)
    assert intent.action == "generate_image" and intent.subject == subject


def test_a_verb_makes_a_made_up_name_a_subject(vocabulary: list[str]) -> None:
    assert classify("draw zorblax", vocabulary).action == "generate_image"


@pytest.mark.parametrize("text", ["你好", "hello", "今天天气怎么样", "good morning", "你是谁", "ok", "好的"])
def test_chitchat_is_unknown(vocabulary: list[str], text: str) -> None:
    intent = classify(text, vocabulary)

    assert intent.action == "unknown"
    assert intent.confidence <= 0.3


def test_modify_here_without_mask_is_inpainting(vocabulary: list[str]) -> None:
    intent = classify("修改这里", vocabulary)

    assert (intent.action, intent.confidence, intent.source) == ("inpainting", 0.8, "keywords")
