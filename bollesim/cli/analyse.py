"""`bollesim analyse`: luck and errors of one game, or of many (bollesim/strong/analysis.py,
docs/analyse.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bollesim.batch.manifest import json_bytes
from bollesim.cli.chosen import Chosen
from bollesim.cli.options import ParamOption, RulesOption, policy_params
from bollesim.cli.output import emit
from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError
from bollesim.strong.estimates import MANY_ROLLOUTS
from bollesim.strong.estimates import ROLLOUTS as DEFAULT_ROLLOUTS
from bollesim.terminal import printable


@command(
    app,
    epilog=examples(
        "bollesim analyse -P $baseline --seed 7",
        "bollesim analyse -P $baseline --seed 7 --index 3 --json > game.json",
        "bollesim analyse --from results/$baseline-seed1 --index 41",
        "bollesim analyse --from results/$baseline-seed1 -n 200",
        "bollesim analyse -P $baseline -n 100 --objective $loss",
        "bollesim analyse --from results/$baseline-seed1 -n 200 --value learned",
    ),
)
def analyse(
    chosen: Chosen,
    policy: Annotated[str | None, typer.Option(
        "--policy", "-P", metavar="POLICY", help="The policy that plays the games.",
        show_default=False)] = None,
    seed: Annotated[int, typer.Option(help="Run seed.", min=0)] = 1,
    index: Annotated[int | None, typer.Option(
        "--index", help="The game's index within the run (one game).", min=0,
        show_default=False)] = None,
    games: Annotated[int | None, typer.Option(
        "--games", "-n", help="Many games: the first N (of the run folder with --from).",
        min=1, show_default=False)] = None,
    from_: Annotated[Path | None, typer.Option(
        "--from", metavar="DIR", help="A run folder: its games, policy, seed and ruleset.",
        show_default=False)] = None,
    param: ParamOption = None,
    rules: RulesOption = None,
    player: Annotated[str | None, typer.Option(
        metavar="POLICY", help="The stated player, whose play from each point values it "
        "(default: the game's strong player).", show_default=False)] = None,
    objective: Annotated[str | None, typer.Option(
        metavar="OUTCOME", help="The outcome whose probability is the unit (default: the "
        "game's main outcome).", show_default=False)] = None,
    value: Annotated[str, typer.Option(
        "--value", metavar="rollouts|learned", help="How options are valued: rollouts, or "
        "a learned value V fitted and calibrated against rollouts on held-out states, "
        "standing in for them where its calibration allows (docs/analyse.md).")] = "rollouts",
    value_games: Annotated[int, typer.Option(
        min=1, help="With --value learned: the games whose decisions V is fitted on.")] = 200,
    own_games: Annotated[int, typer.Option(
        min=0, help="With --value learned: the stated player's own games V is fitted on "
        "besides.")] = 5000,
    check_games: Annotated[int, typer.Option(
        min=1, help="With --value learned: the held-out games whose decisions check V.")] = 40,
    rollouts: Annotated[int | None, typer.Option(
        min=2, help=f"Rollouts per option and per outcome (default: {DEFAULT_ROLLOUTS} for "
        f"one game, {MANY_ROLLOUTS} for many).", show_default=False)] = None,
    per_draw: Annotated[bool, typer.Option(
        "--per-draw", help="Many games: each declared draw's luck (the chart by kind of "
        "draw), at about 1.6 times the CPU; by default many games take the chance between "
        "two decisions as one event (one game: always draw by draw).")] = False,
    json_: Annotated[bool, typer.Option(
        "--json", help="One JSON document: the game's (docs/game.schema.json) with its "
        "analysis, or the many games' totals and split.")] = False,
) -> None:
    """Analyse luck and errors as backgammon programs do: each decision's error (the best
    option's probability of the objective minus the taken one's) and each draw's luck
    (the probability after the outcome minus its expectation over the outcomes).

    One game (--index, or -P POLICY --seed S alone), or many (-n N, or a run folder):
    each game's luck and error totals, and the share of the outcome's variance that is
    luck and that is the player's. Many games of a run folder are saved into it:
    analysis.json, analysis.md and analysis.html with the chart of where results are
    decided (analysis-swings.png); `bollesim report DIR` then has a section of them.
    --value learned fits V, prints its calibration, and saves it (analysis-value.json).
    """
    game = chosen.of_folder(from_) if from_ is not None else chosen.game
    if index is not None and games is not None:
        raise UsageError("--index analyses one game and -n many: give one of them")
    if (from_ is None) == (policy is None):
        raise UsageError("name the games: -P POLICY (with --seed), or --from DIR")
    if from_ is not None and (param or rules is not None):
        raise UsageError("--from takes the folder's policy, parameters and ruleset: drop "
                         "-p and --rules")
    if value not in ("rollouts", "learned"):
        raise UsageError(f"--value must be rollouts or learned, not {value!r}")
    many = games is not None or (from_ is not None and index is None)
    run = None
    if from_ is not None:
        from bollesim.batch.runfolder import open_run

        run = open_run(from_, game)
    analyst = _analyst(game, run, rules, player, objective,
                       rollouts or (MANY_ROLLOUTS if many else DEFAULT_ROLLOUTS),
                       per_draw or not many)
    if run is not None:
        picked = _folder_games(game, run, index, games)
    else:
        played = _decider(game, policy)
        vector = policy_params(played, param)
        numbers = range(games) if many else [index or 0]
        picked = [(played, vector, seed, g) for g in numbers]
    if value == "learned":
        analyst = _learned(analyst, picked[0], (value_games, own_games, check_games), json_)
    if many:
        _many(game, analyst, picked, json_, run)
    else:
        _one(game, analyst, *picked[0], json_)


def _decider(game, name: str):
    from bollesim.game.policy import DecidePolicy, load_policy

    chosen = load_policy(name, game)
    if not isinstance(chosen, DecidePolicy):
        raise UsageError(f"policy {name!r} plays whole games itself: its decisions cannot be "
                         "analysed (choose a policy the engine asks at each decision)")
    return chosen


def _analyst(game, run, rules_path, player, objective, rollouts, draws=True):
    from bollesim.batch.source import RulesetSource
    from bollesim.strong.analysis import Analyst, objective_of

    game.positions_module  # noqa: B018  a game without decision points is refused here
    name = player or game.strong
    if not name:
        raise UsageError(f"{game.title} declares no strong player: name the player whose "
                         "play values each point with --player POLICY")
    stated = _decider(game, name)
    if run is not None:
        from bollesim.batch.manifest import cell_ruleset

        manifest = run.manifest
        if manifest.get("n_cells", 1) > 1:
            raise UsageError(f"{run.path} is a sweep of {manifest['n_cells']} cells: analyse "
                             "the games of a plain run")
        ruleset = cell_ruleset(manifest, run.path, 0)
    else:
        ruleset = RulesetSource.from_options(game, rules_path, None, None, None).load(game)
    return Analyst(game, ruleset, stated, stated.param_vector(),
                   objective_of(game.result, objective), rollouts, draws=draws)


def _learned(analyst, first: tuple, games: tuple[int, int, int], json_: bool):
    """The learned value's analyst (strong/learned.py): V fitted on the games (fit, own,
    check) the first game's policy plays and the stated player's own, calibrated on
    others, the calibration said."""
    from bollesim.strong.learned import learned_analyst

    policy, vector, seed, _ = first
    typer.echo(f"fitting V on {games[0]} games of {policy.name} and {games[1]} of "
               f"{analyst.stated.base.name}, checking it on {games[2]} others...", err=json_)
    try:
        return learned_analyst(analyst, policy, vector, seed, *games,
                               say=lambda line: typer.echo(printable(line), err=json_))
    except ValueError as exc:
        raise UsageError(f"--value learned: {exc}") from None


def _folder_games(game, run, index: int | None, games: int | None) -> list[tuple]:
    from bollesim.batch.replay import find_row, row_params

    if index is not None:
        rows = [find_row(run.path, index, game=game)[0]]
    else:
        table = run.collect(run.scan().sort("game"))
        rows = table.head(games or table.height).iter_rows(named=True)
    out = []
    for row in rows:
        played = _decider(game, str(row["policy"]))
        out.append((played, row_params(played, row), int(row["seed"]), int(row["game"])))
    return out


def _one(game, analyst, policy, vector, seed: int, index: int, json_: bool) -> None:
    from bollesim.strong.account import Teller, document

    analysis = analyst.analyse(policy, vector, seed, index, tell=True)
    if json_:
        doc = (game.game_document(analyst.rules, policy, vector, seed, index) if game.narration
               else {"policy": policy.name, "seed": seed, "game": index,
                     "result": game.result.row(analysis.row)})
        emit({**doc, "analysis": document(analyst, analysis)})
        return
    played = f"{policy.name} ({_params_text(policy, vector)})" if policy.parameters else policy.name
    typer.echo(printable("\n".join(Teller(analyst).lines(analysis, played))))


def _params_text(policy, vector) -> str:
    return ", ".join(f"{p.name} {p.text(v)}" for p, v in zip(policy.parameters, vector,
                                                              strict=True))


def _many(game, analyst, picked: list[tuple], json_: bool, run) -> None:
    """Many games: each game's totals as it is done, then the split; the games of a run
    folder (`run`) save their analysis into it (_save)."""
    import time

    from bollesim.batch.workspace import Workspace
    from bollesim.strong.split import split_lines, summary, totals, variance_split

    if run is not None:
        with Workspace(run.path):  # a busy folder is refused now, not after the work
            pass
    started, analyses = time.monotonic(), []
    for a in analyst.analyse_all(picked):
        analyses.append(a)
        if not json_:
            typer.echo(f"game {a.game}: {a.outcome:g}  start {a.start.value:.3f}  luck "
                       f"{a.luck.value:+.3f}  errors {a.errors:.3f}  residual {a.residual:+.3f}")
    table = totals(analyses)
    split = variance_split(table, analyst.confidence)
    seconds = time.monotonic() - started
    played = list(dict.fromkeys(p.name for p, *_ in picked))
    doc = {"game": game.name, "data_sha256": run and run.manifest["data_sha256"],
           **summary(analyst, analyses, played, table, split), "seconds": round(seconds, 2)}
    if not json_:
        typer.echo(f"Odds under {analyst.stated.base.name}, by {doc['values_words']}; "
                   f"{seconds:.1f} s ({seconds / max(1, len(picked)):.2f} s a game).")
        typer.echo("\n".join(split_lines(table, split, analyst.objective.label)))
    if run is not None:
        more = {name: json_bytes(d) for name, d in analyst.files(doc).items()} \
            if hasattr(analyst, "files") else {}
        names = _save(game, run, doc, more)
        typer.echo(printable(f"wrote {', '.join(names)} into {run.path}"), err=json_)
    if json_:
        emit(doc)


def _save(game, run, doc: dict, more: dict) -> list[str]:
    """Write the analysis into its run folder (report/luck.analysis_files, and the files
    `more`: a learned value's), all its files or none, holding the folder's lock;
    refused if a run replaced the games meanwhile."""
    from bollesim.batch.durable import write_together, writing
    from bollesim.batch.runfolder import open_run
    from bollesim.batch.workspace import Workspace
    from bollesim.report.luck import analysis_files

    files = analysis_files(doc, game, run.path)
    files.update(more)
    with Workspace(run.path):
        if open_run(run.path, game).manifest["data_sha256"] != doc["data_sha256"]:
            raise UsageError(f"{run.path} holds other games than those analysed (a run "
                             "replaced them meanwhile): analyse them again")
        with writing(run.path):
            write_together(run.path, files)
    return list(files)
