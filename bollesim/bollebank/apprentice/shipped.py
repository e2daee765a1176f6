"""The apprentice shipped for the shipped rules (shipped.npz, made by the command in
shipped.toml), and the kernel vectors of policies/apprentice.py's rows."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import numpy as np

from bollesim.bollebank.apprentice import model as M

MODEL_FILE = Path(__file__).with_name("shipped.npz")
RECORD_FILE = Path(__file__).with_name("shipped.toml")


@cache
def shipped() -> np.ndarray:
    """The shipped model (model.load keeps it alive)."""
    return M.load(MODEL_FILE)


def record() -> dict:
    """How the shipped model was made: its command, seeds, data and model digests."""
    with RECORD_FILE.open("rb") as f:
        return tomllib.load(f)


def kernel_rows(rows: np.ndarray, model: np.ndarray | None = None) -> np.ndarray:
    """The kernel vectors (model.KERNEL_SIZE) of rows of (imposed_roe, imposed_turn),
    playing `model` (default: the shipped one)."""
    from bollesim.bollebank.expert import FirstFire, expert_base, with_trigger
    from bollesim.game.policy import load_policy

    plan = load_policy("plan")
    family = plan.kernel_params(plan.param_vector(expert_base()))
    chosen = model if model is not None else shipped()
    distinct, which = np.unique(np.asarray(rows, dtype=np.float64)[:, :2], axis=0,
                                return_inverse=True)
    vectors = np.zeros((len(distinct), M.KERNEL_SIZE))
    for i, (roe, turn) in enumerate(distinct):
        first = FirstFire(int(roe), int(turn))
        vector = with_trigger(family, first) if first.imposed else family
        vectors[i] = M.kernel_vector(vector, chosen, first.imposed)
    return vectors[np.ravel(which)]
