"""A sensitivity run (`bollesim sensitivity SPEC`): the experiment's cells as specified, then
the same cells under each alternative reading in turn, as one sweep on the same seeds
(stats/sensitivity.py says how its cells are laid out and measured)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bollesim.batch.spec import Cell, Experiment, changed_ruleset
from bollesim.errors import UsageError
from bollesim.game.declaration import Game, Ruleset


def alternatives(game: Game, rules: Ruleset, only: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(reading id, variant) of every variant other than the one the game's `rules` plays,
    readings in declaration order (only the ids in `only`, if given; UsageError for an
    unknown id or one without alternatives)."""
    rulebook = game.rulebook
    BY_ID = rulebook.READINGS
    for rid in only or ():
        if rid not in BY_ID:
            raise UsageError(f"--only {rid}: unknown reading; {rulebook.ids_hint(rid)}")
        if not BY_ID[rid].alternatives:
            raise UsageError(f"--only {rid}: {rid} has no alternative ({BY_ID[rid].fixed})")
    chosen = [r for r in BY_ID.values() if only is None or r.id in only]
    return [(r.id, v.name) for r in chosen if r.alternatives
            for v in r.variants() if v.name != rules.readings[r.id]]


def with_strong(experiment: Experiment) -> Experiment:
    """The experiment with the game's strong player (Game.strong) put the same question:
    for each trigger family it sweeps (Trigger.strong), a cell of the strong player at
    each of the family's swept values, after the experiment's own cells. UsageError when
    the game has no strong player or the experiment sweeps no such family."""
    from bollesim.game.policy import load_policy

    game = experiment.game
    if not game.strong:
        raise UsageError(f"--strong: {game.title} declares no strong player")
    strong = load_policy(game.strong, game)
    cells = list(experiment.cells)
    for trigger in (t for t in game.triggers if t.strong):
        values = sorted({float(c.param_dict()[trigger.param]) for c in experiment.cells
                         if c.policy.name == trigger.policy and not c.per_game})
        cells += [Cell(len(cells) + i, strong, strong.param_vector({trigger.strong: v}))
                  for i, v in enumerate(values)]
    if len(cells) == len(experiment.cells):
        raise UsageError(f"--strong: {experiment.path} sweeps no trigger the strong player "
                         f"takes (" + ", ".join(t.id for t in game.triggers if t.strong) + ")")
    return replace(experiment, cells=tuple(cells))


def sensitivity_experiment(experiment: Experiment, only: Sequence[str] | None = None,
                           strong: bool = False) -> Experiment:
    """The experiment's cells as specified (with_strong's cells too, if `strong`), then
    under each alternative (module docstring), as one experiment named NAME-sensitivity."""
    if strong:
        experiment = with_strong(experiment)
    if any(c.changes_rules for c in experiment.cells):
        raise UsageError(
            f"{experiment.path}: sensitivity plays every cell under each reading: give a spec "
            "whose grids have no rules or readings (fix them at its top: overrides, readings)")
    alts = alternatives(experiment.game, experiment.rules, only)
    if not alts:
        raise UsageError("no alternative reading to play (every reading asked is the one "
                         "the experiment plays)")
    n = len(experiment.cells)
    cells = list(experiment.cells)
    for v, (rid, variant) in enumerate(alts, 1):
        ruleset = changed_ruleset(experiment.game, experiment.rules, {}, {rid: variant})
        cells += [Cell(v * n + c.cell, c.policy, c.params, {}, {rid: variant}, ruleset)
                  for c in experiment.cells]
    layout = {"cells_per_ruleset": n, "alternatives": [f"{r}={v}" for r, v in alts]}
    return Experiment(
        name=f"{experiment.name}-sensitivity", game=experiment.game,
        description=f"{experiment.name} under each alternative reading of the rules"
        + (f": {experiment.description}" if experiment.description else ""),
        seed=experiment.seed, games=experiment.games, cells=tuple(cells),
        rules=experiment.rules, ruleset_source=experiment.ruleset_source,
        path=experiment.path, spec=experiment.spec, sensitivity=layout)
