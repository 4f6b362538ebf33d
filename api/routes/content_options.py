"""A content request's options in the user's words, mapped at the gateway (issue 29): the layout and the length a
post's run or an edit (`restyle`) names, or a 422 with the code and the words this studio accepts."""

from api.errors import ApiError
from models.content.artifacts import LayoutPreference
from models.content.errors import ContentErrorCode
from models.content.options import LAYOUT_WORDS, LENGTH_WORDS, Length, accepted, layout_of, length_of


def layout_or_refused(words: str | None) -> LayoutPreference | None:
    """The layout `words` name (None for none given); 422 LAYOUT_PREFERENCE_UNKNOWN for words that name none."""
    if words is None:
        return None
    layout = layout_of(words)
    if layout is None:
        raise ApiError(
            422,
            ContentErrorCode.LAYOUT_PREFERENCE_UNKNOWN,
            f"layoutPreference「{words}」不是可识别的版式（not a layout this studio knows）；"
            f"可用：{accepted(LAYOUT_WORDS)}",
        )
    return layout


def length_or_refused(words: str | None) -> Length | None:
    """The length `words` name (None for none given); 422 LENGTH_UNKNOWN for words that name none."""
    if words is None:
        return None
    length = length_of(words)
    if length is None:
        raise ApiError(
            422,
            ContentErrorCode.LENGTH_UNKNOWN,
            f"length「{words}」不是可识别的篇幅（not a length this studio knows）；可用：{accepted(LENGTH_WORDS)}",
        )
    return length
