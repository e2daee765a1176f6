"""An analysed game (strong/analysis.py) in words and as data: each decision's options'
odds and error, each chance event's luck, the totals and the turning points.

Decisions and draws are marked as gnubg marks them, on the objective's probability
(gnubg's thresholds are on its equity, which counts a probability twice, so each here is
half of gnubg's): an error is doubtful from DOUBTFUL, bad from BAD and a blunder from
BLUNDER, when its interval excludes zero; a draw is lucky from LUCKY and very lucky from
VERY_LUCKY (unlucky alike, below zero).
"""

from __future__ import annotations

import numpy as np

from bollesim.game.chance import declares_draws
from bollesim.strong.analysis import ChanceStep, DecisionStep, GameAnalysis
from bollesim.strong.estimates import z_of

DOUBTFUL, BAD, BLUNDER = 0.02, 0.04, 0.08
LUCKY, VERY_LUCKY = 0.15, 0.30
SHOWN = 3  # the other options a decision shows in words, best first
WORDS = 200  # the longest account of what was drawn, in characters


def error_mark(step: DecisionStep) -> str:
    e = step.error
    if step.forced or not e.called:
        return ""
    return ("blunder" if e.value >= BLUNDER else "bad" if e.value >= BAD
            else "doubtful" if e.value >= DOUBTFUL else "")


def luck_mark(step: ChanceStep) -> str:
    x = step.luck.value
    size = "very " if abs(x) >= VERY_LUCKY else "" if abs(x) >= LUCKY else None
    return "" if size is None else f"{size}{'lucky' if x > 0 else 'unlucky'}"


class Teller:
    """Words of one game's analysis, by its analyst (strong/analysis.Analyst)."""

    def __init__(self, analyst):
        self.a = analyst
        self.positions = analyst.positions
        self.z = z_of(analyst.confidence)

    def option(self, kind: int, code: int) -> str:
        return self.positions.option_name(self.a.rules, kind, int(code))

    def draw_words(self, step: ChanceStep) -> str:
        if step.draw is None:
            said = step.words or "the chance between two decisions"
            return said if len(said) <= WORDS else said[: WORDS - 1] + "…"
        kind = self.positions.DRAWS[step.draw.kind]
        return f"{kind}: {self.positions.outcome_name(self.a.rules, step.draw.kind, step.draw.outcome)}"

    def est(self, e) -> str:
        if e.se == 0:
            return f"{e.value:.3f}"
        lo, hi = e.interval(self.z)
        return f"{e.value:.3f} ({max(lo, -1):.3f}..{min(hi, 1):.3f})"

    def head(self, analysis: GameAnalysis, played: str) -> list[str]:
        a = self.a
        how = (a.value_words() if hasattr(a, "value_words") else
               "exact values" if a.exact is not None else
               f"{a.rollouts} rollouts per option and per outcome, with fresh luck (rollouts "
               "only: no learned value)")
        return [f"Game {analysis.game} of seed {analysis.seed}, played by {played}.",
                f"Odds: the probability of '{a.objective.label}' if {a.stated.base.name} plays "
                f"on from each point, by {how}; intervals at {a.confidence:.0%}.",
                f"Start: {self.est(analysis.start)}.", ""]

    def decision(self, s: DecisionStep) -> list[str]:
        kind = self.positions.KINDS[s.kind].replace("_", " ")
        taken = f"{self.option(s.kind, s.options[s.taken])} {s.values[s.taken].value:.3f}"
        if s.forced:
            return [f"turn {s.turn:>2}  {kind}: {taken} (forced)"]
        e = s.error
        order = [int(i) for i in np.argsort([-v.value for v in s.values], kind="stable")]
        others = [i for i in order if i != s.taken][:SHOWN]
        shown = ", ".join(f"{self.option(s.kind, s.options[i])} {s.values[i].value:.3f}"
                          for i in others)
        more = len(s.options) - 1 - len(others)
        tail = f" and {more} more" if more > 0 else ""
        if e.called:
            span = "" if e.se == 0 and e.low == e.high else f" ({e.low:.3f}..{e.high:.3f})"
            verdict = (f"error {max(e.value, 0):.3f}{span} against "
                       f"{self.option(s.kind, s.options[e.against])}")
            mark = error_mark(s)
            verdict += f", {mark}" if mark else ""
        elif e.high > 0:
            verdict = f"no error shown (at most {e.high:.3f})"
        else:
            verdict = "no error"
        stated = ("" if s.stated == s.taken else
                  f"; {self.a.stated.base.name} takes {self.option(s.kind, s.options[s.stated])}")
        return [f"turn {s.turn:>2}  {kind} ({len(s.options)} options): took {taken}; "
                f"others {shown}{tail}{stated}: {verdict}"]

    def chance(self, s: ChanceStep) -> list[str]:
        mark = luck_mark(s)
        pm = f"±{self.z * s.luck.se:.3f}; " if s.luck.se else ""
        return [f"turn {s.turn:>2}  luck {s.luck.value:+.3f} ({pm}{s.before.value:.3f} -> "
                f"{s.after.value:.3f}){f', {mark}' if mark else ''}: {self.draw_words(s)}"]

    def step(self, s) -> list[str]:
        return self.decision(s) if isinstance(s, DecisionStep) else self.chance(s)

    def totals(self, analysis: GameAnalysis) -> list[str]:
        d = [s for s in analysis.decisions if not s.forced]
        called = [s for s in d if s.error.called]
        marks = [error_mark(s) for s in called]
        luck = analysis.luck

        def pm(se: float) -> str:
            return f" (±{self.z * se:.3f})" if se else ""

        return [
            "",
            f"Result: {analysis.outcome:g}. Start {analysis.start.value:.3f} + luck "
            f"{luck.value:+.3f}{pm(luck.se)} - errors "
            f"{analysis.errors:.3f} = "
            f"{analysis.start.value + luck.value - analysis.errors:.3f}; residual "
            f"{analysis.residual:+.3f}{pm(analysis.residual_se)}, of which "
            f"{self.a.stated.base.name}'s own shortfall {analysis.shortfall:+.3f}.",
            f"Errors: {len(called)} of {len(d)} decisions ({marks.count('blunder')} "
            f"blunder{'s' * (marks.count('blunder') != 1)}, {marks.count('bad')} bad, "
            f"{marks.count('doubtful')} doubtful); {len(analysis.decisions) - len(d)} forced.",
            "Turning points: " + "; ".join(
                f"{i + 1}) {self.step(s)[0].strip()}" for i, s in enumerate(analysis.swings())),
        ]

    def lines(self, analysis: GameAnalysis, played: str) -> list[str]:
        out = self.head(analysis, played)
        for s in analysis.steps:
            out += self.step(s)
        return out + self.totals(analysis)


def _est(e) -> dict:
    return {"value": _num(e.value), "se": _num(e.se)}


def _num(x: float):
    return None if x is None or not np.isfinite(x) else round(float(x), 6)


def document(analyst, analysis: GameAnalysis) -> dict:
    """The analysis as data (ANALYSIS_SCHEMA)."""
    t = Teller(analyst)
    draws = declares_draws(analyst.positions)
    steps = []
    for s in analysis.steps:
        if isinstance(s, DecisionStep):
            e = s.error
            steps.append({
                "step": "decision", "number": s.number, "turn": s.turn,
                "decision": analyst.positions.KINDS[s.kind],
                "options": [{"code": int(c), "words": t.option(s.kind, c), **_est(v)}
                            for c, v in zip(s.options, s.values, strict=True)],
                "taken": s.taken, "stated": s.stated, "forced": s.forced,
                "error": {"value": _num(e.value), "low": _num(e.low), "high": _num(e.high),
                          "se": _num(e.se), "against": e.against, "best": e.best,
                          "called": e.called, "mark": error_mark(s)},
            })
        else:
            p = s.draw.weights / s.draw.weights.sum() if s.draw is not None else None
            steps.append({
                "step": "chance", "segment": s.segment, "turn": s.turn,
                "draw": analyst.positions.DRAWS[s.draw.kind] if draws and s.draw else None,
                "outcome": s.draw.outcome if s.draw else None,
                "probabilities": [_num(x) for x in p] if p is not None else None,
                "words": t.draw_words(s), "before": _est(s.before), "after": _est(s.after),
                "luck": _est(s.luck), "mark": luck_mark(s),
            })
    swings = [analysis.steps.index(s) for s in analysis.swings()]
    return {
        "stated_player": analyst.stated.base.name,
        "objective": analyst.objective.describe(),
        "values": "exact" if analyst.exact is not None else "rollouts",
        "rollouts": None if analyst.exact is not None else analyst.rollouts,
        "confidence": analyst.confidence,
        "start": _est(analysis.start),
        "steps": steps,
        "totals": {"outcome": analysis.outcome, "luck": _est(analysis.luck),
                   "errors": _num(analysis.errors), "residual": _num(analysis.residual),
                   "shortfall": _num(analysis.shortfall)},
        "turning_points": swings,
    }


_NUM = {"type": ["number", "null"]}
_INT = {"type": "integer"}
_EST = {"type": "object", "required": ["value", "se"], "additionalProperties": False,
        "properties": {"value": _NUM, "se": _NUM}}


def _obj(properties: dict, description: str) -> dict:
    return {"type": "object", "description": description, "required": list(properties),
            "additionalProperties": False, "properties": properties}


_DECISION = _obj({
    "step": {"const": "decision"}, "number": _INT, "turn": _INT,
    "decision": {"type": "string"},
    "options": {"type": "array", "items": _obj(
        {"code": _INT, "words": {"type": "string"}, "value": _NUM, "se": _NUM},
        "an option and its value under the stated player")},
    "taken": _INT, "stated": _INT, "forced": {"type": "boolean"},
    "error": _obj({"value": _NUM, "low": _NUM, "high": _NUM, "se": _NUM, "against": _INT,
                   "best": {"type": ["integer", "null"]}, "called": {"type": "boolean"},
                   "mark": {"enum": ["", "doubtful", "bad", "blunder"]}},
                  "the best option's value minus the taken one's (docs/analyse.md)"),
}, "a decision: its options' values, the option taken, the stated player's, the error")
_CHANCE = _obj({
    "step": {"const": "chance"}, "segment": _INT, "turn": _INT,
    "draw": {"type": ["string", "null"], "description": "the kind of draw; null: the chance "
             "between two decisions as one event"},
    "outcome": {"type": ["integer", "null"]},
    "probabilities": {"type": ["array", "null"], "items": _NUM},
    "words": {"type": "string"}, "before": _EST, "after": _EST, "luck": _EST,
    "mark": {"enum": ["", "lucky", "very lucky", "unlucky", "very unlucky"]},
}, "a chance event: the value after its outcome minus the expectation over its outcomes")
ANALYSIS_SCHEMA = _obj({
    "stated_player": {"type": "string", "description": "the player whose play values a point"},
    "objective": {"type": "object"},
    "values": {"enum": ["exact", "rollouts"]},
    "rollouts": {"type": ["integer", "null"]},
    "confidence": {"type": "number"},
    "start": _EST,
    "steps": {"type": "array", "items": {"oneOf": [_DECISION, _CHANCE]}},
    "totals": _obj({"outcome": {"type": "number"}, "luck": _EST, "errors": _NUM,
                    "residual": _NUM, "shortfall": _NUM},
                   "result = start + luck - errors + residual"),
    "turning_points": {"type": "array", "items": _INT,
                       "description": "indices into steps, the largest swing first"},
}, "luck and errors of the game (`bollesim analyse --json`, docs/analyse.md)")
