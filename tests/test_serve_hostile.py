"""The what-if page's server under a careless and a hostile client (issue 26): a burst of
event streams, another site's scripts, clients that go away or send slowly, numbers and
nesting no page sends, and the report it writes. The server is `bollesim serve` in a
process of its own, started in a scratch folder and spoken to over raw sockets and httpx;
its terminal (stderr) is read as a person would read it.
"""

from __future__ import annotations

import concurrent.futures
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hostile_values import json_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bollesim.serve.app import MAX_STREAMS
from bollesim.serve.server import REQUEST_S

# One worker: the tests share one server process, which the last one stops.
pytestmark = pytest.mark.xdist_group("serve-hostile")


class Served:
    """`bollesim serve` on a free port, run in `folder`; its stderr goes to a file."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.log = folder / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bollesim", "serve", "--no-browser", "--port", "0",
             "--max-games", "2000", "--seed", "3"],
            cwd=folder, stdout=subprocess.PIPE, stderr=self.log.open("w"), text=True)
        line = self.proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, (line, self.log.read_text())
        self.port = int(match.group(1))
        self.url = match.group(0)
        self.seen = 0

    def new_lines(self, wait_for: str | None = None, count: int = 0, timeout: float = 10) -> list[str]:
        """The lines the server wrote to its terminal since the last call (waiting until
        `count` of them hold `wait_for`)."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.log.read_text().splitlines()[self.seen:]
            if wait_for is None or sum(wait_for in line for line in lines) >= count \
                    or time.monotonic() > deadline:
                self.seen += len(lines)
                return lines
            time.sleep(0.1)

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def request(self, head: str, body: bytes = b"") -> socket.socket:
        sock = self.connect()
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        return sock

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=60)
        return self.log.read_text()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    served = Served(tmp_path_factory.mktemp("serve"))
    yield served
    served.stop()


def status(sock: socket.socket) -> int:
    """The status code of the answer on `sock`."""
    head = b""
    while b"\r\n" not in head:
        part = sock.recv(1024)
        if not part:
            raise AssertionError(f"closed before a status line: {head!r}")
        head += part
    return int(head.split()[1])


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(4096) == b""  # an answer (a 4xx) may come first: read on
    except BlockingIOError:
        return False
    except OSError:
        return True


def events_request(port: int, headers: str = "") -> str:
    return f"GET /api/events HTTP/1.1\nHost: 127.0.0.1:{port}\n{headers}"


# ------------------------------------------------------------------ event streams


def test_a_burst_of_event_streams_is_held_to_the_limit(served):
    """30 pages opening their stream at once: MAX_STREAMS are admitted, the rest are
    answered 429; when they close, their slots are free again."""
    socks = [served.connect() for _ in range(30)]
    for sock in socks:  # every request sent before any answer is read
        sock.sendall((events_request(served.port) + "\n").replace("\n", "\r\n").encode())
    codes = [status(sock) for sock in socks]
    assert sorted(codes) == [200] * MAX_STREAMS + [429] * (30 - MAX_STREAMS)
    for sock in socks:
        sock.close()
    deadline = time.monotonic() + 10
    while True:  # the server notices the closed streams
        with served.request(events_request(served.port) + "\n") as sock:
            if status(sock) == 200:
                break
        assert time.monotonic() < deadline, "the closed streams' slots were never freed"
        time.sleep(0.2)


CROSS_SITE = [
    # (name, path, headers, status)
    ("the stream, another Origin", "/api/events", "Origin: http://evil.example\n", 403),
    ("the stream, cross-site", "/api/events", "Sec-Fetch-Site: cross-site\n", 403),
    ("the stream, another port (same-site)", "/api/events", "Sec-Fetch-Site: same-site\n", 403),
    ("the form, cross-site", "/api/form", "Sec-Fetch-Site: cross-site\n", 403),
    ("the stream, a link followed", "/api/events",
     "Sec-Fetch-Site: cross-site\nSec-Fetch-Mode: navigate\n", 403),
    ("an asset, another Origin", "/assets/page.js", "Origin: http://evil.example\n", 403),
    ("the page, a link followed", "/", "Sec-Fetch-Site: cross-site\nSec-Fetch-Mode: navigate\n",
     200),
    ("the form, the page's own", "/api/form", "Sec-Fetch-Site: same-origin\n", 200),
]


@pytest.mark.parametrize("name, path, headers, code", CROSS_SITE, ids=[c[0] for c in CROSS_SITE])
def test_another_sites_request_is_refused_on_every_route(served, name, path, headers, code):
    import httpx

    fields = dict(line.split(": ", 1) for line in headers.splitlines())
    with httpx.stream("GET", served.url.rstrip("/") + path, headers=fields, timeout=10) as answer:
        assert answer.status_code == code
        if code == 403:
            assert answer.read() == b'{"error":"cross-site request refused"}'


def answers(sock: socket.socket) -> bytes:
    """Everything the server sends on `sock` until it closes it (or 5 s of silence)."""
    sock.settimeout(5)
    data = b""
    try:
        while part := sock.recv(65536):
            data += part
    except TimeoutError:
        pass
    return data


def test_a_request_smuggled_behind_both_framings_is_not_served(served):
    """A request with both Content-Length and Transfer-Encoding is answered 400 and its
    connection closed: the request hidden in its body (for a proxy that framed it by
    Content-Length) is never read."""
    smuggled = f"GET /api/form HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode()
    sock = served.request(f"POST /api/partial HTTP/1.1\nHost: 127.0.0.1:{served.port}\n"
                          f"Content-Type: application/json\nContent-Length: {5 + len(smuggled)}"
                          "\nTransfer-Encoding: chunked\n", b"0\r\n\r\n" + smuggled)
    with sock:
        data = answers(sock)
    assert data.startswith(b"HTTP/1.1 400 ") and data.count(b"HTTP/1.1") == 1, data[:300]
    assert data.endswith(b'{"error":"both Content-Length and Transfer-Encoding: refused"}')


# ------------------------------------------------------------------ clients that go away


# ------------------------------------------------------------------ clients that go away


def test_a_client_gone_mid_body_is_one_line_on_the_terminal(served):
    served.new_lines()
    for _ in range(3):
        sock = served.request("POST /api/odds HTTP/1.1\nHost: 127.0.0.1\nContent-Type: "
                              "application/json\nContent-Length: 1000\n", b'{"edits": {')
        time.sleep(0.2)
        sock.close()
    lines = served.new_lines(wait_for="went away", count=3)
    assert lines == ["bollesim serve: POST /api/odds: the client went away before sending its "
                     "whole request"] * 3


def test_slow_clients_are_cut_off(served):
    """Connections that send their headers or their body a byte at a time are closed
    REQUEST_S seconds after they opened; the page is served meanwhile."""
    import httpx

    served.new_lines()
    head = "POST /api/odds HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    slow_head = [served.connect() for _ in range(20)]
    slow_body = [served.connect() for _ in range(20)]
    for sock in slow_body:
        sock.sendall(head.encode() + b"Content-Length: 100\r\n\r\n")
    start = time.monotonic()
    trickle = {sock: head.encode() for sock in slow_head} | {sock: b"{" * 99 for sock in slow_body}
    open_ = set(trickle)
    while open_ and time.monotonic() - start < REQUEST_S + 5:
        for sock in list(open_):
            if closed_by_server(sock):
                open_.discard(sock)
                continue
            try:
                sock.send(trickle[sock][:1])
                trickle[sock] = trickle[sock][1:] or b" "
            except OSError:
                open_.discard(sock)
        assert httpx.get(served.url + "api/form", timeout=5).status_code == 200
        time.sleep(0.5)
    elapsed = time.monotonic() - start
    for sock in trickle:
        sock.close()
    assert not open_, f"{len(open_)} slow connections still open after {elapsed:.0f} s"
    assert elapsed >= REQUEST_S - 1
    lines = served.new_lines(wait_for="went away", count=20)
    assert len(lines) == 20 and all("the client went away" in line for line in lines), lines


# ------------------------------------------------------------------ numbers and nesting


@pytest.mark.parametrize("route", ["odds", "partial", "report", "replay"])
def test_an_integer_of_5000_digits_is_a_400(served, route):
    import httpx

    body = b'{"edits": {"roe.start": ' + b"9" * 5000 + b"}}"
    answer = httpx.post(served.url + "api/" + route, content=body, timeout=10,
                        headers={"Content-Type": "application/json"})
    assert answer.status_code == 400
    assert answer.json() == {"error": "not read: an integer of 5,000 digits (at most 24 are read)"}


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(route=st.sampled_from(["odds", "partial", "replay"]),
       field=st.sampled_from(["edits", "params", "policy", "family", "outcome"]),
       value=json_text)
def test_fuzz_deep_and_huge_json_bodies_get_a_one_line_4xx(served, route, field, value):
    import httpx

    body = f'{{"{field}": {value}, "policy": "historical"}}' if field != "policy" \
        else f'{{"policy": {value}}}'
    answer = httpx.post(served.url + "api/" + route, content=body.encode(), timeout=30,
                        headers={"Content-Type": "application/json"})
    assert 400 <= answer.status_code < 500 or answer.status_code == 200, answer.text
    if answer.status_code >= 400 and answer.status_code != 422:
        assert set(answer.json()) == {"error"} and "\n" not in answer.text


# ------------------------------------------------------------------ stopping


def test_sigterm_with_open_streams_prints_the_stop_line(tmp_path):
    """SIGTERM stops the server as Ctrl-C does, its last line said, while pages hold
    their event streams open."""
    server = Served(tmp_path)
    streams = [server.request(events_request(server.port) + "\n") for _ in range(3)]
    assert [status(sock) for sock in streams] == [200] * 3
    server.proc.send_signal(signal.SIGTERM)
    out = server.proc.stdout.read()
    assert server.proc.wait(timeout=60) == 0
    assert out.strip().endswith("bollesim serve: stopped"), (out, server.log.read_text())
    assert "Traceback" not in server.log.read_text()
    for sock in streams:
        sock.close()


# ------------------------------------------------------------------ the report


def test_the_report_lives_in_results_and_replays_after_the_server_stops(served):
    import httpx

    deadline = time.monotonic() + 600  # a cold start compiles the engine
    while not httpx.get(served.url + "api/form", timeout=60).json()["ready"]:
        assert time.monotonic() < deadline, "the engine never got ready"
        time.sleep(0.5)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # two at once: two folders
        replies = list(pool.map(lambda _: httpx.post(
            served.url + "api/report", json={"policy": "historical"}, timeout=600), range(2)))
    assert [a.status_code for a in replies] == [200, 200], [a.text for a in replies]
    urls = [a.json()["url"] for a in replies]
    tokens = [url.split("/")[2] for url in urls]
    assert tokens[0] != tokens[1] and all(re.fullmatch(r"whatif-\d{8}-\d{6}-[12]", t)
                                          for t in tokens), tokens
    url, token = urls[0], tokens[0]
    markdown = httpx.get(served.url + url.lstrip("/").replace(".html", ".md"), timeout=30).text
    assert tempfile.gettempdir() + "/" not in markdown.replace(str(served.folder), "")
    command = re.search(r"bollesim play --from (\S+) --index (\d+) --cell (\d+)", markdown)
    assert command and command.group(1) == f"results/{token}", markdown
    log = served.stop()
    assert "Traceback" not in log, log
    for name in tokens:
        folder = served.folder / "results" / name
        assert (folder / "report.html").is_file() and (folder / "games.parquet").is_file()
    replay = ["play", "--from", command.group(1), "--index", command.group(2), "--cell",
              command.group(3)]
    done = subprocess.run([sys.executable, "-m", "bollesim", *replay], cwd=served.folder,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr

