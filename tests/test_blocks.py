"""bollesim/blocks.py: every game of a chunk is played once, on any number of threads, and
an error stops the hand-out of blocks."""

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bollesim.blocks import block_size, in_blocks


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 200_000), threads=st.integers(1, 4))
def test_every_game_is_played_once(n, threads):
    played = []
    lock = threading.Lock()

    def play(lo, hi):
        assert 0 <= lo < hi <= n and hi - lo <= block_size(n, threads)
        with lock:
            played.append((lo, hi))

    in_blocks(play, n, threads)
    starts = sorted(lo for lo, _ in played)
    ends = sorted(hi for _, hi in played)
    assert starts == [0, *ends[:-1]] if n else not played  # no gap, no overlap
    assert not n or ends[-1] == n


def test_blocks_run_on_the_threads_asked_for():
    names = set()

    def play(lo, hi):
        names.add(threading.current_thread().name)
        time.sleep(0.002)

    in_blocks(play, 64_000, 2)
    assert len(names) == 2
    names.clear()
    in_blocks(play, 64_000, 1)
    assert names == {threading.current_thread().name}


def test_an_error_stops_the_hand_out_and_is_raised():
    n = 100_000
    blocks = -(-n // block_size(n, 2))
    calls = []

    def play(lo, hi):
        calls.append(lo)
        if lo == 0:
            raise ValueError("policy chose an option outside its options")
        time.sleep(0.05)

    with pytest.raises(ValueError, match="outside its options"):
        in_blocks(play, n, 2)
    assert len(calls) < blocks


def test_one_thread_plays_the_chunk_in_one_call():
    calls = []
    in_blocks(lambda lo, hi: calls.append((lo, hi)), 5000, 1)
    assert calls == [(0, 5000)]
