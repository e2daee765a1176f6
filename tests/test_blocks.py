"""bollesim/blocks.py: every game of a chunk is played once, on any number of threads, and
an error stops the hand-out of blocks."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import waiting
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
    names, both = set(), threading.Barrier(2)

    def play(lo, hi):
        name = threading.current_thread().name
        if name not in names:  # each thread's first block waits for the other's
            names.add(name)
            both.wait(waiting.scaled(60))

    in_blocks(play, 64_000, 2)
    assert len(names) == 2
    names.clear()
    in_blocks(lambda lo, hi: names.add(threading.current_thread().name), 64_000, 1)
    assert names == {threading.current_thread().name}


class Workers(ThreadPoolExecutor):
    """The pool in_blocks uses, its workers numbered in the order submitted: each knows
    its number (`mine.number`), and `futures` holds their futures."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.futures, self.mine = [], threading.local()
        Workers.last = self

    def submit(self, fn, /, *args, **kwargs):
        number = len(self.futures)

        def numbered():
            self.mine.number = number
            return fn(*args, **kwargs)

        self.futures.append(super().submit(numbered))
        return self.futures[-1]


@pytest.mark.parametrize("failing", [0, 1], ids=["in the first worker", "in the second"])
def test_an_error_stops_the_hand_out_and_is_raised(monkeypatch, failing):
    """An error stops the hand-out at once, whichever worker it comes in: with both at a
    block, one fails; the other finishes its block once the failing worker has ended, and
    takes no other. (The hand-out stopped only when the first worker submitted had
    ended: an error in the second went on through every block.)"""
    import bollesim.blocks

    monkeypatch.setattr(bollesim.blocks, "ThreadPoolExecutor", Workers)
    calls, both = [], threading.Barrier(2)

    def play(lo, hi):
        calls.append(lo)
        workers = Workers.last
        if len(calls) <= 2:
            both.wait(waiting.scaled(60))  # both at a block
        if workers.mine.number == failing:
            raise ValueError("policy chose an option outside its options")
        waiting.until(lambda: len(workers.futures) == 2 and workers.futures[failing].done(),
                      "the failing worker ended")

    with pytest.raises(ValueError, match="outside its options"):
        in_blocks(play, 100_000, 2)
    assert len(calls) == 2


def test_one_thread_plays_the_chunk_in_one_call():
    calls = []
    in_blocks(lambda lo, hi: calls.append((lo, hi)), 5000, 1)
    assert calls == [(0, 5000)]
