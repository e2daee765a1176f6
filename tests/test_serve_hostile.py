"""The what-if page's server under a careless and a hostile client (issue 26): a burst of
event streams, another site's scripts, clients that go away or send slowly, numbers and
nesting no page sends, and the report it writes. The server is `bollesim serve` in a
process of its own, started in a scratch folder and spoken to over raw sockets and httpx;
its terminal (stderr) is read as a person would read it.
"""

from __future__ import annotations

import concurrent.futures
import functools
import json
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import waiting
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

    def new_lines(self, wait_for: str | None = None, count: int = 0) -> list[str]:
        """The lines the server wrote to its terminal since the last call (waiting until
        `count` of them hold `wait_for`)."""
        def written():
            lines = self.log.read_text().splitlines()[self.seen:]
            enough = wait_for is None or sum(wait_for in line for line in lines) >= count
            return (lines,) if enough else None  # true, even with no line

        (lines,) = waiting.until(written, f"{count} lines saying {wait_for!r}", alive=[self.proc])
        self.seen += len(lines)
        return lines

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=waiting.scaled(60))

    def request(self, head: str, body: bytes = b"") -> socket.socket:
        sock = self.connect()
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        return sock

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            waiting.until(lambda: self.proc.poll() is not None, "the server to stop")
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

    def admitted() -> bool:
        with served.request(events_request(served.port) + "\n") as sock:
            return status(sock) == 200

    waiting.until(admitted, "the closed streams' slots freed", alive=[served.proc])


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
    with httpx.stream("GET", served.url.rstrip("/") + path, headers=fields,
                      timeout=waiting.scaled(30)) as answer:
        assert answer.status_code == code
        if code == 403:
            assert answer.read() == b'{"error":"cross-site request refused"}'


def answers(sock: socket.socket) -> bytes:
    """Everything the server sends on `sock` until it closes it (or a minute of an idle
    machine's time of silence)."""
    sock.settimeout(waiting.scaled(60))
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
        sock.sendall(head.encode() + b"Content-Length: 100000\r\n\r\n")  # never all sent
    start = time.monotonic()
    trickle = {sock: head.encode() for sock in slow_head} | {sock: b"{" * 99_999 for sock in slow_body}
    open_ = set(trickle)

    def all_cut_off() -> bool:
        for sock in list(open_):
            if closed_by_server(sock):
                open_.discard(sock)
                continue
            try:
                sock.send(trickle[sock][:1])  # a byte at a time, between two looks
                trickle[sock] = trickle[sock][1:] or b" "
            except OSError:
                open_.discard(sock)
        assert httpx.get(served.url + "api/form", timeout=waiting.scaled(30)).status_code == 200
        return not open_

    waiting.until(all_cut_off, "every slow connection closed", alive=[served.proc])
    elapsed = time.monotonic() - start
    for sock in trickle:
        sock.close()
    assert elapsed >= REQUEST_S - 1  # none before its time
    lines = served.new_lines(wait_for="went away", count=20)
    assert len(lines) == 20 and all("the client went away" in line for line in lines), lines


# ------------------------------------------------------------------ numbers and nesting


@pytest.mark.parametrize("route", ["odds", "partial", "report", "replay"])
def test_an_integer_of_5000_digits_is_a_400(served, route):
    import httpx

    body = b'{"edits": {"roe.start": ' + b"9" * 5000 + b"}}"
    answer = httpx.post(served.url + "api/" + route, content=body, timeout=waiting.scaled(30),
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
    answer = httpx.post(served.url + "api/" + route, content=body.encode(),
                        timeout=waiting.scaled(30),
                        headers={"Content-Type": "application/json"})
    assert 400 <= answer.status_code < 500 or answer.status_code == 200, answer.text
    if answer.status_code >= 400 and answer.status_code != 422:
        assert set(answer.json()) == {"error"} and "\n" not in answer.text


# ------------------------------------------------------------------ a hammered stream


class Stream:
    """The page's event stream, read in a thread of its own: every snapshot it sends."""

    def __init__(self, url: str):
        self.url, self.snapshots, self.answer = url, [], None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        import httpx

        try:
            with httpx.stream("GET", self.url + "api/events", timeout=None) as answer:
                self.answer = answer
                for line in answer.iter_lines():
                    if line.startswith("data: "):
                        self.snapshots.append(json.loads(line[6:]))
        except Exception:  # noqa: BLE001 - closed by the test
            pass

    def done(self, job: int) -> bool:
        """Whether the finished odds of `job` or a later one have come."""
        return any(s.get("done") and s.get("job", 0) >= job for s in list(self.snapshots))

    def close(self) -> None:
        if self.answer is not None:
            self.answer.close()


def odds_request(port: int, body: dict) -> bytes:
    payload = json.dumps(body).encode()
    return (f"POST /api/odds HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: "
            f"application/json\r\nContent-Length: {len(payload)}\r\n\r\n").encode() + payload


VALID = [{"edits": {"tracks.tank_to_hit": v}, "policy": "historical", "params": {}}
         for v in range(6, 13)] + [
    {"edits": {"tracks.tank_to_hit": 9}, "policy": "fire_at_roe", "params": {"k": 14},
     "family": "fire_at_roe.k"},
    {"edits": {}, "policy": "historical", "params": {},
     "pinned": {"edits": {"tracks.tank_to_hit": 8}, "policy": "historical", "params": {}}}]
REFUSED = [  # 400: no page sends them; refused after the change is numbered
    {"policy": "nope"}, {"policy": "fire_at_roe", "params": {"k": 99}},
    {"policy": "historical", "edits": {"roe.nuke": 1}},
    {"policy": "historical", "pinned": {"policy": "historical", "evil": 1}},
    {"policy": "historical", "pinned": {"policy": "historical", "edits": {"roe.fire_allowed": 30}}}]
INVALID = {"edits": {"roe.fire_allowed": 30}, "policy": "historical"}  # 422: the loader's
FIND = {"edits": {}, "outcome": "defeat", "player": "historical", "comparison": "at_most",
        "value": 0.8, "keys": ["tracks.tank_to_hit"], "budget": 70_000}


def burst(served, rng, gone: bool, invalid: bool) -> list[tuple[str, object]]:
    """Ten requests or so at once, each on a connection of its own: (kind, status), the
    status None for a client that went away (mid-body; with `gone`, also after a whole
    valid change, its answer unread). `invalid`: invalid rules among them."""
    import httpx

    kinds = ["valid"] + rng.choices(["valid", "refused", "cut"] + ["invalid"] * invalid
                                    + ["gone"] * gone, k=rng.randint(2, 11))

    def send(kind: str):
        if kind in ("cut", "gone"):
            body = odds_request(served.port, rng.choice(VALID))
            with served.connect() as sock:
                sock.sendall(body[:-5] if kind == "cut" else body)
            return None
        body = rng.choice(VALID if kind == "valid" else REFUSED if kind == "refused"
                          else [INVALID])
        answer = httpx.post(served.url + "api/odds", json=body, timeout=waiting.scaled(120))
        return answer.status_code, answer.json()

    with concurrent.futures.ThreadPoolExecutor(len(kinds)) as pool:
        return list(zip(kinds, pool.map(send, kinds), strict=True))


def test_a_hammered_stream_answers_every_change(served):
    """Bursts of changes sent at once, a few hundred in all: valid ones, refused ones
    (400), invalid rules (422), clients gone mid-body or before their answer, and searches
    for a change cancelled at once. Every request is answered as its kind allows; "409, a
    later change replaced this one" only when a later change of its burst took effect;
    after every third burst (no invalid rules in it, which would stop the work) the stream
    brings the finished odds of its newest change; the server
    says nothing on its terminal but that the clients went away. (The stall: a valid
    change answered 409, a refused one having taken a number after it, and the stream
    sent only pings.)"""
    import random

    import httpx

    waiting.until(lambda: httpx.get(served.url + "api/form", timeout=waiting.scaled(60)
                                    ).json()["ready"], "the engine ready", alive=[served.proc])
    served.new_lines()
    stream, rng, sent, went_away = Stream(served.url), random.Random(45), 0, False
    allowed = {"valid": {200, 409}, "refused": {400}, "invalid": {422, 409}}
    try:
        for n in range(36):
            gone = n >= 24  # the last bursts: clients that go away, searches cancelled
            finding = gone and n % 3 == 0
            if finding:
                search = concurrent.futures.ThreadPoolExecutor(1).submit(
                    httpx.post, served.url + "api/find", json=FIND, timeout=waiting.scaled(600))
                waiting.until(lambda: any("find" in s for s in list(stream.snapshots)),
                              "the search started", alive=[served.proc])
            checked = n % 3 == 2
            answers = burst(served, rng, gone, invalid=not checked)
            sent += len(answers)
            if finding:
                assert httpx.post(served.url + "api/find/cancel", json={}).status_code == 200
                found = search.result()  # cancelled, or found before the cancel came
                assert found.status_code == 200 and {"cancelled", "sentence"} & set(found.json())
            for kind, answer in answers:
                assert answer is None or answer[0] in allowed[kind], (kind, answer)
            codes = [a[0] for _, a in answers if a is not None]
            went_away = went_away or any(k == "gone" for k, _ in answers)  # may come late
            took_effect = {200, 422} & set(codes) or went_away
            assert 409 not in codes or took_effect, f"burst {n}: 409 with nothing later {answers}"
            jobs = [a[1]["job"] for _, a in answers if a is not None and a[0] == 200]
            if checked and jobs:
                waiting.until(functools.partial(stream.done, max(jobs)),
                              f"burst {n}: job {max(jobs)} done", alive=[served.proc])
    finally:
        stream.close()
    assert sent >= 200
    said = served.new_lines()
    assert all("the client went away" in line for line in said), said
    assert served.proc.poll() is None


# ------------------------------------------------------------------ stopping


def test_sigterm_with_open_streams_prints_the_stop_line(tmp_path):
    """SIGTERM stops the server as Ctrl-C does, its last line said, while pages hold
    their event streams open."""
    server = Served(tmp_path)
    streams = [server.request(events_request(server.port) + "\n") for _ in range(3)]
    assert [status(sock) for sock in streams] == [200] * 3
    server.proc.send_signal(signal.SIGTERM)
    out, _ = waiting.communicate(server.proc, "the server to stop")
    assert server.proc.returncode == 0
    assert out.strip().endswith("bollesim serve: stopped"), (out, server.log.read_text())
    assert "Traceback" not in server.log.read_text()
    for sock in streams:
        sock.close()


# ------------------------------------------------------------------ the report


def test_the_report_lives_in_results_and_replays_after_the_server_stops(served):
    import httpx

    waiting.until(lambda: httpx.get(served.url + "api/form", timeout=waiting.scaled(60)
                                    ).json()["ready"], "the engine ready (a cold start compiles it)",
                  seconds=600, alive=[served.proc])
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # two at once: two folders
        replies = list(pool.map(lambda _: httpx.post(
            served.url + "api/report", json={"policy": "historical"},
            timeout=waiting.scaled(600)), range(2)))
    assert [a.status_code for a in replies] == [200, 200], [a.text for a in replies]
    urls = [a.json()["url"] for a in replies]
    tokens = [url.split("/")[2] for url in urls]
    assert tokens[0] != tokens[1] and all(re.fullmatch(r"whatif-\d{8}-\d{6}-[12]", t)
                                          for t in tokens), tokens
    url, token = urls[0], tokens[0]
    markdown = httpx.get(served.url + url.lstrip("/").replace(".html", ".md"),
                         timeout=waiting.scaled(30)).text
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
    done = waiting.run([sys.executable, "-m", "bollesim", *replay], cwd=served.folder,
                          capture_output=True, text=True, seconds=300)
    assert done.returncode == 0, done.stderr

