"""Luck and the player: the many-games analysis of a run folder (`bollesim analyse --from
DIR -n N`, strong/split.summary) in words, as the folder's analysis.json, analysis.md and
analysis.html, and as the balance report's section of that name (docs/analyse.md)."""

from __future__ import annotations

import shlex
from pathlib import Path

from bollesim.batch.manifest import json_bytes
from bollesim.batch.runfolder import ANALYSIS, ANALYSIS_JSON
from bollesim.game.declaration import Game
from bollesim.report import chartdata, plots
from bollesim.report.document import Report, pages

TITLE = "Luck and the player"
NEEDED = ("played_by", "stated_player", "objective", "values", "values_words", "confidence",
          "n_games", "games", "split", "swings", "costliest")
"""The fields of analysis.json the section reads."""


def share(s: dict) -> str:
    """A share of the variance and its interval: "72% (24%..121%)"."""
    return f"{s['value']:.0%} ({s['low']:.0%}..{s['high']:.0%})"


def sentence(doc: dict) -> str:
    """The split in one sentence."""
    stated, label = doc["stated_player"], doc["objective"]["label"]
    split = doc["split"]
    if split is None:
        return (f"Under {stated}, '{label}' came out the same in all {doc['n_games']:,} games: "
                "there is no variance to split.")
    played = ", ".join(doc["played_by"])
    said = (f"Under {stated}, {share(split['luck'])} of the variance of '{label}' is luck, "
            f"{share(split['player'])} the player's (the errors of {played}), and "
            f"{share(split['rest'])} the rest (the start value and the residual).")
    if _own_values(doc["games"]):
        said += (f" These games were played by {stated} itself: each game's errors are its "
                 "own shortfall, which the residual holds, so the player's share comes back, "
                 "negated, in the rest's (up to the rollouts' noise): by its own values, its "
                 "choices move nothing.")
    return said


def _own_values(games: list[dict]) -> bool:
    """Whether the games were played by the stated player itself: then every decision took
    its choice, and each game's errors are its shortfall (to rounding)."""
    try:
        return bool(games) and all(abs(g["errors"] - g["shortfall"]) < 1e-5 for g in games)
    except (KeyError, TypeError):  # a file of an older or crafted analysis: not said
        return False


def _numbers(games: list[int]) -> str:
    first, last = min(games), max(games)
    return (f"games {first}..{last}" if len(games) == last - first + 1 else
            "games " + ", ".join(map(str, games[:10])) + (", ..." if len(games) > 10 else ""))


def section(rep: Report, doc: dict, game: Game, run_dir: str | Path, level: int = 2,
            heading: str = TITLE) -> None:
    """The analysis's blocks: the sentence, how its values were computed and which games,
    the totals, and the costliest decisions."""
    rows, n = doc["games"], doc["n_games"]
    rep.h(level, heading)
    rep.p(f"**{sentence(doc)}**")
    rep.p(f"Values: the probability of '{doc['objective']['label']}' if {doc['stated_player']} "
          f"plays on from each point, by {doc['values_words']}. {n:,} games analysed "
          f"({_numbers([r['game'] for r in rows])} of the run folder, played by "
          f"{', '.join(doc['played_by'])}); the shares' intervals at {doc['confidence']:.0%}, "
          "a percentile bootstrap over the games. Each game's result is its start value plus "
          "its luck minus its errors plus a residual; a share is that term's covariance with "
          "the result over the result's variance, so a share can be negative.")

    def mean(key: str) -> float:
        return sum(r[key] for r in rows) / max(1, n)

    called, decisions = sum(r["errors_called"] for r in rows), sum(r["decisions"] for r in rows)
    blunders = sum(r["blunders"] for r in rows)
    if doc["swings"]:
        chart = chartdata.swings(doc["swings"], n, game.result.turn, doc["values"] != "exact")
        rep.chart("swings", plots.draw(chart), f"Where results are decided: per "
                  f"{game.result.turn}, the swing per game of each kind of draw (its summed "
                  "absolute luck) and of each kind of decision (its summed errors).", chart)
    rep.p(f"Per game, on average: start {mean('start'):.3f}, luck {mean('luck'):+.3f}, errors "
          f"{mean('errors'):.3f}, residual {mean('residual'):+.3f}; result "
          f"{mean('outcome'):.3f}. Errors called (their interval excludes zero): {called:,} "
          f"of {decisions:,} decisions, {blunders:,} of them blunder{'s' * (blunders != 1)}.")
    costly = doc["costliest"]
    if not costly:
        rep.p("No decision's error is called in these games.")
        return
    turn = game.result.turn
    rep.p("The costliest decisions, the largest errors called across the games (the error: "
          "the best-looking option's value minus the taken one's, with its interval):")
    rep.table(["game", turn, "decision", "took", "against", "error (interval)", "mark"],
              [[f"{c['game']}", f"{c['turn']}", c["decision"], c["taken"], c["against"],
                f"{c['error']:.3f} ({c['low']:.3f}..{c['high']:.3f})", c["mark"]]
               for c in costly], right={0, 1, 5})
    objective = next(iter(doc["objective"]["weights"]))
    rep.p("Each in words, decision by decision: "
          f"`bollesim analyse --from {shlex.quote(str(run_dir))} --index {costly[0]['game']} "
          f"--player {doc['stated_player']} --objective {objective}`.")


def analysis_files(doc: dict, game: Game, run_dir: str | Path) -> dict[str, bytes]:
    """The files the analysis of a run folder's games writes into it: ANALYSIS_JSON and
    its pages (analysis.md, analysis.html)."""
    rep = Report(f"{TITLE}: {', '.join(doc['played_by'])} under {doc['stated_player']}")
    section(rep, doc, game, run_dir, level=1, heading=rep.title)
    return {**pages(rep, ANALYSIS), ANALYSIS_JSON: json_bytes(doc)}


def read_analysis(run_dir: str | Path, manifest: dict) -> dict | str | None:
    """The run folder's analysis.json; None where there is none; or why it cannot be used
    (unreadable, incomplete, or of games other than the folder's)."""
    from bollesim.inputs import MANIFEST_LIMIT, InputError, loads_json, read_text

    path = Path(run_dir) / ANALYSIS_JSON
    if not path.exists():
        return None
    try:
        doc = loads_json(read_text(path, MANIFEST_LIMIT))
    except InputError as exc:
        return f"{ANALYSIS_JSON} cannot be read ({exc.problem})"
    except ValueError as exc:  # not JSON, or beyond the limits
        return f"{ANALYSIS_JSON} cannot be read ({' '.join(str(exc).split())[:100]})"
    if not isinstance(doc, dict) or any(k not in doc for k in NEEDED):
        return f"{ANALYSIS_JSON} lacks the fields of an analysis"
    if doc.get("data_sha256") != manifest.get("data_sha256"):
        return f"{ANALYSIS_JSON} is of other games than the folder's"
    return doc
