"""The headroom report's sentences (bollesim/report/headroom.py) and the relative skill
(bollesim/stats/skill.py): each checked against numbers computed here from counts."""

import math
from dataclasses import replace
from pathlib import Path

import pytest
import waiting

from bollesim.bollebank.headroom import HEADROOM
from bollesim.cli import headroom_make
from bollesim.game.registry import load_game
from bollesim.report import headroom
from bollesim.stats import skill
from bollesim.stats.intervals import wilson

GAME = load_game("bollebank")

N = 2000
ROOT = Path(__file__).resolve().parents[1]
PATHS = ("--spec", str(ROOT / "experiments" / "first_fire.toml"),
         "--points", str(ROOT / "experiments" / "best_points.toml"))


def small_settings(out, **changes):
    """The command's settings at small counts, with the game's own files."""
    return replace(headroom_make.Settings(
        40, 1, 3, 5, 20, 1, 1, 2, 3, None, ROOT / HEADROOM.spec, ROOT / HEADROOM.points, out,
        HEADROOM.seed), **changes)


def rung(label, operational, defeat, bound=False, n=N):
    counts = {o: (0, n) for o in GAME.result.headline}
    counts["operational"] = (operational, n)
    counts["defeat"] = (defeat, n)
    return headroom.Rung(label, counts, bound)


def test_relative_skill_is_the_share_of_the_distance_to_the_clairvoyant():
    assert skill.relative_skill(0.1, 0.4, 0.9) == pytest.approx(0.3 / 0.8)
    assert skill.relative_skill(0.1, 0.05, 0.9) == 0.0  # below the beginner: no skill shown
    assert skill.relative_skill(0.1, 0.95, 0.9) == 1.0
    assert math.isnan(skill.relative_skill(0.5, 0.5, 0.5))
    low, high = skill.relative_skill_interval(skill.Rate(0.1, 0.08, 0.12),
                                              skill.Rate(0.4, 0.38, 0.42),
                                              skill.Rate(0.9, 0.88, 0.92))
    assert low == pytest.approx((0.38 - 0.12) / (0.92 - 0.12))
    assert high == pytest.approx((0.42 - 0.08) / (0.88 - 0.08))
    assert low < skill.relative_skill(0.1, 0.4, 0.9) < high


def test_defeat_is_turned_into_a_rate_to_reach():
    r = skill.as_good(GAME.result, "defeat", skill.Rate(0.3, 0.25, 0.35))
    assert (r.rate, r.low, r.high) == pytest.approx((0.7, 0.65, 0.75))
    assert skill.as_good(GAME.result, "operational", skill.Rate(0.3, 0.25, 0.35)).rate == 0.3


def test_the_ladder_table_marks_the_bound_and_shows_wilson_intervals():
    lines = headroom.ladder_table(GAME.result, [rung("a", 600, 400), rung("clairvoyant", 1900, 20, bound=True)])
    low, high = wilson(600, N)
    assert f"30.0% ({100 * low:.1f}–{100 * high:.1f})" in lines[2]
    assert "≤ 95.0%" in lines[3] and "≥ 1.0%" in lines[3]
    assert headroom.half_width([rung("a", 600, 400)], "operational") == pytest.approx((high - low) / 2)


def test_the_bracket_states_both_ends_and_the_proven_losses():
    best, clair = rung("expert", 900, 300), rung("clairvoyant", 1940, 0, bound=True)
    text = headroom.bracket_sentence(GAME.result, best, clair, undecided=40, lost=60)
    assert "45.0%" in text and "97.0%" in text
    assert "1,900 games won by a line found, 40 undecided" in text
    assert "60 proven lost" in text and "(3.0%)" in text
    assert "at most the 100 with no winning line found (5.0%)" in text
    assert f"{100 * (0.97 - 0.45):.1f} points" in text


def penalised(objective, outcome, fresh, n=100):
    import numpy as np

    values = fresh + np.random.default_rng(1).normal(0, 0.1, n)
    steps = [headroom.ValueStep("10 trees", values + 0.3, values + 0.1),
             headroom.ValueStep("100 trees", values + 0.25, values)]
    return headroom.Penalised(objective, outcome, steps, 95, 1000, 16), values


def test_the_bracket_in_a_designers_words():
    best, clair = rung("expert", 900, 300), rung("clairvoyant", 1940, 0, bound=True)
    safest = rung("careful", 100, 40)
    text = headroom.designer_sentence(GAME.result, best, clair, 60, safest)
    assert "reaches operational victory in 45.0% of games" in text and "no play" in text
    assert "more than 97.0%" in text
    assert "at most 52.0 points below the best possible play" in text
    assert "careful) avoids it in 98.0% of games" in text and "more than 100.0%" in text
    assert "at most 2.0 points below" in text
    assert "loses at least 3.0% of games" in text and "penalised" not in text
    op, values = penalised("operational victory", "operational", 0.8)
    nd, defeat = penalised("no defeat", "defeat", 0.99)
    text = headroom.designer_sentence(GAME.result, best, clair, 60, safest, [op, nd])
    (m, low, _), (d, d_low, _) = (headroom.mean_interval(x) for x in (values, defeat))
    assert (f"below about {100 * m:.1f}% for operational victory ({100 * low:.1f}% at the "
            f"low end of its interval, on {len(values):,} games), {100 * d:.1f}% for no defeat "
            f"({100 * d_low:.1f}% at the low end") in text


@pytest.mark.parametrize("fresh", [0.8, 0.5, 0.3])
def test_the_penalised_ladder_of_v(fresh):
    """Each V's row: the lines on their samples, on fresh ones (the bound is at least
    that), the gap above the best honest player and the samples' noise; beyond 10 points
    at the low end the text says this V cannot close it, else that it is only a lower
    estimate; the plain bound stays the best proven one."""
    p, values = penalised("operational victory", "operational", fresh)
    lines = headroom.penalised_lines(GAME.result, p, [rung("expert", 900, 300), rung("random", 0, 1900)])
    table = "\n".join(lines)
    assert "| 0 (the plain clairvoyant: its bound) | – | 95.0% | 50.0 | – |" in table
    m, low, high = headroom.mean_interval(values)
    assert "| 100 trees | " in table and f"| {100 * m:.1f} ({100 * low:.1f} to {100 * high:.1f}) |" in table
    assert f"| {100 * (m - 0.45):.1f} | 25.0 (25.0 to 25.0) |" in table
    assert ("cannot bring the bound within 10 points" in table) == (low - 0.45 > 0.10)
    assert ("a lower estimate, not a bound" in table) == (low - 0.45 <= 0.10)
    assert "The best proven bound stays the plain clairvoyant's." in table
    gap = 100 * (low - 0.45)
    assert (f"at least {gap:.1f} points above the best honest player" if gap >= 0 else
            f"{-gap:.1f} points below the best honest player") in table


def test_the_best_v_is_the_one_with_the_lowest_estimate():
    """A larger V is not always a tighter one: the ladder's sentence and the designer's
    name the step whose estimate on fresh samples is lowest, wherever it stands."""
    import numpy as np

    values = 0.8 + np.random.default_rng(1).normal(0, 0.1, 100)
    steps = [headroom.ValueStep("10 trees", values + 0.1, values),
             headroom.ValueStep("100 trees", values + 0.2, values + 0.05)]
    p = headroom.Penalised("operational victory", "operational", steps, 95, 1000, 16)
    assert p.best.label == "10 trees"
    table = "\n".join(headroom.penalised_lines(GAME.result, p, [rung("expert", 900, 300)]))
    assert "With the best V (10 trees)" in table
    best, clair = rung("expert", 900, 300), rung("clairvoyant", 1940, 0, bound=True)
    text = headroom.designer_sentence(GAME.result, best, clair, 60, rung("careful", 100, 40), [p])
    assert f"below about {100 * np.mean(values):.1f}% for operational victory" in text


def test_the_best_honest_player_is_never_the_bound():
    rungs = [rung("a", 600, 400), rung("b", 700, 900), rung("c", 1900, 0, bound=True)]
    assert headroom.best_honest(GAME.result, rungs, "operational").label == "b"
    assert headroom.best_honest(GAME.result, rungs, "defeat").label == "a"


def test_skill_rows_and_sentence_from_the_rates():
    rungs = [rung("random", 100, 1800), rung("expert", 900, 300)]
    clair = rung("clairvoyant", 1900, 40, bound=True)
    rows = headroom.skill_rows(GAME.result, rungs, "random", clair)
    op = next(r for r in rows if r["outcome"] == "operational")
    assert op["skill"] == pytest.approx((0.45 - 0.05) / (0.95 - 0.05))
    defeat = next(r for r in rows if r["outcome"] == "defeat")
    assert defeat["skill"] == pytest.approx((0.85 - 0.10) / (0.98 - 0.10))
    text = headroom.skill_sentence(GAME.result, rows, "random")
    assert f"{(0.45 - 0.05) / 0.9:.2f}" in text and "from the random player (5.0%)" in text


def trigger_row(best, significant, tied=()):
    return {"best_label": best, "significant_vs_worst": significant, "tied": list(tied)}


def test_a_flat_line_is_no_effect_not_advice_that_holds():
    assert headroom.advice_word(trigger_row("8", False), trigger_row("8", False)) == "no effect"
    assert headroom.advice_word(trigger_row("8", False), trigger_row("9", True)) == "no effect for the preset"
    assert headroom.advice_word(trigger_row("8", True), trigger_row("8", False)) == "no effect for the other player"
    assert headroom.advice_word(trigger_row("8", True), trigger_row("8", True)) == "holds"
    assert headroom.advice_word(trigger_row("8", True), trigger_row("9", True, ["8"])) == "holds"
    assert headroom.advice_word(trigger_row("8", True), trigger_row("9", True, ["10"])) == "changes"


def test_the_verdict_counts_only_lines_with_an_effect():
    text = headroom.advice_verdict(["holds", "no effect", "changes", "holds"], "X",
                            ("defeat: t = 4, not 1",))
    assert text.endswith("(holds for 2, no effect for 1, changes for 1): defeat: t = 4, not 1.")
    assert "of the 3 outcome lines" in text and "holds for 2 and changes for 1" in text
    assert "no advice to compare" in headroom.advice_verdict(["no effect", "no effect"], "X")


def test_no_headline_for_a_player_that_wins_nothing():
    """The fewest defeats go to a player that wins as many operational victories as the
    best simple preset, not to one that wins none."""
    rungs = [rung("preset", 560, 460), rung("timid", 0, 40), rung("expert", 950, 300)]

    def compare(a, b, outcome):
        x = next(r for r in rungs if r.label == a).rate(outcome).rate
        y = next(r for r in rungs if r.label == b).rate(outcome).rate
        return x - y, x - y - 0.02, x - y + 0.02, abs(x - y) > 0.02, N, 0.0 if abs(x - y) > 0.02 else 0.5

    text = headroom.headline(GAME.result, rungs, "preset", compare)
    assert "timid" not in text
    assert "The highest operational victory rate: expert, 47.5%" in text
    assert "lowest defeat rate: expert, 15.0%" in text
    assert f"+19.5 (+17.5 to +21.5) points on the same {N:,} games, separated" in text


def test_the_best_player_names_the_players_it_ties_with():
    """The best is chosen on the games it is measured on, so the headline names the players
    not separated from it at 5% over their number (Bonferroni), and only those."""
    rungs = [rung("preset", 560, 460), rung("2x", 1280, 430), rung("4x", 1286, 437),
             rung("8x", 1318, 428), rung("1x", 1226, 458)]
    p = {"2x": 0.03, "4x": 0.011, "1x": 0.0001, "preset": 0.0}  # against 8x: 4 others, level 0.0125

    def compare(a, b, outcome):
        x = next(r for r in rungs if r.label == a).rate(outcome).rate
        y = next(r for r in rungs if r.label == b).rate(outcome).rate
        q = p.get(b, 0.5) if a == "8x" and outcome == "operational" else 0.5
        return x - y, x - y - 0.02, x - y + 0.02, q < 0.05, N, q

    text = headroom.headline(GAME.result, rungs, "preset", compare)
    assert "The highest operational victory rate: 8x, 65.9%" in text
    assert "exact McNemar at 0.0125, 5% over the 4 other players" in text
    assert "Tied with it on operational victory on these games" in text
    tied = text.split("Tied with it on operational victory")[1].split(";")[0]
    assert "2x (64.0%)" in tied and "4x" not in tied and "1x" not in tied and "preset" not in tied


def test_the_command_runs_on_small_counts(tmp_path):
    """`bollesim headroom` at tiny counts writes every section, its chart, its own
    command, and says when the restricted player's sweep is not given; it plays the seed
    it is given (the ladder's and the clairvoyant's games), and with --replace it replaces
    an earlier report whole (a chart of the earlier one is gone)."""
    import polars as pl
    from typer.testing import CliRunner

    from bollesim import simulate
    from bollesim.cli.app import app
    from bollesim.strong import clairvoyant as CV
    from bollesim.strong import headroom as G

    (tmp_path / "headroom.md").write_text("an earlier report")
    (tmp_path / "headroom-trigger-gone.png").write_bytes(b"an earlier chart")
    command = ["headroom", "--games", "40", "--expert-games", "1", "--clairvoyant-games",
               "3", "--budget", "5", "--sweep-games", "20", "--threads", "1", "--out",
               str(tmp_path), "--penalised-games", "1", "--inner", "2", "--value-games", "3",
               "--seed", "5", "--replace", *PATHS]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    text = (tmp_path / "headroom.md").read_text()
    for section in ("## The skill ladder", "## The bracket", "## Skill and luck",
                    "### The penalised clairvoyant", "For operational victory, on the first 1 ",
                    "For no defeat, on the first 1 ", "In words: today's best player",
                    "## When to give the first Fire order", "under strong play",
                    "## How this was made", "Games of seed 5,"):
        assert section in text
    assert "Not in this report: no folder was given" in text
    assert ("bollesim headroom --games 40 --expert-games 1 --clairvoyant-games 3 --budget 5"
            in text and "--value-games 3 --seed 5 --spec" in text and "--replace" not in text)
    assert (tmp_path / "headroom-ladder.png").stat().st_size > 0
    assert not (tmp_path / "headroom-trigger-gone.png").exists()
    table = pl.read_csv(tmp_path / "headroom.csv")

    def counts(seed):
        games = GAME.result.with_outcomes(simulate("cautious", 40, seed=seed))
        return [int(games[o].sum()) for o in GAME.result.headline]

    row = table.filter(pl.col("player") == "cautious")
    assert [row[f"{o}_k"][0] for o in GAME.result.headline] == counts(5) != counts(HEADROOM.seed)
    h = HEADROOM
    baseline, best = G.read_points(GAME, h, ROOT / h.points)
    bases = G.clairvoyant_bases(GAME, h, baseline, best)

    def searched(seed):  # the bracket's table: each objective's verdicts on 3 games
        rows = []
        for name in h.bounds.values():
            objective = CV.win_objectives(GAME.result)[name]
            verdicts = CV.Clairvoyant(GAME, GAME.load_ruleset(), objective, bases, 5, h.nearer,
                                      h.cut).solve_games(seed, 0, 3)
            rows.append(f"| {name} | " + " | ".join(
                f"{sum(v.status == s for v in verdicts)}" for s in (CV.WON, CV.LOST, CV.UNDECIDED)))
        return rows

    assert all(row in text for row in searched(5)) and searched(5) != searched(HEADROOM.seed)


def refused(*arguments, env=None) -> str:
    """The one `error:` line (exit 2, no traceback) of `bollesim headroom ARGUMENTS`."""
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    result = CliRunner().invoke(app, ["headroom", *map(str, arguments)], env=env)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), lines
    return lines[0]


@pytest.fixture
def nothing_played(monkeypatch):
    """The command may check its input, but not play a game."""
    def play(*_, **__):
        raise AssertionError("a game was played")

    monkeypatch.setattr(headroom_make, "play", play)


def test_bad_counts_paths_and_seeds_are_refused_before_any_game(tmp_path, nothing_played):
    for bad, words in ((["--games", "0"], "--games"),
                       (["--games", "5", "--expert-games", "6"], "must not exceed"),
                       (["--spec", tmp_path / "none.toml"], "no such file"),
                       (["--restricted", tmp_path / "absent"], "no such folder"),
                       (["--seed", HEADROOM.value_seed], "the seed V is fitted on"),
                       (["--seed", -1], "--seed")):
        assert words in refused(*PATHS, *bad, "--out", tmp_path / "new")
    assert not (tmp_path / "new").exists()


def test_a_spec_of_the_wrong_kind_is_refused_before_any_game(tmp_path, nothing_played):
    """A sweep of players whose trigger the report does not compare (the strong player's
    restricted sweep), or a spec that is no sweep at all (a policy search's)."""
    strong = ROOT / "experiments" / "first_fire_strong.toml"
    line = refused(*PATHS, "--spec", strong, "--out", tmp_path / "a")
    assert "it sweeps" in line and "fire_at_roe, fire_at_turn" in line
    search = ROOT / "experiments" / "optimise_plan_operational.toml"
    assert str(search) in refused(*PATHS, "--spec", search, "--out", tmp_path / "b")
    points = tmp_path / "points.toml"
    points.write_text('[baseline]\nlabel = "x"\npolicy = "no such policy"\n[[best]]\n')
    assert "cannot read the best known points" in refused("--points", points, "--out", tmp_path / "c")


@pytest.mark.parametrize("kind", ["file", "dangling link", "looping link", "search",
                                  "foreign files", "finished", "in use"])
def test_an_out_that_cannot_take_the_report_is_refused_before_any_game(tmp_path, kind,
                                                                      nothing_played):
    """--out must be a folder that can take the report, checked before the first game:
    not a file or a link to nothing, not a policy search's result or a folder of other
    files, not a finished report unless --replace says so, and not a folder another
    bollesim command is writing."""
    from bollesim.batch.workspace import Workspace

    out = tmp_path / "out"
    if kind == "file":
        out.write_text("x")
    elif kind == "dangling link":
        out.symlink_to(tmp_path / "nowhere")
    elif kind == "looping link":
        out.symlink_to(out)
    else:
        out.mkdir()
        name = {"search": "best.json", "foreign files": "notes.txt"}.get(kind, "headroom.md")
        (out / name).write_text("x")
    words = {"file": "is a file, not a folder", "dangling link": "a link to nothing",
             "looping link": "a link that loops", "search": "a policy search's result",
             "foreign files": "notes.txt", "finished": "give --replace",
             "in use": "in use by another bollesim process"}[kind]
    if kind == "in use":
        with Workspace(out):
            assert words in refused(*PATHS, "--out", out)
    else:
        assert words in refused(*PATHS, "--out", out)


def test_a_run_folder_takes_the_report_beside_its_games(tmp_path, monkeypatch):
    """The showcase's way: the report beside a run's games and reports, no --replace
    needed the first time."""
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    made = []
    monkeypatch.setattr(headroom_make, "make", lambda plan, s, earlier: made.append(earlier))
    out = tmp_path / "run"
    out.mkdir()
    for name in ("games.parquet", "manifest.json", "report.md", "rates.csv"):
        (out / name).write_text("x")
    result = CliRunner().invoke(app, ["headroom", *PATHS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    (out / "headroom.md").write_text("x")
    (out / "headroom-ladder.png").write_text("x")
    assert "give --replace" in refused(*PATHS, "--out", out)
    result = CliRunner().invoke(app, ["headroom", *PATHS, "--out", str(out), "--replace"])
    assert result.exit_code == 0, result.output
    assert made == [[], [out / "headroom-ladder.png", out / "headroom.md"]]


def test_a_game_that_declares_less_gets_a_shorter_report(tmp_path, monkeypatch):
    """A headroom without best known points, trigger sweeps, expert or penalised outcomes
    (what a new game may start with): the ladder, the bounds and the skill, and the
    sections it has no data for left out or said to be."""
    from typer.testing import CliRunner

    from bollesim.cli.app import app
    from bollesim.strong import headroom as G

    lean = replace(HEADROOM, points=None, spec=None, expert="", beside_expert=(),
                   penalised={}, family_triggers={}, presets=("cautious",))
    monkeypatch.setattr(G, "declared_headroom", lambda game: lean)
    result = CliRunner().invoke(app, [
        "headroom", "--games", "30", "--expert-games", "1", "--clairvoyant-games", "2",
        "--budget", "3", "--threads", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "headroom.md").read_text()
    assert "## The skill ladder" in text and "## Skill and luck" in text
    assert "| cautious |" in text and "| historical |" in text  # the game's baseline
    assert "best known points" not in text.split("### The penalised")[0]
    assert "every node's playouts by the baseline, cautious and historical" in text
    assert "Not measured in this report (the game declares no outcome for it)" in text
    assert "## When to give" not in text and "under strong play" not in text
    assert "| expert" not in text and "--spec" not in text
    assert "--restricted" in refused("--restricted", tmp_path, "--out", tmp_path / "b")


def test_a_game_without_decision_points_or_a_headroom_is_refused(monkeypatch, nothing_played):
    """The command plays the game it is given: one without decision points, or without
    a declared headroom report, is refused in one line that names it."""
    from bollesim.cli import chosen

    for changed, words in (({"positions": ""}, "declares no decision points"),
                           ({"headroom": ""}, "declares no headroom report")):
        game = replace(GAME, title="A game", **changed)
        monkeypatch.setattr(chosen, "load_game", lambda name, game=game: game)
        line = refused(*PATHS)
        assert line.startswith("error: A game declares no") and words in line, line


@pytest.mark.parametrize("changed", [
    {"bounds": {**HEADROOM.bounds, "operational": "no such objective"}},
    {"bounds": {"defeat": "no defeat"}, "inherited": {}},
    {"inherited": {"perfect": "draw"}}, {"expert_knob": "no_such_knob"},
    {"family_triggers": {"rush": "fire_roe"}}, {"value_policy": ""}])
def test_a_headroom_that_does_not_fit_its_game_is_refused(changed):
    """A declaration's mistakes are named when the game's headroom is first read: an
    outcome or win objective the game has not, the main win unbounded, an expert without
    its knob, a preset that is not one of the game's triggers, V without its policy."""
    HEADROOM.check(GAME)
    with pytest.raises(ValueError, match="headroom"):
        replace(HEADROOM, **changed).check(GAME)


def test_the_commands_code_names_no_game():
    """cli/headroom*.py and strong/ import no game's package: every game's headroom is
    its own declaration (Game.headroom)."""
    import ast

    for path in [*ROOT.glob("bollesim/cli/headroom*.py"), *ROOT.glob("bollesim/strong/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                    [a.name for a in node.names]
                assert not any(n.startswith(("bollesim.bollebank", "bollesim.balkan"))
                               for n in names), (path, names)


def test_the_default_folder_is_new(tmp_path):
    """Without --out the report goes to a folder that does not exist yet: results/headroom,
    then results/headroom-2 ..., never over an earlier report."""
    from bollesim.cli.headroom import new_folder

    base = tmp_path / "headroom"
    assert new_folder(base) == base
    base.mkdir()
    (tmp_path / "headroom-2").mkdir()
    assert new_folder(base) == tmp_path / "headroom-3"


def test_the_help_gives_defaults_and_examples():
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    text = CliRunner().invoke(app, ["headroom", "--help"], env={"COLUMNS": "200"}).output
    assert "[default: 20000]" in text and "Examples:" in text
    assert "results/headroom" in text


def test_the_widest_interval_of_a_sweep():
    import polars as pl

    games = pl.DataFrame({
        "k": [8] * 10 + [9] * 30,
        **{o: [False] * 40 for o in GAME.result.headline},
    }).with_columns(pl.Series("operational", [True] * 5 + [False] * 35))
    low, high = wilson(5, 10)
    assert headroom.widest_interval(GAME, games, "k") == pytest.approx((high - low) / 2)


def test_the_restricted_section_reads_a_sweep_folder(tmp_path):
    """The hook for the restricted player's trigger sweep: given a sweep folder (here a
    small one: the expert with imposed_roe 8 and 25, a few games each), the section
    compares its best setting per outcome with the presets' best k and ends with one
    verdict made from those words."""
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    spec = tmp_path / "restricted.toml"
    spec.write_text('name = "restricted"\ndescription = "a small one"\nseed = 1\ngames = 6\n'
                    '[[grid]]\npolicy = "lookahead"\n'
                    'params = { imposed_roe = [8, 25] }\n')
    folder = tmp_path / "sweep"
    result = CliRunner().invoke(app, ["sweep", str(spec), "--out", str(folder)])
    assert result.exit_code == 0, result.output
    spec = ROOT / "experiments" / "first_fire.toml"
    settings = small_settings(tmp_path / "report", spec=spec, restricted=folder)
    plan = headroom_make.prepare(GAME, settings)
    found = [(preset, k, p, before, None) for preset, k, p, before, _ in
             headroom_make.sweeps(plan, 40, family=False)]
    lines, verdict = headroom_make.restricted_section(plan, found)
    text = "\n".join(lines)
    assert ("| outcome | best `k` (fire_at_roe) | best `imposed_roe` (restricted lookahead) "
            "| advice |") in text
    assert "6 games per setting of the restricted lookahead" in text
    assert "best `t`" not in text  # the stand-in sweeps k only
    assert lines[-2] == verdict and verdict.startswith("Under the lookahead with its first Fire "
                                                        "order imposed")
    absent, none = headroom_make.restricted_section(replace(plan, restricted=None), found)
    assert "no folder" in absent[2] and none is None


def test_the_choice_of_v_runs_on_games_no_report_uses():
    """experiments/choose_value.py (docs/skill.md's choice of V) values each V tried on
    the games it is given (its line is the estimate made here from the library's steps on
    those games), and refuses a step it cannot read in one line."""
    import subprocess
    import sys

    from bollesim.game.policy import load_policy
    from bollesim.report.headroom import mean_interval
    from bollesim.strong import clairvoyant as CV
    from bollesim.strong import headroom as G
    from bollesim.strong import value
    from bollesim.strong.penalised import Measure, lower_estimates

    script = Path(__file__).parents[1] / "experiments" / "choose_value.py"
    done = waiting.run([sys.executable, str(script), "--first", "2000", "--games", "2",
                           "20x2"], capture_output=True, text=True, seconds=600)
    assert done.returncode == 0, done.stderr
    # the same estimate made here, step by step, on games 2,000 and 2,001
    name, h = "operational victory", HEADROOM
    baseline, best = G.read_points(GAME, h, ROOT / h.points)
    rules, objective = GAME.load_ruleset(), CV.win_objectives(GAME.result)[name]
    plain = CV.Clairvoyant(GAME, rules, objective, G.clairvoyant_bases(GAME, h, baseline, best),
                           50, h.nearer, h.cut).solve_games(h.seed, 2000, 2, 2)
    players, lines = G.penalised_candidates(GAME, h, baseline, best, name, plain)
    x, y = value.decisions(GAME, rules, objective, load_policy(h.value_policy), None,
                           h.value_seed, 20)
    measure = Measure("bollebank", name, players, value.fit(x, y, 2).text, 16)
    m, low, high = mean_interval(lower_estimates(measure, h.seed, lines, 1, 2000)[:, 1])
    assert done.stdout == (f"V on 20 games, 2 trees: the bound is at least {100 * m:.1f}% "
                           f"({100 * low:.1f} to {100 * high:.1f}) on games 2,000 to 2,001\n")
    bad = subprocess.run([sys.executable, str(script), "20by2"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "error: argument steps: '20by2' is not GAMESxTREES, such as 1000x100"], bad.stderr
