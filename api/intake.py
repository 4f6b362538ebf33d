"""Where the gateway does the CPU work requests bring (parsing large bodies, decoding and checking masks): a
worker process of its own (ARCHITECTURE rule 12).

Work on a thread would still need the GIL for its Python parts and its long C calls (parsing a 13 MB JSON body
holds it for milliseconds: README, Performance), and every such hold stalls the event loop; in a process of its
own it cannot. What crosses over is pickled: the functions are module-level, their arguments and results are bytes
and pydantic models, and the errors they raise pickle too. Created with the app (warmed up, so the first request
does not wait for the process to start) and shut down with it; a process that died is replaced on the next
request. A gateway killed outright (SIGKILL, the OOM killer) cannot shut it down, so the worker watches its parent
and exits when it is gone rather than living on as an orphan.
"""

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

PARENT_CHECK_SECONDS = 1.0
"""How often the worker process looks whether the gateway that started it is still its parent."""


def _exit_with_parent(parent: int) -> None:
    """In the worker process: a daemon thread ends the process once `parent` is no longer its parent (it died and
    the process was adopted by init or a subreaper)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class Intake:
    """One worker process for the CPU work of requests."""

    def __init__(self) -> None:
        self._pool = self._start()

    @staticmethod
    def _start() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_with_parent,
            initargs=(os.getpid(),),
        )

    async def warm_up(self) -> None:
        """Start the worker process now (it imports the project: about a second)."""
        await self.run(int)

    async def run(self, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, partial(work, *args, **kwargs))
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._start()
            raise

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
