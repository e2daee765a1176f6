"""What the expert (the lookahead player) and its apprentice share: the base point they
play (expert_base.toml) and restricted play, an imposed first Fire order. Kept apart from
lookahead.py, which is pure Python, because the apprentice is compiled code."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bollesim.bollebank.scripted import space
from bollesim.game.params import Parameter

EXPERT_BASE_FILE = Path(__file__).with_name("expert_base.toml")


def expert_base() -> dict[str, float]:
    """The plan family's point the base "expert" plays (expert_base.toml)."""
    with EXPERT_BASE_FILE.open("rb") as f:
        return {name: float(value) for name, value in tomllib.load(f)["plan"].items()}


@dataclass(frozen=True)
class FirstFire:
    """An imposed first Fire order (engine/lookahead.py): from RoE `roe` and turn `turn`
    (0: that part not imposed)."""

    roe: int = 0
    turn: int = 0

    @property
    def imposed(self) -> bool:
        return self.roe > 0 or self.turn > 0


IMPOSED_PARAMETERS = (
    Parameter("imposed_roe", 0, 0, 25,
              "an imposed first Fire order: none before the RoE is at least this, and at the"
              " first chance once it is (0: not imposed)",
              label="imposed RoE of the first Fire order", never=25),
    Parameter("imposed_turn", 0, 0, 41,
              "an imposed first Fire order: none before this turn, and at the first chance"
              " from it (0: not imposed)",
              label="imposed turn of the first Fire order", never=41),
)
"""Restricted play's parameters, of the lookahead player and of the apprentice (FirstFire)."""


def with_trigger(family: np.ndarray, first_fire: FirstFire) -> np.ndarray:
    """The plan family's vector with its first Fire order at the imposed trigger, given at
    the first chance (bollesim/bollebank/scripted/plan.py fire_now, fire_score)."""
    out = family.copy()
    out[space.FIRE_ROE] = max(first_fire.roe, 1)
    out[space.FIRE_TURN] = max(first_fire.turn, 1)
    out[space.FIRE_UNRESTRICTED] = 0
    out[space.FIRE_WHEN_HOT] = 0
    out[space.FIRE_FIRST] = 1
    return out
