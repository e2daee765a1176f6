"""The parameter space of the scripted family `plan` (policies/bollebank/plan.py): every choice of
the scripted player (bollesim/bollebank/scripted/plan.py) is a parameter, declared once below with its
default, range and meaning. A parameter's index in the family's parameter vector is
this module's attribute of its name in capitals (`S.FIRE_ROE`), for the compiled player.

The other scripted policies are presets: points of this space, some of whose parameters
are their own (`preset` below), so that `fire_at_roe`'s `k` is the family's `fire_roe`.
Their defaults are the historical plan of 29 April 1994.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bollesim.game.params import Parameter

# Where a vehicle can be posted (the values of the *_post parameters). An overwatch post
# gives the k-th vehicle posted there the town's k-th overwatch (I-OW-SPREAD), or the
# town's contact point once its overwatches are taken.
STAY, SARACI, SARACI_OWS, OP_N, KALESIJA, KALESIJA_OWS, TANGO2 = range(7)
POST_NAMES = {
    STAY: "stay where it starts",
    SARACI: "Saraci",
    SARACI_OWS: "the Saraci overwatches",
    OP_N: "OP N",
    KALESIJA: "Kalesija",
    KALESIJA_OWS: "the Kalesija overwatches",
    TANGO2: "Tango 2",
}
_POSTS = ", ".join(f"{i} {name}" for i, name in POST_NAMES.items())
MAX_CHITS = 48  # the three direct-fire tracks at their capacity (schema.MAX_TRACK each)

# Where a tow goes, among the nearest contact points on offer (§5.4.3), by tow_to.
TOW_BACK, TOW_FORWARD = 0, 1
# How an airstrike ranks against the other orders on offer, by airstrike.
AIRSTRIKE_NEVER, AIRSTRIKE_LAST, AIRSTRIKE_FIRST = 0, 1, 2


POSTS = tuple(POST_NAMES.values())
TOW_TOS = ("back", "forward")
WITHDRAW_TOS = ("Saraci", "the nearest contact point")
TARGETS = ("ATGM", "tank", "HMG", "artillery")
AIRSTRIKES = ("never", "when no other order is worth giving", "at once")


def _p(name, default, low, high, doc, label, never=None, choices=None) -> Parameter:
    return Parameter(name, default, low, high, doc, label=label, never=never, choices=choices)


PARAMETERS = (
    # where the vehicles go (§5.4.1)
    _p("t2_tanks", 4, 0, 7,
       "tanks sent to Tango 2 by way of Kalesija: QL1 and platoon 1 first, then platoon 2",
       "tanks sent to Tango 2"),
    _p("reserve_post", SARACI_OWS, 0, 6,
       f"where the tanks not sent to Tango 2 go: {_POSTS}", "post of the other tanks",
       choices=POSTS),
    _p("vl2_post", OP_N, 0, 6, f"where VL2 goes: {_POSTS}", "post of VL2", choices=POSTS),
    _p("ql3_post", STAY, 0, 6, f"where QL3 goes: {_POSTS}", "post of QL3", choices=POSTS),
    _p("push_turn", 1, 1, 41,
       "the turn from which tanks go on from Kalesija to Tango 2; before it they wait there",
       "turn of the push to Tango 2", never=41),
    _p("t2_together", 0, 0, 1,
       "1: the tanks bound for Tango 2 wait in Kalesija until all of them that can still"
       " get there have come, then go on together (§5.4.1: the one road to Tango 2 starts"
       " in Kalesija)", "tanks go on to Tango 2 together"),
    _p("advance_hot", 1, 0, 1,
       "0: no vehicle sets out on a road through exposed positions while the enemy tanks"
       " are hot", "set out while the enemy tanks are hot"),
    _p("advance_chits", MAX_CHITS, 0, MAX_CHITS,
       "a vehicle sets out on a road through exposed positions only while the direct-fire"
       f" tracks hold at most this many chits ({MAX_CHITS}: always)",
       "most enemy chits to set out"),
    # damage (§7.1.3, §5.4.3)
    _p("withdraw", 0, 0, 2,
       "a vehicle with at least this many heavy-damage markers withdraws (0: never)",
       "heavy damage that makes a vehicle withdraw", never=0),
    _p("withdraw_to", 0, 0, 1,
       "where a damaged vehicle withdraws: 0 Saraci (the tactical victory wants it there),"
       " 1 the nearest contact point, Tango 2 first", "where damaged vehicles withdraw",
       choices=WITHDRAW_TOS),
    _p("tow_immobile", 0, 0, 1,
       "1: send a tank to tow a tank immobilised by tracks damage out of the fields of fire",
       "tow immobilised tanks"),
    _p("tow_to", TOW_BACK, 0, 1,
       "where a tow goes among the nearest contact points: 0 back (Saraci, OP N, Kalesija,"
       " Tango 2 first), 1 forward (Tango 2, Kalesija, OP N, Saraci first)",
       "tow toward Tango 2", choices=TOW_TOS),
    # drawing pairs (§5.3)
    _p("stop_at_tanks", 3, 0, 4,
       "stop drawing pairs once this many tank chits are on their track; 0: only the one"
       " pair a turn that §5.3 requires",
       "tank chits at which drawing stops"),
    _p("max_pairs", 20, 1, 20,
       "stop drawing after this many pairs in one Orders phase (20: no limit)",
       "most pairs drawn in one Orders phase"),
    # fire (§5.2, §5.4.2, §6.3)
    _p("fire_roe", 1, 1, 25, "the RoE from which the first Fire order is given (25: never)",
       "RoE from which the first Fire order is given", never=25),
    _p("fire_turn", 1, 1, 41, "the turn from which the first Fire order is given (41: never)",
       "turn from which the first Fire order is given", never=41),
    _p("fire_unrestricted", 0, 0, 1,
       "1: no first Fire order before the RoE is Unrestricted (roe.unrestricted), which"
       " keeps the strategic victory", "first Fire order only at Unrestricted RoE"),
    _p("fire_when_hot", 0, 0, 1,
       "1: give the first Fire order as soon as the enemy tanks are hot, whatever the"
       " RoE and turn", "first Fire order when the enemy tanks are hot"),
    _p("fire_first", 1, 0, 1,
       "1: a Fire order beats any Move; 0: a Fire order only when no useful Move is on offer",
       "Fire orders before moves"),
    _p("target", 0, 0, 3,
       "fire first at the last chit of 0 ATGM, 1 tank, 2 HMG, 3 artillery",
       "first fire target", choices=TARGETS),
    # airstrike (§5.4.4)
    _p("airstrike", AIRSTRIKE_LAST, 0, 2,
       "when the airstrike is called once offered: 0 never, 1 when no other order is"
       " worth giving, 2 at once", "airstrike", choices=AIRSTRIKES),
    _p("airstrike_chits", 0, 0, MAX_CHITS,
       "call the airstrike only while the direct-fire tracks hold at least this many chits",
       "fewest enemy chits for the airstrike"),
    # the end (§8)
    _p("play_on", 0, 0, 1,
       "1: after a victory, play on for the other type while it can still come",
       "play on after a victory"),
)
N_PARAMETERS = len(PARAMETERS)
globals().update({p.name.upper(): i for i, p in enumerate(PARAMETERS)})

# The knobs the presets share: family parameters under their own name, and `tow`, which
# stands for two of them (a preset's tow=1 tows immobilised tanks and withdraws a tank
# with heavy damage to Saraci).
TOW_KNOB = Parameter(
    "tow", 0, 0, 1,
    "1: tow tracks-damaged tanks out of fire, send damaged tanks back to Saraci",
    label="tow damaged tanks",
)
_KNOB_NAMES = ("stop_at_tanks", "max_pairs", "target", "play_on")
_KNOBS = tuple(p for p in PARAMETERS if p.name in _KNOB_NAMES) + (TOW_KNOB,)
_LINKED = {"tow": ("tow_immobile", "withdraw")}  # a preset parameter -> the family's


SEEDED_KNOBS = ("stop_at_tanks",)
"""The shared knobs whose every value a search seeds each preset with (search/optimise.py:
preset_points); the other knobs keep the preset's defaults."""


def knobs(**defaults: float) -> tuple[Parameter, ...]:
    """The shared knobs, with this preset's defaults where given."""
    names = {p.name for p in _KNOBS}
    for name in defaults:
        if name not in names:
            raise ValueError(f"no shared knob {name!r} (knobs: {', '.join(sorted(names))})")
    return tuple(replace(p, default=defaults.get(p.name, p.default)) for p in _KNOBS)


@dataclass(frozen=True)
class Link:
    """A family parameter set by one of the preset's own: its value, or table[value - low]."""

    source: str
    table: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Preset:
    """A point of the family: fixed values of its parameters and links to the preset's own
    parameters. Calling it maps the preset's parameter rows to the family's."""

    own: tuple[Parameter, ...]
    base: np.ndarray  # the family vector with the fixed values
    links: tuple[tuple[int, int, np.ndarray | None], ...]  # (family i, own j, table)

    def __call__(self, params: np.ndarray) -> np.ndarray:
        params = np.atleast_2d(np.asarray(params, dtype=np.float64))
        out = np.tile(self.base, (params.shape[0], 1))
        for i, j, table in self.links:
            column = params[:, j]
            if table is not None:
                column = table[(column - self.own[j].low).astype(np.int64)]
            out[:, i] = column
        return out


def preset(own: tuple[Parameter, ...], **values: float | str | Link) -> Preset:
    """The point of the family a preset stands for: the family's defaults, overridden by
    values (a number, the name of one of the preset's own parameters, or a Link); an own
    parameter named like a family parameter (the knobs) sets it."""
    names = [p.name for p in PARAMETERS]
    own_names = [p.name for p in own]
    base = np.array([p.default for p in PARAMETERS], dtype=np.float64)
    links: dict[int, tuple[int, np.ndarray | None]] = {}
    for j, name in enumerate(own_names):
        for target in _LINKED.get(name, (name,) if name in names else ()):
            links[names.index(target)] = (j, None)
    for name, value in values.items():
        if name not in names:
            raise ValueError(f"the family has no parameter {name!r}")
        i = names.index(name)
        if isinstance(value, str):
            value = Link(value)
        if isinstance(value, Link):
            table = None if value.table is None else np.asarray(value.table, dtype=np.float64)
            links[i] = (own_names.index(value.source), table)
        else:
            base[i] = value
            links.pop(i, None)
    unused = set(range(len(own))) - {j for j, _ in links.values()}
    if unused:
        raise ValueError(f"preset parameters that set nothing: {sorted(own_names[j] for j in unused)}")
    return Preset(tuple(own), base, tuple((i, j, t) for i, (j, t) in sorted(links.items())))
