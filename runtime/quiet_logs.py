"""Keeps the live text's posts out of the logs: a worker posts its agents' text to the gateways several times a
second while a model writes (`activities.common.live_text`), and each post was a line in the worker's log (httpx
logs every request it sends) and another in the gateway's (uvicorn's access log): 2 955 of the 3 525 lines of a
benchmark's stack log. A post that fails is still logged, by the poster itself."""

import logging

from models.streaming import LIVE_TEXT_PATH


class WithoutLiveTextPosts(logging.Filter):
    """Drops the records that name the live text route (a request line of httpx or uvicorn)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return LIVE_TEXT_PATH not in record.getMessage()


WITHOUT_LIVE_TEXT_POSTS = WithoutLiveTextPosts()


def quiet_live_text_posts(*logger_names: str) -> None:
    """Installs the filter on these loggers (once each, however often it is called)."""
    for name in logger_names:
        logging.getLogger(name).addFilter(WITHOUT_LIVE_TEXT_POSTS)
