"""Where the reference engine's luck comes from: the game's CHANCE stream, or a script.

Every random event of the game is one of four calls, each for a purpose (luck.py) in a
turn, made as the fast engine makes them: pick (draw one of n items: chits, markers,
tied targets), coin (the side of a 7-8-9 enemy-action marker), d6 and two_d6 (two
draws). The phases call them through their Table, which gives the turn.
"""

from collections import deque

from bollesim import rng
from bollesim.bollebank import luck


class Chance:
    """Draws from the game's keyed stream (rng.py)."""

    def __init__(self, seed: int, game: int):
        self.stream = rng.new_stream(seed, game, rng.CHANCE, luck.N_PURPOSES)

    def pick(self, items: list, purpose: int, turn: int) -> int:
        """Index of the item drawn at random from items (order matters)."""
        return int(rng.keyed_below(self.stream, len(items), turn, purpose))

    def coin(self, purpose: int, turn: int) -> int:
        return int(rng.keyed_below(self.stream, 2, turn, purpose))

    def d6(self, purpose: int, turn: int) -> int:
        return int(rng.keyed_d6(self.stream, turn, purpose))

    def two_d6(self, purpose: int, turn: int) -> int:
        return int(rng.keyed_two_d6(self.stream, turn, purpose))

    @property
    def draws(self) -> int:
        return int(self.stream[1])


class ScriptedChance:
    """Luck from a script, for tests: the chits, dice and sides a text describes.

    `picks` maps a kind of pick (its purpose's name, luck.NAMES: "chit", "marker", "ru",
    "target") to the items to take,
    in order (chit ids, marker ids, vehicles); `d6` and `two_d6` list die results; `sides`
    lists marker sides. Running out of script, or scripting an item that is not there,
    raises AssertionError naming what was asked.
    """

    def __init__(self, picks=None, d6=(), two_d6=(), sides=()):
        self.picks = {k: deque(v) for k, v in (picks or {}).items()}
        self.dice = {"d6": deque(d6), "two_d6": deque(two_d6), "side": deque(sides)}
        self.draws = 0

    def _next(self, queue: deque, what: str):
        assert queue, f"script ran out: the game asked for {what}"
        self.draws += 1
        return queue.popleft()

    def pick(self, items: list, purpose: int, turn: int) -> int:
        what = luck.NAMES[purpose]
        item = self._next(self.picks.get(what, deque()), f"a {what} from {items}")
        assert item in items, f"scripted {what} {item} is not among {items}"
        return items.index(item)

    def coin(self, purpose: int, turn: int) -> int:
        return self._next(self.dice["side"], "a marker side")

    def d6(self, purpose: int, turn: int) -> int:
        return self._next(self.dice["d6"], "a d6")

    def two_d6(self, purpose: int, turn: int) -> int:
        return self._next(self.dice["two_d6"], "2d6")

    def unused(self) -> dict:
        """What the script still holds (a test checks that all of it was used)."""
        left = {k: list(q) for k, q in self.picks.items() if q}
        left.update({k: list(q) for k, q in self.dice.items() if q})
        return left
