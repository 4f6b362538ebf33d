"""Keeps the live text's posts out of the gateway's access log: a worker posts its agents' text to the gateways
several times a second while a model writes (`activities.common.live_text`), and each post was a line in uvicorn's
access log (and another in the worker's, from httpx: half of the 2 955 such lines among the 3 525 of a benchmark's
stack log). The worker's lines stay (a content test failed while the same filter was on the worker's `httpx`
logger; the time-skipping test server turned out to be the cause, README, Performance)."""

import logging

from models.streaming import LIVE_TEXT_PATH


class WithoutLiveTextPosts(logging.Filter):
    """Drops the records that name the live text route (uvicorn's request lines)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return LIVE_TEXT_PATH not in record.getMessage()


WITHOUT_LIVE_TEXT_POSTS = WithoutLiveTextPosts()


def quiet_live_text_posts() -> None:
    """Installs the filter on uvicorn's access log (once, however often it is called)."""
    logging.getLogger("uvicorn.access").addFilter(WITHOUT_LIVE_TEXT_POSTS)
