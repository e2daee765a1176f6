"""§5.1 Radio network and chain of command: does an order reach a vehicle?"""

from __future__ import annotations

from bollesim.bollebank import codes, events, luck
from bollesim.bollebank.reference.table import Table

AUTOMATIC = 7  # "highest successful roll" of a link with no radio damage: no roll is made
BEST_ROLL = 6  # a damaged link needs a roll; the best it can do is succeed on any die


def link_quality(table: Table, receiver: int) -> int:
    """The highest d6 roll that gets an order to `receiver` over its best radio link
    (AUTOMATIC when a link has no radio damage and needs no roll; else 0..6, 0 when it
    cannot succeed).

    §5.1: a link runs VL2 -> QL1 or QL3 -> receiver (VL2 -> receiver when the receiver is
    QL1 or QL3). No damaged radio in the link: received. One: received on 1-3, -1 to the
    roll if an undamaged vehicle shares the damaged one's position, and -1 more if QL3 is
    at OP N with an undamaged radio. Two or more: received on an unmodified 1-2.
    """
    game, rules = table.game, table.rules
    vehicles = game.vehicles
    vl2 = vehicles[rules.commander]
    if vehicles[receiver].position == vl2.position:  # stacked with VL2: no link needed
        return AUTOMATIC
    relays = [int(r) for r in rules.relays]
    chains = (
        [[rules.commander, receiver]]
        if receiver in relays
        else [[rules.commander, r, receiver] for r in relays]
    )
    best = 0
    for chain in chains:
        damaged = [v for v in chain if codes.RADIO in vehicles[v].light]
        if not damaged:
            return AUTOMATIC
        if len(damaged) == 1:
            drm = 0
            d = vehicles[damaged[0]]
            if any(
                o.position == d.position and codes.RADIO not in o.light for o in vehicles if o is not d
            ):
                drm += rules.p("radio", "same_position_drm")
            ql3 = vehicles[codes.QL3]
            if ql3.position == rules.op_n and codes.RADIO not in ql3.light:
                drm += rules.p("radio", "ql3_at_opn_drm")
            quality = rules.p("radio", "one_damaged_max") - drm
        else:
            quality = rules.p("radio", "two_damaged_max")
        best = max(best, min(quality, BEST_ROLL))
    return best


class RadioCheck:
    """The radio checks of one order. With I-RADIO (the default) every receiving vehicle
    rolls its own die; with radio_check_per_vehicle = false one die serves the order."""

    def __init__(self, table: Table):
        self.table = table
        self.per_vehicle = table.rules.p("interpretations", "radio_check_per_vehicle")
        self.shared_die = 0

    def received(self, receiver: int) -> bool:
        table = self.table
        quality = link_quality(table, receiver)
        if quality == AUTOMATIC:
            table.log(events.RADIO, receiver, 0, quality, 1)
            return True
        if self.per_vehicle or not self.shared_die:
            self.shared_die = table.d6(luck.RADIO)
        ok = self.shared_die <= quality
        table.log(events.RADIO, receiver, self.shared_die, quality, ok)
        return ok
