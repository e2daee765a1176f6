"""`bollesim serve`: bind the port, say where the page is, open it, serve until Ctrl-C.

The socket is bound here, before the web server starts, so a busy port is one `error:`
line and exit code 2. The page is served by uvicorn on that socket; a connection that has
not sent its whole request REQUEST_S seconds after it opened (or after its last answer) is
closed, so slow clients cannot hold the server. Ctrl-C (or SIGTERM) stops it cleanly: open
pages are closed, the engine thread stops after its piece; the reports written stay in
results/.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import sys
import threading
import webbrowser

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.serve.app import create_app
from bollesim.serve.state import Settings

DEFAULT_PORT = 8765
PROCESS_BYTES = 700 << 20
"""The server with the engine and its policies loaded (measured: about 560 MiB RSS)."""
BYTES_PER_GAME = 100
"""Memory per game of --max-games: the comparison's games, up to four default-ruleset
baselines and the trigger sweep, six rows of 13 bytes in all, with room to spare."""
REQUEST_S = 10.0
"""Seconds a connection has to send a whole request, its headers and its body (a page's
request is sent in milliseconds)."""


class TimedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol that closes a connection which has not sent a whole
    request `request_s` seconds after it opened or after its last answer (uvicorn's own
    keep-alive timer restarts at every byte, so a client sending a byte at a time would
    hold the connection for ever)."""

    request_s = REQUEST_S

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._deadline = self.loop.call_later(self.request_s, self._too_slow)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._deadline.cancel()
        self._deadline = self.loop.call_later(self.request_s, self._too_slow)

    def connection_lost(self, exc) -> None:
        self._deadline.cancel()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        if self.conn.their_state is not h11.DONE and not self.transport.is_closing():
            self.transport.close()  # an application reading the body sees the client gone


def bind(host: str, port: int) -> tuple[socket.socket, bool]:
    """A listening socket on host:port (port 0: any free one) and whether it is loopback."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"--host {host!r}: not an address of this machine ({exc})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(64)
    except OSError as exc:
        sock.close()
        if exc.errno == 98:  # EADDRINUSE
            raise UsageError(f"port {port} on {host} is in use (another server?): give "
                             "another with --port, or --port 0 for any free one") from None
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror})") from None
    return sock, ipaddress.ip_address(address[0]).is_loopback


def has_display() -> bool:
    """Whether a graphical browser can open here (elsewhere webbrowser would start a text
    browser on the server's own terminal)."""
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def serve(game: Game, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
          open_browser: bool = True, best: dict | None = None, max_games: int = 100_000,
          seed: int = 1) -> None:
    """Serve the what-if page of the game until Ctrl-C."""
    import uvicorn

    from bollesim.resources import check_memory

    check_memory(PROCESS_BYTES + max_games * BYTES_PER_GAME,
                 f"bollesim serve --max-games {max_games:,}", "give a smaller --max-games")
    sock, loopback = bind(host, port)
    if not loopback:
        print(f"warning: serving on {host}, beyond this machine: anyone who can reach it can "
              "use the page and its CPU (the default, 127.0.0.1, serves this machine only)",
              file=sys.stderr)
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    url = f"http://{shown}:{bound[1]}/"
    app = create_app(Settings(game, max_games=max_games, seed=seed, best=best,
                              loopback=loopback))
    config = uvicorn.Config(app, http=TimedProtocol, log_level="warning", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=2)
    print(f"bollesim serve: the what-if page is at {url} (Ctrl-C to stop)", flush=True)
    if open_browser and has_display():
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    elif open_browser:
        print("bollesim serve: no display here to open a browser on: open the address above "
              "in one", flush=True)
    class Uvicorn(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            app.state.server.closing()
            super().handle_exit(sig, frame)

    # uvicorn raises the signal that stopped it again once it has stopped: SIGTERM then
    # ends here as Ctrl-C does, not the process before its last line.
    term = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        Uvicorn(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        signal.signal(signal.SIGTERM, term)
    print("bollesim serve: stopped", flush=True)
