"""A second `lectern serve` on a data folder already served started, logged IndexUnavailable and
told readers "try again in a minute" forever: it refuses to start, with the reason."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.books import copy_data_dir

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(data: Path, port: int) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LECTERN_", "QDRANT_"))}
    return subprocess.Popen(
        [sys.executable, "-m", "backend", "serve", "--book", "motors", "--data-dir", str(data), "--port", str(port)],
        cwd=REPO, env=env | {"PYTHONPATH": str(REPO), "COLUMNS": "200"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )


def test_a_second_server_on_a_served_data_folder_refuses_to_start(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "data")
    port = free_port()
    first = serve(data, port)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.5)
        else:
            raise AssertionError(f"the first server never answered: {first.stderr.read() if first.poll() is not None else ''}")

        second = serve(data, free_port())
        try:
            _, stderr = second.communicate(timeout=60)  # it used to start and serve 503s
        finally:
            second.kill()
        assert second.returncode == 1
        assert f"error: not serving: the index at {data / 'qdrant'} is open in another Lectern process" in " ".join(stderr.split())
        answer = httpx.post(f"http://127.0.0.1:{port}/api/chat/query", json={"query": "How does a servo hold its position?"},
                            timeout=30)
        assert answer.status_code == 200 and answer.json()["status"] == "found"  # the first one serves on
    finally:
        first.terminate()
        first.wait(timeout=30)
