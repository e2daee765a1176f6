"""The games table as handed to people: each policy parameter column of its declared type
(Parameter.dtype). The engines and games.parquet keep parameters as float64, so the stored
rows and their hashes do not change; simulate, sweeps.sweep_frame and runfolder.Run.read
give their frames through typed_params."""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from bollesim.game.declaration import Game
from bollesim.game.policy import Policy


def typed_params(frame: pl.DataFrame, declaring: Game | Iterable[Policy]) -> pl.DataFrame:
    """A frame of games as handed to people: each parameter column of its declared type
    (Parameter.dtype: a choice's names as pl.Enum, whole numbers as Int64, real numbers
    Float64), so that `.to_pandas()` shows k = 8, not 8.0, and target "tank", not 1.0.
    simulate, sweeps.sweep_frame and runfolder.Run.read give their frames through it; the
    engines and games.parquet keep parameters as float64 (the stored rows and their
    hashes do not change).

    declaring: the policies whose parameters the columns hold, or their game (then the
    policies named in the frame's `policy` column, by their modules' declarations; an
    unknown one declares nothing). A column stays Float64 when it is not Float64 now,
    when two policies declare it differently, or when a value does not fit its type (a
    fraction of a whole-numbered parameter, given by hand): no value is ever changed."""
    declarations = (_declared_parameters(declaring, frame) if isinstance(declaring, Game)
                    else [p for policy in declaring for p in policy.parameters])
    kinds: dict[str, list] = {}
    for p in declarations:
        if p.name in frame.columns and frame.schema[p.name] == pl.Float64:
            kinds.setdefault(p.name, [])
            if p.dtype not in kinds[p.name]:
                kinds[p.name].append(p.dtype)
    casts = []
    for name, (kind, *others) in kinds.items():
        if others or kind == pl.Float64 or not _fits(frame[name], kind):
            continue
        if isinstance(kind, pl.Enum):
            names = list(kind.categories)
            casts.append(pl.col(name).cast(pl.Int64)
                         .replace_strict(list(range(len(names))), names, return_dtype=kind))
        else:
            casts.append(pl.col(name).cast(kind))
    return frame.with_columns(casts) if casts else frame


def _fits(column: pl.Series, kind) -> bool:
    """Whether every value of a Float64 parameter column fits the type `kind` (Int64: a
    whole number; an Enum: the index of one of its names)."""
    values = column.drop_nulls()
    if values.is_empty():
        return True
    if not (values.is_finite().all() and (values % 1 == 0).all()):
        return False
    if isinstance(kind, pl.Enum):
        return 0 <= values.min() and values.max() < len(kind.categories)
    return bool(abs(values).max() < 2.0**53)


def _declared_parameters(game: Game, frame: pl.DataFrame) -> list:
    """The parameters declared by the modules of the game's policies named in the frame."""
    if "policy" not in frame.columns:
        return []
    out = []
    for name in frame["policy"].drop_nulls().unique().sort().to_list():
        try:
            module = game.policy_module(name)
        except (ImportError, ValueError):  # a policy not in this game's package declares nothing
            continue
        out += list(getattr(module, "PARAMETERS", ()))
    return out
