"""Where a serving process runs ingest work (uploads, `--watch`): one thread of its own, at low
priority, one job at a time. Readers' requests run on the event loop's default threads (a few
on a small machine); an ingest there would hold one for as long as it takes, and a few at once
would leave readers' questions queued behind them. The heavy steps of an ingest give way too: a
PDF is read in a low-priority child process (ingest_scripts/pdf.py) and passages are embedded on
the embedder's low-priority threads."""

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from backend.priority import lower_priority

T = TypeVar("T")
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest", initializer=lower_priority)


async def in_ingest_worker(function: Callable[..., T], *args: object) -> T:
    return await asyncio.get_running_loop().run_in_executor(_worker, functools.partial(function, *args))
