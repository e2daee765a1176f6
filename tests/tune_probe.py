"""Run `bollesim tune`'s search and certification on a spec in a process of its own and
print what tests/test_tune.py checks, as JSON; the spec is Pig race's, the game that
tests/ on the path registers.

    PYTHONPATH=tests python tests/tune_probe.py SPEC
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import unquote


def probe(spec: Path) -> dict:
    from bollesim.batch.runner import simulate
    from bollesim.game.registry import load_game
    from bollesim.search.tune_answer import answer
    from bollesim.search.tune_report import page_address, patch_text
    from bollesim.search.tune_spec import load_tune
    from bollesim.serve.edits import build_ruleset

    game = load_game("pig")
    result = answer(load_tune(spec, game))
    out = {"sentence": result.sentence(), "no_change_needed": result.no_change_needed,
           "stage": result.found.stage, "trials": len(result.found.trials),
           "start_solution": result.start.solution,
           "held_out": [{name: {"seeds": sorted(set(games["seed"].to_list())),
                                "games": games["game"].to_list()}
                         for name, games in cert.games.items()}
                        for cert in [result.start, *(p.certificate for p in result.proposals)]]}
    best = result.solution
    if best is not None and best.trial.change:
        (estimate,) = best.certificate.estimates
        player = result.tune.players[estimate.target.players[0]]
        replay = simulate(player.policy, result.tune.holdout_games, result.tune.holdout_seed,
                          params=player.params, rules=best.rules)
        patch = spec.with_name("patch.toml")
        patch.write_text(patch_text(result, best, "a test"))
        state = json.loads(unquote(page_address(result, best)[1:]))
        out |= {"label": best.label, "keys": best.trial.keys,
                "estimate": [estimate.value, estimate.low, estimate.high],
                "replayed": float(replay[estimate.target.outcome].mean()),
                "page_state": state,
                "page_digest_matches":
                    build_ruleset(game, state["edits"]).rules.digest == best.rules.digest,
                "patch_digest_matches": game.load_ruleset(partial=patch).digest == best.rules.digest}
    return out


if __name__ == "__main__":
    print(json.dumps(probe(Path(sys.argv[1]))))
