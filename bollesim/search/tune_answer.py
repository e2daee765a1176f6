"""A tune's answer: the search (tune.py), then the proposals certified on held-out games
(certify.py), the verdict and the sentence a designer reads first.

The proposals are the changes that met every target on the search games, smallest first
(fewest keys, then least distance), at most `proposals` of them; when none did, the
closest misses (least target error on the search games). Each is replayed on the held-out
games, and so are the starting rules. The answer is the first proposal that is a solution
there (every target met); when it is not the smallest change found, the report says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bollesim.batch.options import RunOptions
from bollesim.game.declaration import Ruleset
from bollesim.search.certify import Certificate, Estimate, certify
from bollesim.search.tune import Found, Trial, label, search
from bollesim.search.tune_space import ruleset_of_change
from bollesim.search.tune_spec import Tune


@dataclass(frozen=True)
class Proposal:
    trial: Trial
    label: str  # the change in words
    rules: Ruleset
    certificate: Certificate


@dataclass(frozen=True)
class Answer:
    tune: Tune
    found: Found
    start: Certificate  # the starting rules on the held-out games
    proposals: tuple[Proposal, ...]
    certify_seconds: float

    @property
    def solution(self) -> Proposal | None:
        """The first proposal met on the held-out games (None: none is)."""
        return next((p for p in self.proposals if p.certificate.solution), None)

    @property
    def no_change_needed(self) -> bool:
        return self.solution is not None and not self.solution.trial.change

    def sentence(self) -> str:
        """The answer in one sentence (the report's and the command's first line)."""
        n = f"{self.tune.holdout_games:,}"
        best = self.solution
        if best is not None and not best.trial.change:
            return (f"No change needed: {effects_text(self.tune, best.certificate.estimates, 'is')} "
                    f"on {n} held-out games under the rules as they are.")
        if best is not None:
            return (f"Change {best.label}: "
                    f"{effects_text(self.tune, best.certificate.estimates, 'becomes')} on {n} "
                    f"held-out games.")
        keys = self.tune.max_keys
        if not self.proposals:
            return (f"No change of at most {keys} of the allowed keys was played to the end "
                    "within the budget: raise budget or narrow the keys.")
        close = self.proposals[0]
        tried = len(self.found.trials)
        return (f"None of the {tried} changes of at most {keys} of the allowed keys that the "
                f"search tried met every target: the closest ({close.label}) gives "
                f"{effects_text(self.tune, close.certificate.estimates, 'at')} on {n} held-out "
                f"games, missing {close.certificate.binding.target.text}.")


def effects_text(tune: Tune, estimates: tuple[Estimate, ...], verb: str) -> str:
    """"the best point's operational victory becomes 50.3% (49.6–51.0), ..."."""
    labels = tune.game.result.labels
    parts = []
    for e in estimates:
        t = e.target
        what = labels.get(t.outcome, t.outcome)
        who = [tune.players[p].label for p in t.players]
        if t.is_gap:
            parts.append(f"the gap in {what} between the {who[0]} and the {who[1]} {verb} "
                         f"{100 * e.value:+.1f} points ({100 * e.low:+.1f} to {100 * e.high:+.1f})")
        else:
            parts.append(f"the {who[0]}'s {what} {verb} {100 * e.value:.1f}% "
                         f"({100 * e.low:.1f}–{100 * e.high:.1f})")
    return ", ".join(parts)


def proposals_of(tune: Tune, found: Found) -> list[Trial]:
    """The trials to certify: those meeting the targets on the search games, smallest
    first, else the closest misses; at most `proposals`."""
    if found.meeting:
        return found.meeting[: tune.proposals]
    played = [t for t in found.trials if t.means is not None]
    played.sort(key=lambda t: (t.error(tune), t.keys, t.distance))
    return played[: tune.proposals]


def answer(tune: Tune, *, options: RunOptions | None = None, progress=None) -> Answer:
    """Search, then certify the proposals and the starting rules on held-out games."""
    found = search(tune, options=options, progress=progress)
    t0 = time.perf_counter()
    start = certify(tune, tune.rules, options=options, progress=progress)
    proposals = []
    for trial in proposals_of(tune, found):
        rules = ruleset_of_change(tune.game, tune.rules, tune.knobs, trial.change)
        certificate = start if not trial.change else certify(tune, rules, options=options,
                                                              progress=progress)
        proposals.append(Proposal(trial, label(tune, trial), rules, certificate))
    return Answer(tune, found, start, tuple(proposals), time.perf_counter() - t0)
