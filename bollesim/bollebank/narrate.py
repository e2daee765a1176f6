"""Turn a game trace (events.py) into a turn-by-turn account, in the manner of §11: the
rulebook's place names, each die roll with its target number and modifiers ("10,
modified by -1 = 9"), and a reason for every refusal and for the end of the chit draw.

The narrator follows the few facts its reasons need (RoE, fire status, light damage,
tank chits on their track) from the events themselves: each turn's first event gives the
RoE and the fire status; a trace that starts mid-game (the §11 example) leaves the earlier
light damage and tank chits untold.
"""

from __future__ import annotations

from bollesim.bollebank import codes, decisions, events
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.bollebank.rules.odds import d6_at_least, d6_up_to, on_2d6, percent

PHASE_OF = {  # the phase heading an event opens, when it is the first of its phase
    events.VL2_DESTINATION: "Orders phase",
    events.DRAW: "Orders phase",
    events.COMMANDER_CHECK: "Execution phase",
    events.AIRSTRIKE: "Execution phase",
    events.MOVE: "Execution phase",
    events.NOT_MOVED: "Execution phase",
    events.FIRE: "Execution phase",
    events.TANK_STATUS: "Enemy reaction phase",
    events.ATTACK: "Enemy reaction phase",
    events.MODIFIER: "Enemy reaction phase",
    events.ARTILLERY: "Enemy reaction phase",
    events.ATTACK_SKIPPED: "Enemy reaction phase",
    events.VICTORY: "End phase",
    events.HULL_FLIP: "End phase",
}
WEAPON_WORDS = codes.WEAPON_WORDS
TYPE_WORDS = ("tank", "ATGM", "HMG", "artillery")  # the same within a sentence


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """ "1 tank chit", "3 tank chits"."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def _words(name: str) -> str:
    return name.replace("_", " ")


def _modifier_words(cause: int, drm: int, detail: int) -> str:
    """ "-1 for a UN vehicle in an R overwatch" (§7.1.1), "-1 for Draw their fire" (§5.5)."""
    if cause == events.MOD_OVERWATCH:
        letter = codes.LETTER_NAMES[detail]
        article = "an" if letter in ("L", "R") else "a"
        return f"{drm:+d} for a UN vehicle in {article} {letter} overwatch"
    return f"{drm:+d} for {events.MODIFIER_CAUSES[cause]}"


class Narrator:
    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.reset(turn=0)

    def reset(self, turn: int) -> None:
        """What the narrator knows before a trace that starts on `turn`."""
        start = turn == 1
        self.roe: int | None = None
        self.fired = False
        self.light: list[set[int]] = [set() for _ in self.rules.vehicle_ids]
        self.tank_chits = 0 if start else None
        self.modifiers: list[tuple[int, int, int]] = []  # of the next attack
        self.pair: tuple[int, int] | None = None  # chit types of the pair being played
        self.placed = 0  # chits of that pair placed on their tracks
        self.ordered = False  # an order was issued for that pair
        self.only_refused = False  # its only order, Fire, was refused

    # -------------------------------------------------------------- names

    def chit(self, c: int) -> str:
        r = self.rules
        t = r.chit_type[c]
        if t == codes.RU:
            return f"random unit ({r.vehicle_ids[r.chit_vehicle[c]]})"
        if t == codes.CAR:
            return "civilian car (VW Golf)"
        if c == r.setup_chit:
            return "Saraci setup artillery"
        if t == codes.ART:
            return f"Artillery ({codes.ART_TARGET_NAMES[r.chit_art_target[c]].replace('none', 'No art.')})"
        double = ", 2 targets" if r.chit_double[c] else ""
        return f"{WEAPON_WORDS[t]} ({codes.LETTER_NAMES[r.chit_letter[c]]}{double})"

    def pos(self, p: int) -> str:
        return self.rules.position_names[p] if p >= 0 else "-"

    def veh(self, v: int) -> str:
        return self.rules.vehicle_ids[v]

    def art_target(self, target: int) -> str:
        """An artillery target as the rulebook names it: its contact point (§7.2)."""
        r = self.rules
        if target == codes.NO_ART:
            return "nothing (Vis is silent)"
        cps = [p for p in range(len(r.position_ids)) if r.pos_art[p] == target and r.pos_kind[p] == codes.CP]
        return self.pos(cps[0]) if cps else codes.ART_TARGET_NAMES[target]

    def order(self, code: int) -> str:
        kind, mask, dest = decisions.order_kind(code), decisions.order_mask(code), decisions.order_dest(code)
        names = ", ".join(self.veh(v) for v in range(len(self.rules.vehicle_ids)) if mask >> v & 1)
        if kind == codes.MOVE:
            if dest >= decisions.SPREAD:
                town = self.rules.saraci if dest - decisions.SPREAD == codes.TOWN_S else self.rules.kalesija
                where = f"the overwatches of {self.pos(town)}"
            else:
                where = self.pos(dest)
            return f"Move to {where} for {names}"
        if kind == codes.FIRE:
            return f"Fire for {names}"
        if kind == codes.TOW:
            return f"Tow: {names} to recover {self.veh(dest)}"
        return "Call for airstrike"

    def option(self, kind: int, option: int) -> str:
        """One option of a decision (decisions.py), in words."""
        if kind in (decisions.VL2_DESTINATION, decisions.ISSUE_ORDER, decisions.EXTRA_ORDER):
            return "no order" if option == decisions.PASS else self.order(option)
        if kind in (decisions.DRAW_AGAIN, decisions.USE_ABILITY, decisions.STOP_ON_VICTORY):
            words = {
                decisions.DRAW_AGAIN: ("stop drawing", "draw another pair"),
                decisions.USE_ABILITY: ("not now", "use it"),
                decisions.STOP_ON_VICTORY: ("play on", "stop and claim the victory"),
            }
            return words[kind][option]
        if kind == decisions.REFRESH_ABILITY:
            if option == 0:
                return "none"
            a, side = divmod(option - 1, 2)
            return _words(codes.ABILITY_NAMES[self.rules.ability_sides[a, side]])
        if kind == decisions.ABILITY_SIDE:
            return f"side {option + 1}"
        if kind == decisions.TOW_DESTINATION:
            return self.pos(option)
        if kind in (decisions.FIRE_TARGET, decisions.DEPOT_TRACK):
            return f"the {codes.WEAPON_NAMES[option]} track"
        return "none" if option < 0 else self.veh(option)  # the decisions naming a vehicle

    # -------------------------------------------------------------- reasons

    def fire_refused(self) -> str | None:
        """Why a Fire order cannot be given now (§5.4.2, I-FIRST-FIRE), or None."""
        r = self.rules
        needed = r.p("roe", "fire_allowed")
        every = r.p("interpretations", "fire_order_roe") == codes.FIRE_ROE_EVERY
        if self.roe is None or (self.fired and not every) or self.roe >= needed:
            return None
        return f"cannot fire: RoE {self.roe} < {needed}"

    def pair_closed(self, next_kind: int | None) -> list[str]:
        """The lines after a pair's chits went on their tracks: no order, and why the
        draw goes on or stops (§5.3)."""
        first, second = self.pair
        out = []
        if not self.ordered:
            out.append("No order can be issued." if self.only_refused else "The player issues no order.")
        if first == second:
            out.append(f"Two {TYPE_WORDS[first]} chits: the Orders phase ends (§5.3).")
        elif next_kind not in (events.DRAW, events.POOL_EXHAUSTED):
            tanks = "" if self.tank_chits is None else (
                f", with {plural(self.tank_chits, 'tank chit')} on the track"
            )
            out.append(f"The player stops drawing{tanks}.")
        self.pair = None
        return out

    def attack(self, weapon: int, target: int, roll: int, to_hit: int) -> str:
        """§7.1.1-7.1.2: "needs 10 on 2d6, -1 (...) (8.3%); rolls 10, modified by -1 = 9"."""
        drm = sum(m for _, m, _ in self.modifiers)
        why = " and ".join(_modifier_words(cause, m, detail) for cause, m, detail in self.modifiers)
        self.modifiers = []
        need = f"to hit {to_hit} on 2d6" + (f", {why}" if drm else "")
        rolled = f"the die roll is {roll - drm}" + (f", modified by {drm:+d} = {roll}" if drm else "")
        hit = "HIT" if roll >= to_hit else "miss"
        return (f"{WEAPON_WORDS[weapon]} fires at {self.veh(target)}: {need} "
                f"({percent(on_2d6(to_hit, drm))}); {rolled}: {hit}.")

    def un_fire(self, vehicle: int, track: int, die: int, hit: int) -> str:
        """§6.3: direct fire hits; indirect fire or misaligned sights need a d6."""
        p = self.rules.p
        target = f"{self.veh(vehicle)} fires at the {TYPE_WORDS[track]} track"
        if not die:
            return f"{target}: {'hit' if hit else 'miss'}."
        sights = codes.SIGHTS in self.light[vehicle]
        best = p("fire", "sights_hit_max") if sights else p("fire", "indirect_hit_max")
        why = "misaligned sights" if sights else "indirect fire"
        return (f"{target}, {why}: needs 1-{best} on a d6 ({percent(d6_up_to(best))}); "
                f"rolls {die}: {'hit' if hit else 'miss'}.")

    # -------------------------------------------------------------- one event

    def line(self, kind: int, a: int, b: int, c: int, d: int) -> str:
        r, veh, pos, W = self.rules, self.veh, self.pos, WEAPON_WORDS
        ability = lambda a, side: _words(codes.ABILITY_NAMES[r.ability_sides[a, side]])  # noqa: E731
        match kind:
            case events.VL2_DESTINATION:
                return f"VL2 (the player) heads for {pos(a)}."
            case events.DRAW:
                return f"Draws {self.chit(a)}."
            case events.LIGHT_DAMAGE:
                if b < 0:
                    return f"{veh(a)} already has every light damage: no effect."
                return f"{veh(a)} takes light damage: {_words(codes.LIGHT_NAMES[b])} (d6 {c})."
            case events.CIVILIAN_CAR:
                return f"The civilian car is retired; {self.chit(b)} goes to its track, no order."
            case events.PAIR:
                orders = [o for o, ok in (("Fire", c), ("Move", d & 1)) if ok]
                scope = "a platoon or one vehicle" if d & 2 else "one vehicle"
                refused = self.fire_refused() if c else None
                self.only_refused = bool(refused) and not d & 1
                tail = f"; {refused}" if refused else ""
                return (
                    f"Pair {self.chit(a)} + {self.chit(b)}: the Order Matrix gives "
                    f"{' or '.join(orders)} for {scope}{tail}."
                )
            case events.ORDER:
                extra = " (Extra order)" if b == decisions.EXTRA_ORDER else ""
                return f"Issues {self.order(a)}{extra}."
            case events.RADIO:
                if b == 0:
                    return f"  {veh(a)} receives the order."
                if c <= 0:
                    return f"  Radio check for {veh(a)}: no roll can succeed: lost."
                return (f"  Radio check for {veh(a)}: needs {c} or less on a d6 "
                        f"({percent(d6_up_to(c))}); rolls {b}: {'received' if d else 'lost'}.")
            case events.FIRE_STATUS:
                return f"First Fire order: the fire status marker goes to RoE {a} (Fire at Will)."
            case events.PLACE:
                return f"  {self.chit(a)} goes on the {TYPE_WORDS[b]} track ({c} there)."
            case events.ROE:
                return f"RoE {b:+d} ({events.ROE_CAUSES[c]}): now {a}."
            case events.ABILITY:
                what = ("becomes available", "returns to the RoE track", "is used", "is refreshed")[b]
                return f"{veh(r.ability_vehicle[a])} ability '{ability(a, c)}' {what}."
            case events.POOL_EXHAUSTED:
                return (f"Only {plural(a, 'weapon chit')} left in the pool: the Orders phase "
                        "ends (I-POOL).")
            case events.COMMANDER_CHECK:
                acts = r.p("damage", "commander_killed_acts_max")
                return (f"{veh(a)} (commander killed) acts on 1-{acts} on a d6; rolls {b}: "
                        f"{'acts' if c else 'does nothing this turn'}.")
            case events.AIRSTRIKE:
                return f"Airstrike on Vis! Removed tank {a}, ATGM {b}, HMG {c}, artillery {d}."
            case events.MOVE:
                return f"{veh(a)} moves from {pos(b)} to {pos(c)}."
            case events.NOT_MOVED:
                reason = events.NOT_MOVED_REASONS[b]
                if b == events.NIGHT_VISION_FAILED:
                    fail = r.p("movement", "night_vision_fail_min")
                    reason += f" (rolls {c}, modified; stays on {fail} or more)"
                return f"{veh(a)} does not move: {reason}."
            case events.MARKER_DRAWN:
                return f"First entry into {pos(a)}: enemy action marker {r.marker_ids[b]} side {'ab'[c]}."
            case events.ARRIVED:
                return f"{veh(a)} reaches {pos(b)}."
            case events.TOW_HOOKED:
                return f"{veh(a)} hooks up {veh(b)}; the tow heads for {pos(c)}."
            case events.TOW_DONE:
                return f"{veh(a)} brings {veh(b)} to {pos(c)}."
            case events.TOW_DROPPED:
                return f"  {veh(a)} leaves {veh(b)} where it stands for its new order."
            case events.FIRE:
                return self.un_fire(a, b, c, d)
            case events.REMOVED:
                return f"  {self.chit(a)} returns to the pool."
            case events.SETUP_FLIPPED:
                return "  The Saraci setup artillery marker flips to No Artillery."
            case events.DEPOT:
                return (f"Three 1s from Saraci: the ammunition depot on Vis explodes! The "
                        f"{TYPE_WORDS[a]} track is emptied.")
            case events.TANK_STATUS:
                low = int(r.tank_hot_min[c - 1])
                return (f"Tank status with {plural(c, 'tank chit')}: hot on {low} or more on a "
                        f"d6 ({percent(d6_at_least(low))}); rolls {a}: "
                        f"{'HOT, they fire' if b else 'cold, no tank fire'}.")
            case events.ATTACK:
                return self.attack(a, b, c, d)
            case events.ATTACK_SKIPPED:
                return f"{W[a]}: no UN vehicle in its fields of fire."
            case events.HEAVY_DAMAGE:
                return f"  {veh(a)} hit in the {codes.HEAVY_NAMES[b]} (d6 {c})."
            case events.DESTROYED:
                return f"  {veh(a)} is DESTROYED."
            case events.COMMANDER_ROLL:
                kill = r.p("damage", "hmg_kills_commander_on")
                return (f"  {veh(a)}'s commander is unbuttoned: killed on {kill} or more on a "
                        f"d6; rolls {b}{': KILLED' if c else ', safe'}.")
            case events.ARTILLERY:
                return self.artillery(a, b, c)
            case events.ARTILLERY_DRAW:
                return f"  Artillery pool: {veh(a)}'s chit {'joins the weapon pool' if b else 'takes heavy damage'}."
            case events.DEADLINE:
                return f"T2 deadline {b:+d}: now turn {a}."
            case events.VICTORY:
                kinds = [k for k, ok in (("operational", a), ("tactical", b)) if ok]
                return f"Victory conditions met: {' and '.join(kinds)}. {'The player stops.' if c else 'Play goes on.'}"
            case events.HULL_FLIP:
                return f"{veh(a)}'s hull marker flips to {'green' if b else 'red'}."
            case events.STUN_CLEARED:
                return f"{veh(a)}'s stun marker is removed."
            case events.GAME_END:
                return f"Game over: {events.END_REASONS[a]}."
        return f"event {kind}: {a} {b} {c} {d}"

    def artillery(self, target: int, roll: int, present: int) -> str:
        """§7.2: the target, the vehicles there, and the 2d6 with what it means."""
        p = self.rules.p
        there = "no vehicle there" if present == 0 else f"{plural(present, 'vehicle')} there"
        line = f"Artillery fires at {self.art_target(target)}: {there}"
        if roll:
            if roll <= p("artillery", "only_effects_roll"):
                means = "only the further effects"
            elif roll >= p("artillery", "heavy_damage_roll"):
                means = "heavy damage to one of them"
            else:
                means = "a random-unit chit of one of them"
            line += f"; 2d6 {roll}: {means}"
        return line + "."

    def follow(self, kind: int, a: int, b: int, c: int, d: int) -> None:
        """Keep the facts the reasons need, after an event's line."""
        match kind:
            case events.ROE:
                self.roe = a
            case events.FIRE_STATUS:
                self.fired = True
            case events.LIGHT_DAMAGE if b >= 0:
                self.light[a].add(b)
            case events.MODIFIER:
                self.modifiers.append((a, b, c))
            case events.PAIR:
                types = self.rules.chit_type
                self.pair, self.placed, self.ordered = (int(types[a]), int(types[b])), 0, False
            case events.ORDER:
                self.ordered = True
            case events.PLACE:
                if b == codes.TANK:
                    self.tank_chits = c
                if self.pair is not None:
                    self.placed += 1
            case events.TANK_STATUS:
                self.tank_chits = c
            case events.REMOVED if b == codes.TANK and self.tank_chits is not None:
                self.tank_chits -= 1
            case events.AIRSTRIKE if self.tank_chits is not None:
                self.tank_chits -= a
            case events.DEPOT if a == codes.TANK:
                self.tank_chits = 0

    def narrate(self, trace: list[tuple], notes: dict[int, list[str]] | None = None) -> list[str]:
        """The account of a trace; notes[i]: lines to put before event i."""
        lines: list[str] = []
        phase = None
        notes = notes or {}
        for i, (_turn, kind, a, b, c, d) in enumerate(trace):
            lines += notes.get(i, [])
            if kind == events.TURN_START:
                if i == 0:
                    self.reset(turn=a)
                self.roe, self.fired = c, d > 0
                lines += ["", f"=== Turn {a} (T2 deadline {b}, RoE {c}) ==="]
                phase = None
                continue
            heading = PHASE_OF.get(kind)
            if heading and heading != phase and _later(heading, phase):
                lines.append(f"-- {heading}")
                phase = heading
            if kind != events.MODIFIER:  # a modifier is told with its attack
                lines.append(self.line(kind, a, b, c, d))
            self.follow(kind, a, b, c, d)
            if kind == events.PLACE and self.pair is not None and self.placed == 2:
                following = trace[i + 1][1] if i + 1 < len(trace) else None
                lines += self.pair_closed(following)
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
