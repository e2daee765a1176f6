"""The learned value of the analysis of luck and errors (strong/calibration.py,
strong/learned.py) on Pig race, whose exact value dynamic programming gives: the exact
value calibrates perfectly against rollouts on held-out states and stands in; a planted
bias is detected and refused; and where V stands in, the options' values are its
one-step expectations, within their intervals of the exact ones."""

import json
from dataclasses import replace

import numpy as np
import pytest
from toygame import optimum
from toygame.exact import PigExact, best_player
from toygame.game import GAME
from toygame.rules import load_ruleset

from bollesim.game.policy import load_policy
from bollesim.strong import calibration as C
from bollesim.strong.analysis import Analyst
from bollesim.strong.learned import LearnedAnalyst

RULES = load_ruleset()
V = optimum.optimal_value(RULES)
BEST, TABLE = best_player(RULES)
BANKER = load_policy("banker", "pig")
SEED = 5


def exact_value(rows: np.ndarray) -> np.ndarray:
    """V's rows (kind, turn, banked, busts, points) valued by the dynamic programme."""
    return np.array([V(*(int(x) for x in r[1:5])) for r in rows])


@pytest.fixture(scope="module")
def check():
    """The held-out states of 30 banker games, with 64 rollouts of the best player each."""
    from concurrent.futures import ThreadPoolExecutor

    analyst = Analyst(GAME, RULES, BEST, TABLE, rollouts=8, threads=1)
    with ThreadPoolExecutor(1) as pool:
        x, outcomes = C.sampled(analyst, BANKER, BANKER.param_vector(), SEED, C.CHECK, 30, 64,
                                pool)
    return exact_value(x), outcomes


def test_the_exact_value_calibrates_perfectly_and_stands_in(check):
    v, outcomes = check
    c = C.calibrate(v, outcomes, 8)
    assert c.states == len(v) > 200
    assert abs(c.bias) < 3 * c.bias_se and c.rms_high < 0.03
    assert 0.88 <= c.within <= 1.0  # the rollouts' 95% intervals (conservative at the ends)
    counted = [b for b in c.bins if b.states >= C.MIN_STATES]
    assert counted and all(b.stands_in for b in counted)
    assert c.stands_in(np.array([b.v_mean for b in counted])).all()
    back = C.Calibration.from_dict(json.loads(json.dumps(c.as_dict())))  # analysis-value.json's
    grid = np.linspace(0, 1, 41)
    assert (back.stands_in(grid) == c.stands_in(grid)).all() and back.usable == c.usable


def test_a_planted_bias_is_detected_and_refused(check):
    v, outcomes = check
    far = C.calibrate(np.clip(v - 0.2, 0, 1), outcomes, 8)
    assert far.bias == pytest.approx(-0.2, abs=0.03) and far.bias < -10 * far.bias_se
    assert not any(b.stands_in for b in far.bins) and far.usable == 0
    assert far.within < 0.5
    # a small bias is no worse than 8 rollouts' noise, but is against 64 rollouts'
    near = C.calibrate(np.clip(v + 0.05, 0, 1), outcomes, 64)
    assert near.bias > 10 * near.bias_se
    assert not near.bins[-1].stands_in and near.bins[-1].rms_high >= 0.04


def learned(calibration) -> LearnedAnalyst:
    return LearnedAnalyst(GAME, RULES, BEST, TABLE, None, 8, exact_value, calibration,
                          steps=16, threads=1)


def decisions_and_exact_values(analyst, exact):
    """(each decision of the banker's first 12 games as analysed, its options' exact
    values)."""
    for g in range(12):
        a = analyst.analyse(BANKER, BANKER.param_vector(), SEED, g)
        walked, _ = analyst.walk(BANKER, BANKER.param_vector(), SEED, g)
        for (point, *_), d in zip(walked, a.decisions, strict=True):
            yield d, exact.options(d.kind, point.obs, d.options)


def test_where_v_stands_in_the_values_are_its_expectations_within_their_intervals(check):
    v, outcomes = check
    c = C.calibrate(v, outcomes, 8)
    everywhere = replace(c, bins=tuple(replace(b, stands_in=True, rms_high=0.0)
                                       for b in c.bins))
    analyst, exact = learned(everywhere), PigExact(RULES, V)
    inside = total = 0
    for d, truth in decisions_and_exact_values(analyst, exact):
        for e, t in zip(d.values, truth, strict=True):
            inside += abs(e.value - t) <= 1.96 * e.se
            total += 1
    assert analyst.by_value > 0 and analyst.by_rollouts == 0
    assert total > 50 and inside / total >= 0.9
    # V's calibration error is counted in every value and error it gives
    rough = learned(replace(everywhere, bins=tuple(replace(b, rms_high=0.3)
                                                  for b in everywhere.bins)))
    a = rough.analyse(BANKER, BANKER.param_vector(), SEED, 0)
    plain = learned(everywhere).analyse(BANKER, BANKER.param_vector(), SEED, 0)
    wider = 0.0
    for d, p in zip(a.decisions, plain.decisions, strict=True):
        assert [e.value for e in d.values] == [e.value for e in p.values]
        assert all(e.se >= f.se for e, f in zip(d.values, p.values, strict=True))
        assert d.error.high >= p.error.high and d.gap.se >= p.gap.se
        wider += sum(e.se - f.se for e, f in zip(d.values, p.values, strict=True))
    assert wider > 0.5
    # refused everywhere: every decision rolled out, as without V
    refused = learned(replace(c, bins=tuple(replace(b, stands_in=False) for b in c.bins)))
    refused.analyse(BANKER, BANKER.param_vector(), SEED, 0)
    assert refused.by_value == 0 and refused.by_rollouts > 0


def test_analyse_value_learned_saves_v_and_its_calibration_beside_the_analysis(tmp_path):
    from typer.testing import CliRunner

    from bollesim.batch.runfolder import WRITTEN
    from bollesim.cli.app import app
    from bollesim.strong.value import Value

    def bollesim(*args, code: int = 0) -> str:
        result = CliRunner().invoke(app, ["--game", "pig", *map(str, args)])
        assert result.exit_code == code, result.output
        return result.output

    out = tmp_path / "run"
    bollesim("run", "-P", "banker", "-n", 4, "--seed", SEED, "--out", out)
    said = bollesim("analyse", "--from", out, "--player", "banker", "--value", "learned",
                    "--value-games", 6, "--own-games", 0, "--check-games", 4)
    assert "held-out states: bias" in said and "stands in" in said
    assert "analysis-value.json" in said and "by a learned value V at" in said
    doc = json.loads((out / "analysis.json").read_text())
    learned = doc["learned_value"]
    assert doc["values"] == "learned" and learned["check"]["states"] > 0
    assert learned["decisions_by_value"] + learned["decisions_by_rollouts"] == sum(
        g["decisions"] for g in doc["games"])
    saved = json.loads((out / "analysis-value.json").read_text())
    assert saved["learned_value"] == learned and saved["data_sha256"] == doc["data_sha256"]
    assert Value.read(saved["model"]).trees >= 1  # LightGBM stops early on so few states
    assert all(WRITTEN.fullmatch(p.name) for p in out.iterdir())
    wrong = bollesim("analyse", "--from", out, "--value", "guess", code=2)
    assert wrong.strip().splitlines()[-1].startswith("error: --value must be")


def test_an_error_where_v_stands_in_is_measured_on_fresh_rollouts_not_on_v(check):
    """A V that errs downwards at some states (-0.4 in odd turns) makes the options that
    leave them look best (banking, in odd turns); measured again on V, the errors would
    keep V's error (its winner's curse), on fresh rollouts they are the true differences,
    never above the exact error but by noise."""
    v, outcomes = check
    c = C.calibrate(v, outcomes, 8)
    everywhere = replace(c, bins=tuple(replace(b, stands_in=True, rms_high=0.0)
                                       for b in c.bins))

    def skewed(rows):
        return np.clip(exact_value(rows) - 0.4 * (rows[:, 1] % 2 == 1), 0, 1)

    analyst, exact = learned(everywhere), PigExact(RULES, V)
    analyst.value = skewed
    found = truth = 0.0
    for d, t in decisions_and_exact_values(analyst, exact):
        found, truth = found + d.error.value, truth + float(t.max() - t[d.taken])
    assert found <= truth + 2  # a sum of about 60 noisy differences; V's curse: about 10
