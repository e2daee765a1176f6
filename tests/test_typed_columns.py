"""The parameter columns of a games table keep their declared types (Parameter.dtype) in
what people are handed: simulate(), sweep_frame() and a run folder read back. A whole
number is an integer column, a choice (a parameter with names for its values) a pl.Enum
of the names, a pandas Categorical after to_pandas(); a real number stays Float64.
games.parquet keeps every parameter as float64, so its rows and hash do not change."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import polars as pl

import bollesim
from bollesim.batch.runfolder import open_run
from bollesim.batch.session import run_to_dir
from bollesim.bollebank.scripted.space import TARGETS
from bollesim.game import columns
from bollesim.game.params import Parameter
from bollesim.game.policy import from_module, load_policy
from bollesim.game.registry import load_game

TARGET = pl.Enum(TARGETS)


def test_a_parameter_declares_its_column_type():
    assert Parameter("k", 12, 8, 25, "an RoE").dtype == pl.Int64
    assert Parameter("c", 1.25, 0, 5, "a real number").dtype == pl.Float64
    assert Parameter("c", 1, 0, 5.5, "a real range").dtype == pl.Float64
    assert Parameter("t", 0, 0, 3, "a target", choices=TARGETS).dtype == TARGET


def test_simulate_types_the_parameter_columns():
    df = bollesim.simulate("fire_at_roe", 30, seed=1, params={"target": "tank", "k": 9})
    assert df.schema["k"] == pl.Int64 and df.schema["stop_at_tanks"] == pl.Int64
    assert df.schema["target"] == TARGET
    assert df["k"].unique().to_list() == [9] and df["target"].unique().to_list() == ["tank"]
    import pandas as pd
    frame = df.to_pandas()
    assert frame["k"].dtype == np.int64 and frame["k"].iloc[0] == 9
    assert isinstance(frame["target"].dtype, pd.CategoricalDtype)
    assert list(frame["target"].cat.categories) == list(TARGETS)
    assert (frame["target"] == "tank").all()


def whole_game_player():
    """A notebook's player of whole games with a whole, a choice and a real parameter:
    its games are fire_at_roe's defaults."""
    preset = load_policy("fire_at_roe")

    def play_games(rules, params, seed, first_game, engine):
        rows = np.tile(preset.param_vector(), (len(params), 1))
        return preset.play_chunk(rules, rows, seed, first_game, engine)

    module = SimpleNamespace(
        __doc__="Plays fire_at_roe's games.", __name__="notebook", CHUNK=100,
        narrated_game=None, play_games=play_games,
        PARAMETERS=(Parameter("n", 3, 1, 8, "a whole number"),
                    Parameter("aim", 1, 0, 3, "a choice", choices=TARGETS),
                    Parameter("weight", 0.25, 0, 1, "a real number")))
    return from_module(module)


def test_a_real_parameter_stays_float_and_a_fraction_is_never_rounded():
    player = whole_game_player()
    df = bollesim.simulate(player, 10, seed=2, params={"weight": 0.5})
    assert (df.schema["n"], df.schema["aim"], df.schema["weight"]) == (pl.Int64, TARGET, pl.Float64)
    assert (df["n"][0], df["aim"][0], df["weight"][0]) == (3, "tank", 0.5)
    # a whole-numbered parameter given a fraction by hand keeps its value, as a float
    odd = bollesim.simulate(player, 4, seed=2, params={"n": 2.5})
    assert odd.schema["n"] == pl.Float64 and odd["n"].to_list() == [2.5] * 4


def test_a_run_folder_reads_back_typed_and_stores_floats(tmp_path):
    out = tmp_path / "run"
    run_to_dir(out, "fire_at_roe", 40, seed=5, params={"target": "HMG"})
    stored = pl.read_parquet(out / "games.parquet")
    assert all(stored.schema[c] == pl.Float64 for c in ("k", "target", "stop_at_tanks"))
    run = open_run(out)
    games = run.read()
    assert games.schema["k"] == pl.Int64 and games.schema["target"] == TARGET
    assert games.equals(bollesim.simulate("fire_at_roe", 40, seed=5, params={"target": "HMG"}))
    assert games.equals(columns.typed_params(stored, load_game("bollebank")))
    loaded, _ = bollesim.load_run(out)
    assert loaded.schema["target"] == TARGET
    import pandas as pd
    frame = games.to_pandas()
    assert frame["k"].dtype == np.int64
    assert isinstance(frame["target"].dtype, pd.CategoricalDtype) and (frame["target"] == "HMG").all()


def test_the_second_game_is_typed_the_same_way():
    df = bollesim.simulate("assault", 5, seed=1, game="balkan-wars")
    assert all(df.schema[p.name] == pl.Int64 for p in load_policy("assault", "balkan-wars").parameters)


def test_declarations_that_disagree_leave_the_column_float():
    frame = pl.DataFrame({"policy": ["a", "b"], "x": [1.0, 2.0]})
    a = SimpleNamespace(parameters=(Parameter("x", 1, 0, 3, "whole"),))
    b = SimpleNamespace(parameters=(Parameter("x", 1, 0, 3, "a choice", choices=TARGETS),))
    assert columns.typed_params(frame, [a]).schema["x"] == pl.Int64
    assert columns.typed_params(frame, [b])["x"].to_list() == ["tank", "HMG"]
    assert columns.typed_params(frame, [a, b]).schema["x"] == pl.Float64
