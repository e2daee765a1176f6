"""The precision rule (`--precision`): keep adding games until every cell's rates have a
95% Wilson half-width of at most the one asked, or the cap; and what a run came to
(Outcome)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bollesim.game.result import Result
from bollesim.stats.intervals import Z95


def precision_rates(result: Result) -> tuple[str, ...]:
    """The rates `--precision` watches, in every cell: the outcome flags of the game's result."""
    return tuple(result.flags)


def rate_columns(result: Result) -> list[int]:
    """Where the precision_rates are in the engine's result array."""
    return [result.slot(rate) for rate in precision_rates(result)]


DEFAULT_MAX_GAMES = 1_000_000
"""Games per cell at most when adding games for --precision, unless told otherwise."""




def half_widths(successes: np.ndarray, n: int) -> np.ndarray:
    """95% Wilson half-widths, (high - low) / 2, of successes out of n (array in, array out)."""
    from bollesim.stats.intervals import wilson

    if n == 0:
        return np.full(np.shape(successes), np.inf)
    low, high = wilson(np.asarray(successes), np.full(np.shape(successes), n))
    return (np.asarray(high) - np.asarray(low)) / 2


def games_needed(rates: np.ndarray, precision: float, cap: int) -> int:
    """The fewest games (at most cap) at which every rate's Wilson half-width is <= precision,
    were the rates to stay as estimated."""
    p = np.clip(np.asarray(rates, dtype=np.float64).ravel(), 0.0, 1.0)

    def worst(n: float) -> float:
        z2 = Z95 * Z95
        return float(np.max(Z95 * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)))

    low, high = 1, max(cap, 1)
    if worst(high) > precision:
        return high
    while low < high:
        mid = (low + high) // 2
        low, high = (mid + 1, high) if worst(mid) > precision else (low, mid)
    return low


def round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


@dataclass
class Outcome:
    """What a run of cells came to: games per cell and, with --precision, why it stopped.
    `saved_before` counts the games an interrupted run had saved when this session resumed
    it; `already_complete` says a resumed run had nothing left to play."""

    games_per_cell: int
    n_cells: int = 1
    precision: float | None = None
    reached: bool | None = None
    worst_half_width: float | None = None
    worst_cell: int | None = None
    worst_rate: str | None = None
    cap: int | None = None
    saved_before: int = 0
    already_complete: bool = False

    def sentence(self) -> str:
        """One line: how many games, and whether the precision or the game cap stopped it."""
        games = f"{self.games_per_cell:,} games" + (" per cell" if self.n_cells > 1 else "")
        if self.precision is None:
            return games
        where = f"the {self.worst_rate} rate" + (
            f" of cell {self.worst_cell}" if self.n_cells > 1 else ""
        )
        worst = f"{self.worst_half_width * 100:.2f} points, {where}"
        asked = f"{self.precision * 100:g}"
        asked += " point" if asked == "1" else " points"
        if self.reached:
            return (
                f"precision reached: every rate's 95% half-width is at most {asked} after "
                f"{games} (largest {worst})"
            )
        return (
            f"game cap reached: {games} (--max-games {self.cap:,}); the largest 95% "
            f"half-width is {worst}, above the {asked} asked"
        )

    def record(self) -> dict | None:
        """The manifest's `precision` field (None without --precision)."""
        if self.precision is None:
            return None
        return {
            "half_width": self.precision,
            "max_games": self.cap,
            "reached": self.reached,
            "largest_half_width": self.worst_half_width,
            "largest_in": {"cell": self.worst_cell, "rate": self.worst_rate},
        }

    @classmethod
    def from_manifest(cls, manifest: dict) -> Outcome:
        """The outcome a committed run recorded (inverse of record())."""
        p = manifest.get("precision") or {}
        where = p.get("largest_in") or {}
        return cls(
            manifest.get("games_per_cell") or 0,
            manifest.get("n_cells") or 1,
            p.get("half_width"),
            p.get("reached"),
            p.get("largest_half_width"),
            where.get("cell"),
            where.get("rate"),
            p.get("max_games"),
            already_complete=True,
        )


def judge(result: Result, counts: np.ndarray, n: int, precision: float | None, cap: int) -> Outcome:
    if precision is None:
        return Outcome(n, counts.shape[0])
    widths = half_widths(counts, n)
    i, j = np.unravel_index(int(np.argmax(widths)), widths.shape)
    worst = float(widths[i, j])
    return Outcome(
        n,
        counts.shape[0],
        precision,
        bool(worst <= precision),
        worst,
        int(i),
        precision_rates(result)[j],
        cap,
    )
