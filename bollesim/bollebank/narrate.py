"""Turn a game trace (events.py) into a turn-by-turn account, in the manner of §11."""

from __future__ import annotations

from bollesim.bollebank import codes as C
from bollesim.bollebank import decisions as D
from bollesim.bollebank import events as E
from bollesim.bollebank.rules.loader import Ruleset

PHASE_OF = {  # the phase heading an event opens, when it is the first of its phase
    E.VL2_DESTINATION: "Orders phase",
    E.DRAW: "Orders phase",
    E.COMMANDER_CHECK: "Execution phase",
    E.AIRSTRIKE: "Execution phase",
    E.MOVE: "Execution phase",
    E.NOT_MOVED: "Execution phase",
    E.FIRE: "Execution phase",
    E.TANK_STATUS: "Enemy reaction phase",
    E.ATTACK: "Enemy reaction phase",
    E.ARTILLERY: "Enemy reaction phase",
    E.ATTACK_SKIPPED: "Enemy reaction phase",
    E.VICTORY: "End phase",
    E.HULL_FLIP: "End phase",
}


class Narrator:
    def __init__(self, rules: Ruleset):
        self.rules = rules

    def chit(self, c: int) -> str:
        r = self.rules
        t = r.chit_type[c]
        if t == C.RU:
            return f"random unit ({r.vehicle_ids[r.chit_vehicle[c]]})"
        if t == C.CAR:
            return "civilian car (VW Golf)"
        if c == r.setup_chit:
            return "Saraci setup artillery"
        if t == C.ART:
            return (
                f"Artillery ({C.ART_TARGET_NAMES[r.chit_art_target[c]].replace('none', 'No art.')})"
            )
        double = ", 2 targets" if r.chit_double[c] else ""
        return f"{C.WEAPON_NAMES[t].upper() if t != C.TANK else 'Tank'} ({C.LETTER_NAMES[r.chit_letter[c]]}{double})"

    def pos(self, p: int) -> str:
        return self.rules.position_ids[p] if p >= 0 else "-"

    def veh(self, v: int) -> str:
        return self.rules.vehicle_ids[v]

    def order(self, code: int) -> str:
        kind, mask, dest = D.order_kind(code), D.order_mask(code), D.order_dest(code)
        names = ", ".join(self.veh(v) for v in range(len(self.rules.vehicle_ids)) if mask >> v & 1)
        if kind == C.MOVE:
            where = (
                f"the {C.TOWN_NAMES[dest - D.SPREAD]} overwatches"
                if dest >= D.SPREAD
                else self.pos(dest)
            )
            return f"Move to {where} for {names}"
        if kind == C.FIRE:
            return f"Fire for {names}"
        if kind == C.TOW:
            return f"Tow: {names} to recover {self.veh(dest)}"
        return "Call for airstrike"

    def option(self, kind: int, option: int) -> str:
        """One option of a decision (decisions.py), in words."""
        if kind in (D.VL2_DESTINATION, D.ISSUE_ORDER, D.EXTRA_ORDER):
            return "no order" if option == D.PASS else self.order(option)
        if kind in (D.DRAW_AGAIN, D.USE_ABILITY, D.STOP_ON_VICTORY):
            words = {
                D.DRAW_AGAIN: ("stop drawing", "draw another pair"),
                D.USE_ABILITY: ("not now", "use it"),
                D.STOP_ON_VICTORY: ("play on", "stop and claim the victory"),
            }
            return words[kind][option]
        if kind == D.REFRESH_ABILITY:
            if option == 0:
                return "none"
            a, side = divmod(option - 1, 2)
            return C.ABILITY_NAMES[self.rules.ability_sides[a, side]].replace("_", " ")
        if kind == D.ABILITY_SIDE:
            return f"side {option + 1}"
        if kind == D.TOW_DESTINATION:
            return self.pos(option)
        if kind in (D.FIRE_TARGET, D.DEPOT_TRACK):
            return f"the {C.WEAPON_NAMES[option]} track"
        return "none" if option < 0 else self.veh(option)  # the decisions naming a vehicle

    def line(self, kind: int, a: int, b: int, c: int, d: int) -> str:
        r, veh, pos, W = self.rules, self.veh, self.pos, C.WEAPON_NAMES
        ability = lambda a, side: C.ABILITY_NAMES[r.ability_sides[a, side]].replace("_", " ")  # noqa: E731
        match kind:
            case E.VL2_DESTINATION:
                return f"VL2 (the player) heads for {pos(a)}."
            case E.DRAW:
                return f"Draws {self.chit(a)}."
            case E.LIGHT_DAMAGE:
                if b < 0:
                    return f"{veh(a)} already has every light damage: no effect."
                return (
                    f"{veh(a)} takes light damage: {C.LIGHT_NAMES[b].replace('_', ' ')} (die {c})."
                )
            case E.CIVILIAN_CAR:
                return f"The civilian car is retired; {self.chit(b)} goes to its track, no order."
            case E.PAIR:
                orders = [o for o, ok in (("Fire", c), ("Move", d & 1)) if ok]
                scope = "a platoon or one vehicle" if d & 2 else "one vehicle"
                return (
                    f"Pair {self.chit(a)} + {self.chit(b)}: the Order Matrix gives "
                    f"{' or '.join(orders)} for {scope}."
                )
            case E.ORDER:
                extra = " (Extra order)" if b == D.EXTRA_ORDER else ""
                return f"Issues {self.order(a)}{extra}."
            case E.RADIO:
                if b == 0:
                    return f"  {veh(a)} receives the order."
                return f"  Radio check for {veh(a)}: die {b}, needs {c} or less: {'received' if d else 'lost'}."
            case E.FIRE_STATUS:
                return f"First Fire order: the fire status marker goes to RoE {a} (Fire at Will)."
            case E.PLACE:
                return f"  {self.chit(a)} goes on the {W[b]} track ({c} there)."
            case E.ROE:
                return f"RoE {'+' if b > 0 else ''}{b} ({E.ROE_CAUSES[c]}): now {a}."
            case E.ABILITY:
                what = ("becomes available", "returns to the RoE track", "is used", "is refreshed")[
                    b
                ]
                return f"{veh(r.ability_vehicle[a])} ability '{ability(a, c)}' {what}."
            case E.POOL_EXHAUSTED:
                return f"Only {a} weapon chits left in the pool: no more pairs (I-POOL)."
            case E.COMMANDER_CHECK:
                return f"{veh(a)} (commander killed) rolls {b}: {'acts' if c else 'does nothing this turn'}."
            case E.AIRSTRIKE:
                return f"Airstrike on Vis! Removed tank {a}, ATGM {b}, HMG {c}, artillery {d}."
            case E.MOVE:
                return f"{veh(a)} moves {pos(b)} -> {pos(c)}."
            case E.NOT_MOVED:
                die = f" (die {c})" if c >= 0 else ""
                return f"{veh(a)} does not move: {E.NOT_MOVED_REASONS[b]}{die}."
            case E.MARKER_DRAWN:
                return f"First entry into {pos(a)}: enemy action marker {r.marker_ids[b]} side {'ab'[c]}."
            case E.ARRIVED:
                return f"{veh(a)} reaches {pos(b)}."
            case E.TOW_HOOKED:
                return f"{veh(a)} hooks up {veh(b)}; the tow heads for {pos(c)}."
            case E.TOW_DONE:
                return f"{veh(a)} brings {veh(b)} to {pos(c)}."
            case E.TOW_DROPPED:
                return f"  {veh(a)} leaves {veh(b)} where it stands for its new order."
            case E.FIRE:
                roll = f", die {c}" if c else ""
                return f"{veh(a)} fires at the {W[b]} track{roll}: {'hit' if d else 'miss'}."
            case E.REMOVED:
                return f"  {self.chit(a)} returns to the pool."
            case E.SETUP_FLIPPED:
                return "  The Saraci setup artillery marker flips to No Artillery."
            case E.DEPOT:
                return f"Three 1s from Saraci: the ammunition depot on Vis explodes! The {W[a]} track is emptied."
            case E.TANK_STATUS:
                return f"Tank status with {c} tank chits: die {a}, {'HOT' if b else 'cold'}."
            case E.ATTACK:
                return f"{W[a].upper()} fires at {veh(b)}: {c} against {d}: {'HIT' if c >= d else 'miss'}."
            case E.ATTACK_SKIPPED:
                return f"{W[a].upper()}: no UN vehicle in its fields of fire."
            case E.HEAVY_DAMAGE:
                return f"  {veh(a)} hit in the {C.HEAVY_NAMES[b]} (die {c})."
            case E.DESTROYED:
                return f"  {veh(a)} is DESTROYED."
            case E.COMMANDER_ROLL:
                return (
                    f"  {veh(a)}'s commander is unbuttoned: die {b}{': KILLED' if c else ', safe'}."
                )
            case E.ARTILLERY:
                target = C.ART_TARGET_NAMES[a].replace("none", "nothing (silent)")
                roll = f", 2d6 {b}" if b else ""
                return f"Artillery fires at {target}: {c} vehicles there{roll}."
            case E.ARTILLERY_DRAW:
                return f"  Artillery pool: {veh(a)}'s chit {'joins the weapon pool' if b else 'takes heavy damage'}."
            case E.DEADLINE:
                return f"T2 deadline {'+' if b > 0 else ''}{b}: now turn {a}."
            case E.VICTORY:
                kinds = [k for k, ok in (("operational", a), ("tactical", b)) if ok]
                return f"Victory conditions met: {' and '.join(kinds)}. {'The player stops.' if c else 'Play goes on.'}"
            case E.HULL_FLIP:
                return f"{veh(a)}'s hull marker flips to {'green' if b else 'red'}."
            case E.STUN_CLEARED:
                return f"{veh(a)}'s stun marker is removed."
            case E.GAME_END:
                return f"Game over: {E.END_REASONS[a]}."
        return f"event {kind}: {a} {b} {c} {d}"

    def narrate(self, trace: list[tuple], notes: dict[int, list[str]] | None = None) -> list[str]:
        """The account of a trace; notes[i]: lines to put before event i."""
        lines: list[str] = []
        phase = None
        notes = notes or {}
        for i, (_turn, kind, a, b, c, d) in enumerate(trace):
            lines += notes.get(i, [])
            if kind == E.TURN_START:
                lines += ["", f"=== Turn {a} (T2 deadline {b}, RoE {c}) ==="]
                phase = None
                continue
            heading = PHASE_OF.get(kind)
            if heading and heading != phase and _later(heading, phase):
                lines.append(f"-- {heading}")
                phase = heading
            lines.append(self.line(kind, a, b, c, d))
        return lines


_ORDER = ["Orders phase", "Execution phase", "Enemy reaction phase", "End phase"]


def _later(heading: str, phase: str | None) -> bool:
    return phase is None or _ORDER.index(heading) > _ORDER.index(phase)


def outcome_line(row: dict) -> str:
    """The last line of a narrated game: what the game came to."""
    if row["defeat"]:
        return f"Outcome: DEFEAT on turn {row['end_turn']} ({row['end_reason']})."
    won = [k for k in ("operational", "tactical", "strategic", "political") if row[k]]
    if not won:
        return f"Outcome: no result by turn {row['end_turn']}: just another day in Bosnia."
    return f"Outcome: {', '.join(won)} victory on turn {row['end_turn']}."
