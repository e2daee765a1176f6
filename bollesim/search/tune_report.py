"""A tune's result folder: the answer as a ruleset patch, a report (Markdown and an
interactive HTML page, like optimise's) and the trials.

    patch.toml          the solution as a partial TOML over the shipped rules (game/patch.py:
                        the what-if page's format), read by `rules check --partial`,
                        `run --partial`; only when a change is a solution
    proposal-N.toml     every certified proposal, the same way (N from 1, smallest first)
    tune.md, tune.html  the sentence, the verdicts with 95% intervals, the binding target,
                        each proposal's effect on every outcome, the Pareto chart
    tune-pareto.png, tune-pareto.vl.json   change size against target error
    trials.csv          every change the search played, with its search estimates
    tune.json           the sentence and the certified estimates, for scripts
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl

from bollesim.game.patch import changed_units, partial_toml, value_at
from bollesim.search.optimise_report import report_html, report_markdown
from bollesim.search.tune import label
from bollesim.search.tune_answer import Answer, Proposal

STEM = "tune"
PATCH = "patch.toml"
ALTS = {"pareto": "change size against target error"}


def trials_table(a: Answer) -> pl.DataFrame:
    """One row per change played: its keys, distance, search games, target error on
    them (points), whether it met the targets and each target's estimate."""
    tune = a.tune
    rows = []
    for n, t in enumerate(a.found.trials):
        row = {"trial": n, "change": label(tune, t), "keys": t.keys, "distance": t.distance,
               "games": t.games, "error_points": 100 * t.error(tune) if t.means is not None else None,
               "met": t.meets(tune), "rejected": t.rejected, "refused": t.refused}
        for j, target in enumerate(tune.targets):
            row[target.text] = float(t.means[j]) if t.means is not None else None
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def pareto_spec(a: Answer) -> dict:
    """Every change played (its size against its target error on the search games, by
    keys changed), the front of the smallest errors for their size, and the certified
    proposals' errors on the held-out games."""
    import altair as alt

    table = trials_table(a).filter(pl.col("error_points").is_not_null())
    front, best = [], float("inf")
    for row in table.sort("distance", "error_points").iter_rows(named=True):
        if row["error_points"] < best:
            best = row["error_points"]
            front.append(row)
    held = [{"change": p.label, "distance": p.trial.distance,
             "error_points": 100 * max(-p.certificate.binding.margin, 0.0),
             "verdict": "solution" if p.certificate.solution else "miss"} for p in a.proposals]
    x = alt.X("distance:Q", title="change size (share of the declared ranges)")
    y = alt.Y("error_points:Q", title="target error (points outside the band)")
    searched = alt.Chart(alt.Data(values=table.to_dicts())).mark_point(opacity=0.6).encode(
        x=x, y=y, color=alt.Color("keys:N", title="keys changed", scale=alt.Scale(scheme="category10")),
        tooltip=["change:N", "games:Q", alt.Tooltip("error_points:Q", format=".2f")])
    line = alt.Chart(alt.Data(values=front)).mark_line(color="#d62728", interpolate="step-after"
                                                        ).encode(x="distance:Q", y="error_points:Q")
    certified = alt.Chart(alt.Data(values=held)).mark_point(
        shape="diamond", size=120, filled=True, color="black").encode(
        x="distance:Q", y="error_points:Q",
        tooltip=["change:N", "verdict:N", alt.Tooltip("error_points:Q", format=".2f")])
    chart = (searched + line + certified).properties(
        width=640, height=360,
        title={"text": f"Change size against target error: {a.tune.name}",
               "subtitle": ["dots: every change on the search games; red: the smallest error "
                            "for its size; black: proposals on the held-out games"]})
    return chart.to_dict()


def report(a: Answer):
    """The report's blocks (report.document.Report)."""
    from bollesim.report.document import Report, pct_ci

    tune, found = a.tune, a.found
    rep = Report(f"Inverse design: {tune.name}")
    rep.h(1, rep.title)
    rep.p(a.sentence())
    if tune.description:
        rep.p(tune.description)
    rep.p("Targets: " + "; ".join(t.text for t in tune.targets) + ". Keys the search may "
          "change: " + ", ".join(f"`{k.name}`" for k in tune.knobs) + f" (at most "
          f"{tune.max_keys} at once).")
    best = a.solution
    rejected = [p.label for p in a.proposals if p.trial.rejected]
    if rejected:
        rep.p("Met every target on the search games and missed on the held-out games: "
              + "; ".join(rejected) + ". After each, the search went on through the changes it "
              "had not tried, smallest first.")
    if best is not None and best.trial.change:
        rep.p(smallest_text(found.untried_below(best.trial)))
    rep.h(2, "Certified on held-out games")
    rep.p(f"Each proposal and the starting rules replayed on {tune.holdout_games:,} games of "
          f"seed {tune.holdout_seed}, never played by the search (seed {tune.seed}). A target "
          "is met when its estimate lies in its band, met at 95% when its whole 95% interval "
          "does (Wilson's interval for a rate, Newcombe's paired interval for a gap).")
    header = ["proposal", "change", "keys", "size", *(t.text for t in tune.targets),
              "binding target", "verdict"]
    rows = []
    for n, p in enumerate([None, *a.proposals]):
        cert = a.start if p is None else p.certificate
        cells = [f"{e.value * 100:+.1f} points ({e.low * 100:+.1f} to {e.high * 100:+.1f})"
                 if e.target.is_gap else pct_ci(e.value, e.low, e.high) for e in cert.estimates]
        marks = [("met at 95%" if e.sure else "met" if e.met else "missed") for e in cert.estimates]
        verdict = ("solution, met at 95%" if cert.sure else "solution" if cert.solution
                   else "not a solution")
        rows.append(["starting rules" if p is None else str(n),
                     "none" if p is None else p.label, "0" if p is None else str(p.trial.keys),
                     "0" if p is None else f"{p.trial.distance:.3f}",
                     *(f"{c}: {m}" for c, m in zip(cells, marks, strict=True)),
                     cert.binding.target.text, verdict])
    rep.table(header, rows, right={2, 3})
    for n, p in enumerate(a.proposals, 1):
        if not p.trial.change:
            continue
        rep.h(2, f"Proposal {n}: its effect on every outcome")
        rep.p(f"{p.label} (proposal-{n}.toml). To open it on the what-if page as the current "
              "setting, start `bollesim serve` and add this to the page's address: "
              f"`{page_address(a, p)}`. Every outcome of every player, the change's rate "
              "against the starting rules' on the same held-out games:")
        from bollesim.search.certify import effects

        table = effects(tune, a.start, p.certificate)
        rep.table(["player", "outcome", "starting rules", "with the change", "difference (95%)"],
                  [[r["player"], r["outcome"], f"{100 * r['before']:.1f}%",
                    f"{100 * r['after']:.1f}%",
                    f"{100 * r['diff']:+.1f} points ({100 * r['diff_low']:+.1f} to "
                    f"{100 * r['diff_high']:+.1f})"] for r in table.iter_rows(named=True)],
                  right={2, 3, 4})
    rep.h(2, "The search")
    changes = [t for t in found.trials if t.change]
    played = [t for t in changes if t.means is not None]
    keys = "1 key" if found.stage == 1 else f"1 to {found.stage} keys"
    tried = (f"{len(changes)} changes of {keys} tried ({len(played)} played, "
             f"{sum(t.kept for t in played)} to the end of {tune.trial_games:,} games, "
             f"{sum(t.meets(tune) for t in played)} meeting every target there)"
             if changes else "The starting rules met every target on the search games, so "
             "no change was tried")
    rep.p(f"{tried}: {found.games_searched:,} search games in {found.seconds:.0f} s; "
          f"certification {a.certify_seconds:.0f} s. Every change: trials.csv.")
    rep.p("Cost of each player on the held-out games (one run of "
          f"{tune.holdout_games:,} games): " + "; ".join(
              f"{tune.players[k].label} (`{tune.players[k].policy.name}`): "
              f"{tune.holdout_games / max(s, 1e-9):,.0f} games/s"
              for k, s in a.start.seconds.items()) + ".")
    return rep


def smallest_text(untried: int | None) -> str:
    """What the search has shown of the answer's size (Found.untried_below)."""
    if untried == 0:
        return ("It is the smallest change that meets every target: every smaller change of "
                "the allowed keys was played on the search games, and missed there or on the "
                "held-out games.")
    if untried is None:
        return ("It is the smallest change the search found, not shown to be the smallest: "
                "the larger sets of keys were sampled (optuna's TPE), not played whole.")
    changes = "1 smaller change was" if untried == 1 else f"{untried:,} smaller changes were"
    return (f"It is the smallest change the search found, not shown to be the smallest: "
            f"{changes} never played (the budget ran out).")


def write_result(a: Answer, out: Path, earlier: list[Path] = ()) -> dict:
    """Write the result folder (each file atomically), and remove the files of an earlier
    result there that this one does not write (an old patch.toml is no solution of this
    tune): workspace.claim_own_report found them. Returns tune.json's record."""
    from bollesim.files import atomic_write
    from bollesim.report import charts

    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes] = {}
    name = f"`bollesim tune {a.tune.path}`" if a.tune.path else "bollesim tune"
    for n, p in enumerate(a.proposals, 1):
        files[f"proposal-{n}.toml"] = patch_text(a, p, name).encode("utf-8")
    if a.solution is not None:
        files[PATCH] = patch_text(a, a.solution, name).encode("utf-8")
    buffer = io.BytesIO()
    trials_table(a).write_csv(buffer, float_precision=6)
    files["trials.csv"] = buffer.getvalue()
    specs = {"pareto": pareto_spec(a)}
    files[f"{STEM}-pareto.png"] = charts.png(specs["pareto"])
    files[f"{STEM}-pareto.vl.json"] = json.dumps(specs["pareto"]).encode("utf-8")
    rep = report(a)
    files[f"{STEM}.md"] = report_markdown(rep, specs, STEM, ALTS).encode("utf-8")
    files[f"{STEM}.html"] = report_html(rep, specs, ALTS).encode("utf-8")
    record = record_of(a)
    files[f"{STEM}.json"] = (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    for file, data in files.items():
        atomic_write(out / file, data)
    for path in earlier:
        if path.name not in files:
            path.unlink(missing_ok=True)
    return record


def page_address(a: Answer, p: Proposal) -> str:
    """The what-if page's address fragment that opens the change as its current setting,
    with the first target's player: the page keeps its whole state in its address
    (`#` and its state as JSON: policy, params, edits), so a link reopens it."""
    from urllib.parse import quote

    player = a.tune.players[a.tune.targets[0].players[0]]
    state = {"policy": player.policy.name, "params": player.params,
             "edits": {unit: value_at(p.rules.data, unit)
                       for unit in changed_units(a.tune.game, p.rules)}}
    return "#" + quote(json.dumps(state, separators=(",", ":")), safe="")


def patch_text(a: Answer, p: Proposal, written_by: str) -> str:
    verdict = "a solution" if p.certificate.solution else "NOT a solution (it misses on held-out games)"
    return partial_toml(a.tune.game, p.rules, written_by, (
        f"Change: {p.label}.",
        f"On {a.tune.holdout_games:,} held-out games it is {verdict}.",
        "Over the shipped rules; with the starting rules' own changes, if any."))


def record_of(a: Answer) -> dict:
    def estimates(cert):
        return [{"target": e.target.text, "estimate": e.value, "low": e.low, "high": e.high,
                 "met": e.met, "met_95": e.sure} for e in cert.estimates]

    return {"game": a.tune.game.name, "sentence": a.sentence(),
            "no_change_needed": a.no_change_needed,
            "solution": a.solution.label if a.solution is not None else None,
            "smallest_shown": (a.found.untried_below(a.solution.trial) == 0
                               if a.solution is not None else None),
            "start": estimates(a.start),
            "proposals": [{"change": p.label, "keys": p.trial.keys, "distance": p.trial.distance,
                           "solution": p.certificate.solution,
                           "rejected": p.trial.rejected,
                           "binding": p.certificate.binding.target.text,
                           "estimates": estimates(p.certificate)} for p in a.proposals],
            "search_games": a.found.games_searched, "holdout_games": a.tune.holdout_games,
            "holdout_seed": a.tune.holdout_seed, "search_seed": a.tune.seed,
            "seconds": {"search": round(a.found.seconds, 3), "certify": round(a.certify_seconds, 3)}}
