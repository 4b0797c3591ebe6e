"""ocw-hub run-llm over several servers: three scripted chat-completions servers, each its own
process on 127.0.0.1 (:mod:`chat_server`), one killed in the middle of the run."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer
from test_llm_faults import answered, log_lines, make_requests
from typer.testing import CliRunner

from ocw_hub.llm.client import run_requests

HERE = Path(__file__).resolve().parent
runner = CliRunner()
pytestmark = pytest.mark.usefixtures("local_only")


class ServerProcess:
    """``python chat_server.py`` in its own process; what it received is read from its file."""

    def __init__(self, folder: Path, name: str, delay: float) -> None:
        self.port_file, self.received = folder / f"{name}.port", folder / f"{name}.received"
        self.received.touch()
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "chat_server.py"), "--port-file", str(self.port_file)]
            + ["--received", str(self.received), "--delay", str(delay)],
        )
        for _ in range(200):  # at most 10 s to start
            if self.port_file.exists() or self.process.poll() is not None:
                break
            time.sleep(0.05)
        assert self.port_file.exists(), "the server did not start"
        self.url = f"http://127.0.0.1:{int(self.port_file.read_text())}/v1"

    def count(self) -> Counter[str]:
        return Counter(self.received.read_text().split())

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def three_servers(tmp_path: Path) -> Iterator[list[ServerProcess]]:
    servers = [ServerProcess(tmp_path, name, delay=0.2) for name in "abc"]
    yield servers
    for server in servers:
        server.kill()


def kill_when_busy(server: ServerProcess, received: int) -> threading.Thread:
    """Kill ``server`` once it has received ``received`` requests (watched for at most 30 s),
    while it is still answering them (each takes 0.2 s)."""

    def watch() -> None:
        for _ in range(3000):
            if sum(server.count().values()) >= received:
                break
            time.sleep(0.01)
        server.kill()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_one_server_killed_mid_run_loses_nothing(tmp_path: Path, three_servers) -> None:
    a, b, c = three_servers
    requests = make_requests(30)
    log = tmp_path / "log.jsonl"
    watcher = kill_when_busy(b, received=3)
    summary = run_requests(
        requests, log, base_url=[a.url, b.url, c.url], model="m", concurrency=2, timeout=20
    )
    watcher.join(timeout=30)
    assert b.process.poll() is not None  # b was killed during the run
    assert (summary.succeeded, summary.failures) == (30, [])
    assert answered(log) == {f"w{i}": 1 for i in range(30)}  # every request answered once
    assert len(log_lines(log)) == 30
    for line in log_lines(log):
        text = line["response"]["body"]["choices"][0]["message"]["content"]
        assert text == f"answer to q{line['custom_id'][1:]}"
    received = {s.url: s.count() for s in three_servers}
    # b took requests and died with some unanswered: they were answered by a and c
    assert sum(received[b.url].values()) >= 3
    assert summary.answered_by[b.url] < sum(received[b.url].values())
    assert summary.answered_by[a.url] > 0 and summary.answered_by[c.url] > 0
    assert sum(summary.answered_by.values()) == 30
    for i in range(30):
        assert sum(r[f"q{i}"] for r in received.values()) >= 1
    # a re-run after success sends nothing to anyone
    again = run_requests(requests, log, base_url=[a.url, b.url, c.url], model="m")
    assert (again.sent, again.already_done) == (0, 30)
    assert {s.url: s.count() for s in three_servers} == received


def test_requests_spread_over_servers_with_concurrency_each(tmp_path: Path) -> None:
    servers = [ChatServer(delay=0.1) for _ in range(3)]
    try:
        urls = [s.url for s in servers]
        summary = run_requests(
            make_requests(18), tmp_path / "log.jsonl", base_url=urls, model="m", concurrency=2
        )
        assert summary.succeeded == 18
        assert [s.max_active for s in servers] == [2, 2, 2]
        assert sum(sum(s.count.values()) for s in servers) == 18
        assert summary.answered_by == {s.url: sum(s.count.values()) for s in servers}
    finally:
        for server in servers:
            server.close()


def test_chat_server_script_counts_what_it_receives(tmp_path: Path) -> None:
    """The process server of these tests answers and records each request once."""
    server = ServerProcess(tmp_path, "x", delay=0.0)
    try:
        run_requests(make_requests(2), tmp_path / "log.jsonl", base_url=server.url, model="m")
        assert server.count() == {"q0": 1, "q1": 1}
    finally:
        server.kill()
