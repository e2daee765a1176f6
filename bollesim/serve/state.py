"""The what-if page's server state: its settings, the latest snapshot of the odds, and
the server that holds the engine worker, the evaluation in progress and the reports written."""

from __future__ import annotations

import asyncio
import json
import math
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bollesim.errors import UsageError
from bollesim.game.declaration import Game, Trigger
from bollesim.serve import odds
from bollesim.serve.edits import BadRequest, build_ruleset, check_edits
from bollesim.serve.worker import EngineWorker


def _say_if_failed(future) -> None:
    if not future.cancelled() and future.exception() is not None:
        print(f"bollesim serve: the engine could not start: {future.exception()!r}",
              file=sys.stderr)


@dataclass
class Settings:
    """What `bollesim serve` was started with: the game the page serves, and its limits."""

    game: Game
    max_games: int = 100_000
    seed: int = 1
    best: dict | None = None  # {"policy", "params", "folder"} of --from (best.py)
    loopback: bool = True
    results: Path = Path("results")  # where the reports' run folders are kept


@dataclass
class Latest:
    """The latest snapshot as JSON, published by the engine thread (which also writes the
    JSON, off the event loop) and awaited by the event streams."""

    loop: asyncio.AbstractEventLoop
    value: str | None = None
    version: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, snapshot: dict) -> None:
        """From any thread."""
        try:
            text = json.dumps(snapshot, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            print(f"bollesim serve: a snapshot could not be sent: {exc}", file=sys.stderr)
            return
        self.loop.call_soon_threadsafe(self._set, text)

    def _set(self, text: str) -> None:
        self.value, self.version = text, self.version + 1
        self.changed.set()
        self.changed = asyncio.Event()

    async def after(self, version: int, timeout: float) -> tuple[str | None, int]:
        """The snapshot newer than `version`, or (None, version) after `timeout` seconds."""
        if self.version == version:
            try:
                await asyncio.wait_for(self.changed.wait(), timeout)
            except TimeoutError:
                return None, version
        return self.value, self.version


class Server:
    """The state behind the routes: the game served, the engine thread, the policies, the
    reports. Each app holds its own, so one process can serve two games side by side."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.game = settings.game
        self.policies: dict = {}
        self._loading = threading.Lock()
        self.job = 0
        self.changes = 0  # /api/odds requests numbered as they arrive: the newest is evaluated
        self.applied = 0  # the newest that took effect (evaluated, or stopped the work: 422)
        self.streams = 0  # event streams admitted and not yet ended
        self.reports: dict[str, Path] = {}  # the reports written: token (folder name) -> folder
        self.ready = threading.Event()
        self.stopping = False
        self.latest: Latest | None = None
        self.worker: EngineWorker | None = None
        self.baselines = None
        self.running: dict = {}  # kind -> the background.Job of that kind running, or None

    # -------------------------------------------------------------- lifecycle

    def start(self) -> None:
        self.latest = Latest(asyncio.get_running_loop())
        self.worker = EngineWorker(self.latest.publish)
        self.worker.start()
        self.baselines = odds.Baselines(self.game.load_ruleset())
        self.worker.submit(self._warm_up).add_done_callback(_say_if_failed)

    def closing(self) -> None:
        """Ctrl-C: tell the open pages and end their event streams (from any thread)."""
        self.stopping = True
        if self.latest is not None:
            self.latest.publish({"stopped": True})

    def stop(self) -> None:
        self.stopping = True
        if self.worker is not None:
            self.worker.stop()

    def _warm_up(self) -> None:
        """Load (or compile) the engine, the first policy, the strong player and the trigger
        families' before the first change; other policies load when first chosen."""
        first = (self.settings.best or self.game.opening)["policy"]
        strong = [self.game.strong] if self.game.strong else []
        for name in dict.fromkeys([first, *strong, *(f.policy for f in self.game.triggers)]):
            self.policy(name)
        for name in dict.fromkeys([first, *strong]):  # compiled before the first change
            policy = self.policies[name]
            odds.play(policy, policy.param_vector(), self.baselines.rules, self.settings.seed,
                      0, 1)
        self.ready.set()
        self.latest.publish({"ready": True})

    def policy(self, name):
        from bollesim.game.policy import available_policies, load_policy

        known = available_policies(self.game, deciding=True)  # the lookahead: far too slow here
        if name is None:
            raise BadRequest(f'no policy: the request needs "policy", one of {", ".join(known)}')
        if not isinstance(name, str) or name not in known:
            raise BadRequest(f"unknown policy {str(name)[:40]!r} (known: {', '.join(known)})")
        with self._loading:
            if name not in self.policies:
                self.policies[name] = load_policy(name, self.game)
        return self.policies[name]

    # -------------------------------------------------------------- requests

    def params(self, policy, raw) -> np.ndarray:
        if not isinstance(raw, dict):
            raise BadRequest("params: expected an object {name: number}")
        for name, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value):
                raise BadRequest(f"params: {str(name)[:40]!r} must be a number")
        try:
            return policy.param_vector(raw)
        except UsageError as exc:
            raise BadRequest(f"params: {exc}") from None

    def family(self, raw) -> Trigger:
        """The game's trigger family `raw` names (Trigger.id); None: the first of the
        headline question's families (Game.triggers)."""
        if raw is None:
            return self.game.triggers[0]
        for f in self.game.triggers:
            if raw == f.id:
                return f
        known = ", ".join(f.id for f in self.game.triggers)
        raise BadRequest(f"family: expected one of {known}")

    def setting(self, body: dict):
        """(edits.Built: the ruleset or the loader's errors, policy, parameter vector) of a
        request; BadRequest for anything no page sends."""
        edits = check_edits(self.game, body.get("edits", {}))
        policy = self.policy(body.get("policy"))
        params = self.params(policy, body.get("params", {}))
        built = build_ruleset(self.game, edits)
        return built, policy, params

    def pinned(self, raw) -> odds.Setting | None:
        """The pinned setting A of a request ({edits, policy, params}), or None."""
        if raw is None:
            return None
        if not isinstance(raw, dict) or set(raw) - {"edits", "policy", "params"}:
            raise BadRequest("pinned: expected an object {edits, policy, params}")
        built, policy, params = self.setting(raw)
        if built.rules is None:
            raise BadRequest(f"pinned: {built.errors[0]['message']}")
        return odds.Setting(built.rules, policy, params)

    def evaluation(self, rules, policy, params, family: Trigger,
                   pinned: odds.Setting | None = None) -> odds.Evaluation:
        self.job += 1
        family_policy = self.policy(family.policy)
        family_params = params if family_policy is policy else family_policy.param_vector()
        strong = None
        if self.game.strong and self.game.strong != policy.name:
            strong_policy = self.policy(self.game.strong)
            strong = odds.Setting(rules, strong_policy, strong_policy.param_vector())
        return odds.Evaluation(self.game, self.job, rules, policy, params, self.settings.seed, family,
                               family_policy, family_params, self.settings.max_games,
                               self.baselines, pinned, strong)
