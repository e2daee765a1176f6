"""§5.1 Radio network and chain of command (reference: reference/radio.py)."""

from bollesim.bollebank import codes, events, luck, observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import (
    d6,
    has,
    log,
    pos,
)
from bollesim.jit import compiled

AUTOMATIC = 7  # reference/radio.py: no radio damage in the link, no roll
BEST_ROLL = 6


@compiled(inline=True)
def chain_quality(st, chain, n):
    """Highest successful d6 over one link, the n vehicles at st[chain:] (AUTOMATIC when no
    radio in it is damaged)."""
    damaged = 0
    which = -1
    for i in range(n):
        if has(st, st[chain + i], observation.V_LIGHT, codes.RADIO):
            damaged += 1
            which = st[chain + i]
    if damaged == 0:
        return AUTOMATIC
    if damaged >= 2:
        return min(st[tables.S_RADIO_TWO_MAX], BEST_ROLL)
    drm = 0
    for o in range(tables.NV):
        if o != which and pos(st, o) == pos(st, which) and not has(st, o, observation.V_LIGHT, codes.RADIO):
            drm += st[tables.S_RADIO_SAME_DRM]
            break
    if pos(st, codes.QL3) == st[tables.S_OPN] and not has(st, codes.QL3, observation.V_LIGHT, codes.RADIO):
        drm += st[tables.S_RADIO_QL3_DRM]
    return min(st[tables.S_RADIO_ONE_MAX] - drm, BEST_ROLL)


@compiled(inline=True)
def link_quality(st, receiver):
    """The highest d6 that gets an order to receiver over its best link (§5.1)."""
    commander = st[tables.S_COMMANDER]
    if pos(st, receiver) == pos(st, commander):
        return AUTOMATIC
    chain = layout.SCRATCH_CHAIN  # commander, relay, receiver
    st[chain] = commander
    st[chain + 2] = receiver
    best = 0
    if receiver == st[tables.RELAYS + 0] or receiver == st[tables.RELAYS + 1]:
        st[chain + 1] = receiver
        quality = chain_quality(st, chain, 2)
        return quality if quality == AUTOMATIC else max(best, quality)
    for r in range(2):
        st[chain + 1] = st[tables.RELAYS + r]
        quality = chain_quality(st, chain, 3)
        if quality == AUTOMATIC:
            return AUTOMATIC
        best = max(best, quality)
    return best


@compiled
def received(st, receiver):
    """One vehicle's radio check; the die is shared by an order unless I-RADIO."""
    quality = link_quality(st, receiver)
    if quality == AUTOMATIC:
        log(st, events.RADIO, receiver, 0, quality, 1)
        return True
    if st[tables.S_RADIO_PER_VEHICLE] or st[layout.X_SHARED_DIE] == 0:
        st[layout.X_SHARED_DIE] = d6(st, luck.RADIO)
    ok = st[layout.X_SHARED_DIE] <= quality
    log(st, events.RADIO, receiver, st[layout.X_SHARED_DIE], quality, ok)
    return ok
