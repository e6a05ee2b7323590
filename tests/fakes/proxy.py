"""A TCP proxy in front of a real dependency (PostgreSQL, Redis) that tests can make hang or fail.

`freeze()` keeps every connection open but stops passing bytes either way, and new connections
are accepted and then ignored: what clients see when the server is stopped with SIGSTOP or a
network path goes silent. `cut()` closes every connection and refuses new ones (server down);
`restore()` goes back to forwarding. With no target it is a black hole from the start.
"""

import asyncio
import socket
import threading
from typing import Literal, Self

Mode = Literal["forward", "frozen", "cut"]


class DependencyProxy:
    def __init__(self, target_port: int | None = None, target_host: str = "127.0.0.1"):
        self.target = (target_host, target_port) if target_port else None
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.mode: Mode = "forward" if self.target else "frozen"
        self._resumed: asyncio.Event | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        self._call(self._listen())
        return self

    def __exit__(self, *exc: object) -> None:
        self._call(self._close_all(stop_listening=True))
        self._call(self._cancel_tasks())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def freeze(self) -> None:
        self._call(self._set("frozen"))

    def cut(self) -> None:
        self._call(self._set("cut"))

    def restore(self) -> None:
        self._call(self._set("forward"))

    def _call(self, coroutine: object) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)  # type: ignore[arg-type]

    async def _listen(self) -> None:
        self._resumed = asyncio.Event()
        if self.mode == "forward":
            self._resumed.set()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def _set(self, mode: Mode) -> None:
        assert self._resumed is not None
        self.mode = mode
        if mode == "forward":
            self._resumed.set()
            await self._ensure_listening()
            return
        self._resumed.clear()
        if mode == "cut":
            await self._close_all(stop_listening=True)

    async def _ensure_listening(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def _close_all(self, stop_listening: bool) -> None:
        if stop_listening and self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _cancel_tasks(self) -> None:
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        assert self._resumed is not None
        if self.target is None:
            await asyncio.Event().wait()  # a black hole: hold the connection, say nothing
        await self._resumed.wait()
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.add(upstream_writer)
        await asyncio.gather(
            self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer),
            return_exceptions=True,
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self._resumed is not None
        try:
            while data := await reader.read(65536):
                await self._resumed.wait()
                writer.write(data)
                await writer.drain()
        finally:
            writer.transport.abort()
            self._writers.discard(writer)
