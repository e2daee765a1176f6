"""The what-if page's "find a change": one target, searched and certified by `bollesim
tune`'s own code (search/tune.py, certify.py, tune_answer.py) from the page's current rules.

    POST /api/find          {edits, outcome, player, params, comparison, value, tolerance,
                            keys, budget}: the smallest change of the allowed keys after
                            which `player` (a policy of the page, with `params`) has
                            `outcome` at `comparison` `value` (equals: ± tolerance); the
                            answer is the tune's sentence, the starting rules' and the best
                            change's held-out estimates and the change as the page's edits
    POST /api/find/cancel   {}: stop the search that is running

The request becomes a tune spec's table (the page's edits as its `overrides`, one target,
the keys, the budget) checked by tune_spec.tune_of, so a target or a key the page may ask
for is exactly one a spec may name, with the same message when it may not (a 400 here).
One search runs at a time, on the engine thread, its progress on the page's event stream
as {"find": {games, budget}} (serve/background.py); a second request is refused (429)
until it ends.
"""

from __future__ import annotations

from bollesim.batch.spec import Spec
from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.game.patch import changed_units, value_at
from bollesim.serve import background
from bollesim.serve.edits import BadRequest, assignments, build_ruleset, check_edits

KIND = "find"  # its name on the event stream and among the server's running work
FIELDS = {"edits", "outcome", "player", "params", "comparison", "value", "tolerance", "keys",
          "budget"}
COMPARISONS = ("equals", "at_least", "at_most")
BUDGET = (70_000, 150_000, 600_000)
"""Games a search may play in all, certification included: (least, default, most). The
default answers the apprentice in about 20 s on two loaded cores (docs/tune.md)."""
DEFAULT_TOLERANCE = 0.02
MAX_KEYS_LISTED = 16
"""Keys one request may allow (the search tries each, then each pair)."""
SPEC = {"trial_games": 6_000, "holdout_games": 10_000, "max_keys": 2, "proposals": 3,
        "candidates": 40}
"""The tune spec's counts for the page: a spec's rungs (666, 2,000 and 6,000 games: fewer
let a change meet the target on the search games by luck alone), the proposals and the
starting rules certified on 10,000 held-out games each (±1 point at 50%)."""


class RequestSpec(Spec):
    """A spec built from a request of the page of a game: a problem is `FIELD: problem`,
    the field as the page names it."""

    def __init__(self, game: Game):
        super().__init__(None, game)

    def fail(self, key: str, problem: str):
        key = key.removeprefix("targets[0]").lstrip(".").removeprefix("players.page.")
        raise BadRequest(f"{'value' if key in COMPARISONS else key or 'target'}: {problem}")
def defaults(game: Game) -> dict:
    """What the page's panel offers: the outcomes (the game's declared result), the
    comparisons, the keys searched unless told otherwise, the budget's range."""
    result = game.result
    return {"outcomes": [{"outcome": o, "label": result.labels.get(o, o)}
                         for o in result.outcome_names],
            "comparisons": list(COMPARISONS), "keys": list(game.find_keys),
            "budget": {"low": BUDGET[0], "default": BUDGET[1], "high": BUDGET[2]},
            "tolerance": DEFAULT_TOLERANCE, "holdout_games": SPEC["holdout_games"]}


def tune_of_request(server, body: dict):
    """The Tune of a request (search.tune_spec), or (None, the loader's errors) when the
    page's edits make no valid ruleset; BadRequest names anything else that is wrong."""
    from bollesim.search.tune_spec import tune_of

    game = server.game
    edits = check_edits(game, body.get("edits", {}))
    built = build_ruleset(game, edits)
    if built.rules is None:
        return None, built.errors
    try:
        policy = server.policy(body.get("player"))  # a policy the page plays
    except BadRequest as exc:
        raise BadRequest(f"player: {exc}") from None
    params = server.params(policy, body.get("params", {}))
    comparison = body.get("comparison", "equals")
    if comparison not in COMPARISONS:
        raise BadRequest(f"comparison: expected one of {', '.join(COMPARISONS)}")
    target = {"outcome": body.get("outcome"), "player": "page", comparison: body.get("value")}
    if comparison == "equals":
        target["tolerance"] = body.get("tolerance", DEFAULT_TOLERANCE)
    elif "tolerance" in body:
        raise BadRequest("tolerance: only with equals")
    budget = body.get("budget", BUDGET[1])
    if isinstance(budget, bool) or not isinstance(budget, int) \
            or not BUDGET[0] <= budget <= BUDGET[2]:
        raise BadRequest(f"budget: expected a whole number of games from {BUDGET[0]:,} to "
                         f"{BUDGET[2]:,}, got {str(budget)[:40]}")
    keys = body.get("keys", list(game.find_keys))
    if not isinstance(keys, list) or not keys or len(keys) > MAX_KEYS_LISTED \
            or not all(isinstance(k, str) and len(k) <= 100 for k in keys):
        raise BadRequest(f"keys: expected a list of 1 to {MAX_KEYS_LISTED} keys of the ruleset "
                         "as a tune spec's [keys] names them (docs/tune.md)")
    seed = server.settings.seed
    data = {**SPEC, "seed": seed, "holdout_seed": (seed + 1) % 2**63, "budget": budget,
            "overrides": assignments(game, edits),
            "players": {"page": {"policy": policy.name, "label": f"{policy.name} policy",
                                 "params": {p.name: v for p, v in
                                            zip(policy.parameters, params.tolist(), strict=True)}}},
            "targets": [target], "keys": dict.fromkeys(keys, True)}
    try:
        return tune_of(RequestSpec(game), data, "find-a-change"), []
    except UsageError as exc:  # a message of the loader, read from a spec's key
        raise BadRequest(str(exc)) from None


def run(server, job, tune) -> dict:
    """Search and certify (on the engine thread); the answer as JSON."""
    from bollesim.search.tune_answer import answer

    return answer_json(answer(tune, progress=lambda games: job.progress(server, games)))


def answer_json(a) -> dict:
    """The sentence, the starting rules' and the best change's held-out estimate of the
    target, and the change as the page's edits (over the shipped rules: the page's partial
    format) with its patch."""
    from bollesim.search.tune_report import patch_text

    def estimate(cert) -> dict:
        (e,) = cert.estimates
        return {"value": e.value, "low": e.low, "high": e.high, "met": e.met, "sure": e.sure}

    best = a.solution or (a.proposals[0] if a.proposals and a.proposals[0].trial.change
                          else None)
    (target,) = a.tune.targets
    out = {"sentence": a.sentence(), "target": target.text, "no_change_needed":
           a.no_change_needed, "solution": a.solution is not None and not a.no_change_needed,
           "start": estimate(a.start), "holdout_games": a.tune.holdout_games,
           "holdout_seed": a.tune.holdout_seed, "search_seed": a.tune.seed,
           "changes_tried": len(a.found.trials), "games": a.found.games_searched
           + a.tune.holdout_games * (len(a.proposals) + 1), "change": None}
    if best is not None and not a.no_change_needed:
        out["change"] = {
            "label": best.label, "keys": best.trial.keys, **estimate(best.certificate),
            "solution": best.certificate.solution,
            "edits": {u: value_at(best.rules.data, u)
                      for u in changed_units(a.tune.game, best.rules)},
            "patch": patch_text(a, best, "the what-if page's find a change (bollesim serve)")}
    return out


ROUTES = background.routes(KIND, FIELDS, "a search for a change", tune_of_request, run)
