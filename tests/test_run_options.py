"""How games are played is one frozen object (bollesim/batch/options.py): checked once
where it is made, naming the argument at fault, and passed down unchanged."""

import dataclasses

import pytest

import bollesim
from bollesim.batch.options import RunOptions
from bollesim.errors import UsageError


@pytest.mark.parametrize(("fields", "words"), [
    ({"engine": "turbo"}, "unknown engine 'turbo'"),
    ({"threads": 0}, "threads (--threads) must be a whole number from 1"),
    ({"threads": "2"}, "threads (--threads) must be a whole number from 1"),
    ({"chunk_size": 0}, "chunk_size (--chunk) must be a whole number from 1"),
    ({"precision": 0.7}, "--precision must be a half-width between 0 and 0.5"),
    ({"max_games": -3}, "--max-games must be a whole number"),
    ({"mode": "append"}, "unknown mode 'append'"),
])
def test_bad_options_are_refused_where_they_are_made(fields, words):
    with pytest.raises(UsageError) as caught:
        RunOptions(**fields)
    assert words in str(caught.value)
    with pytest.raises(UsageError):  # and when a replace makes them
        RunOptions().replace(**fields)


def test_options_are_frozen_and_keywords_go_over_them():
    options = RunOptions(threads=1, chunk_size=500)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.threads = 2
    assert RunOptions.of(options, chunk_size=7, engine=None) == RunOptions(threads=1, chunk_size=7)
    assert RunOptions.of(None) == RunOptions()
    with pytest.raises(TypeError, match="options must be a RunOptions"):
        RunOptions.of({"threads": 1})


def test_simulate_plays_by_the_options_it_is_given():
    """The chunk size of `options` reaches the play (the pieces the progress callback is
    told of), and the rows are those of the same options given as keywords."""
    pieces = []
    by_object = bollesim.simulate("random", 30, seed=4, progress=pieces.append,
                                  options=RunOptions(engine="reference", chunk_size=10))
    assert pieces == [10, 10, 10]
    by_keywords = bollesim.simulate("random", 30, seed=4, engine="reference", chunk_size=10)
    assert by_object.equals(by_keywords)


def test_simulate_refuses_the_options_of_a_run_folder():
    with pytest.raises(UsageError, match="precision and mode are for a run folder"):
        bollesim.simulate("random", 3, options=RunOptions(engine="reference", precision=0.01))
