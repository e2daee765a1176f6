"""The what-if page's "luck and the player": the page's own games analysed as `bollesim
analyse -n N` analyses a run's (strong/analysis.py, strong/split.py, docs/analyse.md).

    POST /api/luck          {edits, policy, params, games}: the first `games` games of the
                            page's seed, played by `policy` (with `params`) under the edited
                            rules, analysed under the game's strong player: the share of
                            the outcome's variance that is luck and that is the player's,
                            with intervals, in one sentence, and the costliest decisions
    POST /api/luck/cancel   {}: stop the analysis that is running

One analysis at a time, on the engine thread, its progress on the page's event stream as
{"luck": {games, budget}} (serve/background.py). The values are rollouts
(strong/estimates.MANY_ROLLOUTS an option, as `analyse -n`), so the same request gives the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from bollesim.errors import UsageError
from bollesim.serve import background
from bollesim.serve.edits import BadRequest

KIND = "luck"
FIELDS = {"edits", "policy", "params", "games"}
GAMES = (20, 50, 100, 200, 400)
"""The numbers of games the page offers, from a first look in seconds to intervals a
quarter as wide (DEFAULT is its default): about 0.3 s a game on two idle cores for
Bøllebank (docs/analyse.md)."""
DEFAULT = 100
SHOWN = 5
"""The costliest decisions the answer names."""


def defaults(game) -> dict | None:
    """What the page's panel offers, or None for a game without a strong player or
    decision points (no panel)."""
    if not game.strong:
        return None
    try:
        game.positions_module  # noqa: B018  raises for a game that declares no decisions
    except UsageError:
        return None
    from bollesim.strong.analysis import objective_of

    return {"games": list(GAMES), "default": DEFAULT, "stated_player": game.strong,
            "objective": objective_of(game.result).describe()["label"]}


@dataclass(frozen=True)
class Asked:
    """An analysis the page asked for: its analyst, its player and its games."""

    analyst: object
    policy: object
    vector: object
    seed: int
    budget: int  # games


def asked(server, body: dict):
    """The Asked of a request, or (None, the loader's errors) when the page's edits make
    no valid ruleset; BadRequest names anything else that is wrong."""
    from bollesim.game.policy import load_policy
    from bollesim.strong.analysis import Analyst, objective_of
    from bollesim.strong.estimates import MANY_ROLLOUTS

    game = server.game
    if defaults(game) is None:
        raise BadRequest(f"{game.title} declares no decisions with a strong player: "
                         "there is nothing to analyse")
    games = body.get("games", DEFAULT)
    if isinstance(games, bool) or games not in GAMES:
        raise BadRequest(f"games: expected one of {', '.join(map(str, GAMES))}, got "
                         f"{str(games)[:40]}")
    built, policy, params = server.setting(body)
    if built.rules is None:
        return None, built.errors
    stated = load_policy(game.strong, game)
    analyst = Analyst(game, built.rules, stated, stated.param_vector(),
                      objective_of(game.result), MANY_ROLLOUTS, draws=False)  # as analyse -n
    return Asked(analyst, policy, params, server.settings.seed, games), []


def run(server, job, it: Asked) -> dict:
    """The games analysed one by one (on the engine thread); the answer as JSON."""
    from bollesim.report.luck import sentence
    from bollesim.strong.split import summary, totals, variance_split

    analyses = []
    for g in range(it.budget):
        analyses.append(it.analyst.analyse(it.policy, it.vector, it.seed, g))
        job.progress(server, 1)
    table = totals(analyses)
    doc = summary(it.analyst, analyses, [it.policy.name], table,
                  variance_split(table, it.analyst.confidence))
    return {"sentence": sentence(doc), "split": doc["split"], "games": it.budget,
            "seed": it.seed, "policy": it.policy.name, "values_words": doc["values_words"],
            "objective": doc["objective"]["label"], "stated_player": doc["stated_player"],
            "costliest": doc["costliest"][:SHOWN],
            "decisions": int(table["decisions"].sum()),
            "errors_called": int(table["errors_called"].sum())}


ROUTES = background.routes(KIND, FIELDS, "an analysis of luck", asked, run)
