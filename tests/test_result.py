"""The declared result (bollesim/game/result.py, bollesim/bollebank/result.py): the engine's
slots, the Parquet schema and the derived outcomes all follow the one declaration, and a
declaration that contradicts itself is refused."""

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from bollesim.batch.runner import dataset_schema, to_frame
from bollesim.bollebank.engine import layout
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.game.result import Column


def test_the_engine_slots_and_the_schema_follow_the_declaration():
    assert layout.N_RESULTS == len(RESULT.columns)
    assert [layout.R_OPERATIONAL, layout.R_DEFEAT, layout.R_END_REASON, layout.R_RANDOM_DRAWS] == \
        [RESULT.slot(n) for n in ("operational", "defeat", "end_reason", "random_draws")]
    schema = dataset_schema("bollebank", [])
    results = [f for f in schema if f.name in RESULT.names]
    assert [f.name for f in results] == list(RESULT.names)
    kinds = {"bool": "bool", "int16": "int16", "int32": "int32", "text": "string"}
    assert [str(f.type) for f in results] == [kinds[c.kind] for c in RESULT.columns]


def test_a_reference_row_survives_the_engine_slots():
    """A reference game's row, coded into the engine's integer slots and read back as a
    table row, is the same row (texts by their index, "never" as null)."""
    policy = load_policy("fire_at_roe")
    vector = policy.param_vector()
    for game in range(6):
        row = play_game(load_ruleset(), policy, vector, 3, game)
        frame = to_frame(np.array([RESULT.ints(row)], dtype=np.int64), policy, vector[None, :], 3, game)
        back = frame.row(0, named=True)
        assert {n: back[n] for n in RESULT.names} == {n: row[n] for n in RESULT.names}


def test_derived_outcomes():
    rows = pl.DataFrame({"operational": [True, True, False, None], "tactical": [True, False, False, False],
                         "strategic": [True, True, False, False], "political": [True, True, False, False],
                         "defeat": [False, False, True, False]})
    out = RESULT.with_outcomes(rows)
    assert out[RESULT.all_wins].to_list() == [True, False, False, False]
    assert out[RESULT.no_result].to_list() == [False, False, False, True]


@pytest.mark.parametrize("change, message", [
    (lambda r: replace(r, columns=(*r.columns, r.columns[0])), "declared twice"),
    (lambda r: replace(r, loss="end_turn"), "not a bool result column"),
    (lambda r: replace(r, loss_reasons=("eaten by a grue",)), "not one of the end reasons"),
    (lambda r: replace(r, outcomes=r.outcomes[:-1]), "each once"),
])
def test_a_declaration_that_contradicts_itself_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        change(RESULT)


def test_a_column_is_checked():
    with pytest.raises(ValueError, match="kind"):
        Column("x", "float", "?")
    with pytest.raises(ValueError, match="texts"):
        Column("x", "text", "?")
