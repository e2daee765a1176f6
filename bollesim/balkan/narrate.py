"""One Balkan Wars engagement told bound by bound (Game.narration): the reference engine
plays it with its events kept (reference.Battle.log) and this module puts them in words:
each general's move die, the stands out of command, the digits passed down, each
formation change and each group moved (on the road, across the river) with its range
band before and after, the generals' own moves, each firefight's dice with their
modifiers, who won and why the casualties are what they are, the close assaults and who
retired where, and how the battle ended."""

from __future__ import annotations

from collections import Counter

import numpy as np

from bollesim.balkan import luck, reference, ruleset

ATTACKER_DICE = {luck.FIRE_A, luck.ASSAULT_A, luck.REPLY_A, luck.COUNTER_A}
STEP_KM = 0.125  # a distance step (schema.py)


def labels(rules: ruleset.Ruleset, side: str) -> list[str]:
    """Each stand's name, in table order: its quality and type, numbered when the side has
    several alike ("trained infantry 3")."""
    kinds = []
    for entry in rules.data[side]["stands"]:
        kinds += [f"{entry['quality']} {entry['type'].replace('_', ' ')}"] * entry["count"]
    total, seen = Counter(kinds), Counter()
    out = []
    for kind in kinds:
        seen[kind] += 1
        out.append(f"{kind} {seen[kind]}" if total[kind] > 1 else kind)
    return out


def km(steps: int) -> str:
    return f"{steps * STEP_KM:g} km"


def band(stand: reference.Stand, dist: int) -> str:
    """The stand's range band at that distance from the defender's line (I-FRONT)."""
    if dist <= 1:
        return "in contact"
    if dist <= stand.effective:
        return "at short range" if stand.weapon == ruleset.ARTILLERY else "at effective range"
    return "at maximum range" if dist <= stand.maximum else "out of range"


def summary(names: list[str]) -> str:
    """'6 trained infantry, 2 veteran infantry' for a list of stand names."""
    kinds = Counter(n.rstrip("0123456789 ") for n in names)
    return ", ".join(f"{k} {kind}" if k > 1 else kind for kind, k in kinds.items())


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def die(face: int, modifier: int, score: int) -> str:
    if modifier == 0:
        return str(face)
    return f"{face}{signed(modifier)}={score}"


def general_labels(rules: ruleset.Ruleset, side: str) -> list[str]:
    """Each general's name: the commander by his quality ("good general"), then his
    subordinates ("average subordinate 1")."""
    subs = rules.data[side].get("subordinates", [])
    return [f"{rules.data[side]['general']} general",
            *(f"{s['quality']} subordinate {k}" for k, s in enumerate(subs, start=1))]


def new_narrated_battle(rules: ruleset.Ruleset, seed: int, game: int) -> reference.Battle:
    b = reference.new_battle(rules, seed, game)
    for k, side in enumerate(("attacker", "defender")):
        for stand, name in zip(getattr(b, side), labels(rules, side), strict=True):
            stand.label = name
        for general, name in zip(b.generals[k], general_labels(rules, side), strict=True):
            general.label = name
    b.log = []
    return b


def events(rules: ruleset.Ruleset, params: np.ndarray, seed: int, game: int) -> tuple[list, dict]:
    """The engagement's events (reference.Battle.note's tuples) and its result row."""
    b = new_narrated_battle(rules, seed, game)
    row = reference.play(rules, params, seed, game, b)
    return b.log, row


class Teller:
    """Turns the events of one engagement into lines."""

    def __init__(self, rules: ruleset.Ruleset):
        self.rules = rules
        self.throws: list[tuple] = []  # the dice of the contest under way, in throwing order

    def lines(self, log: list) -> list[str]:
        out, bound = [], 0
        for event in log:
            if event[0] != bound:
                bound = event[0]
                out += ["", f"Bound {bound}"]
            text = getattr(self, event[1])(*event[2:])
            out += [f"  {line}" for line in ([text] if isinstance(text, str) else text)]
        return out

    def move(self, side, general, face, modifier, digits):
        holding = side == "defender" and not self.rules.p("rally")
        holds = " (it holds its ground: battle.rally is off)" if holding else ""
        return (f"Move: the {side}'s {general} throws {face} {signed(modifier)}: "
                f"{digits} move digit{'s' * (digits != 1)}{holds}.")

    def command(self, side, names):
        return (f"  Out of their general's Command Area, the {side}'s {', '.join(names)} "
                "cannot move this bound.")

    def passed(self, subordinate, n):
        return (f"  The commander passes {n} digit{'s' * (n != 1)} down to subordinate "
                f"{subordinate}, at {2 * n} of his own.")

    def order(self, kind, option):
        from bollesim.balkan.positions import KINDS, OPTIONS

        arm = KINDS[kind].split("_")[0]
        return f"  Orders: the {arm} {OPTIONS[kind][option]} this bound."

    def digit(self, option):
        from bollesim.balkan.positions import KINDS, OPTIONS

        return f"  A digit: {OPTIONS[KINDS.index('digit')][option]} (not the farthest first)."

    def formation(self, side, names, to):
        return f"  The {side}'s {summary(names)} deploy from column into {to} (a digit)."

    def advance(self, names, head, frm, to, how):
        if head.side == reference.DEFENDER:
            return (f"  {summary(names)} rally toward their line, from {km(frm)} behind it "
                    f"to {km(to)}.")
        before, after = band(head, frm), band(head, to)
        change = f"still {after}" if before == after else f"from {before} to {after}"
        way = {"road": " on the road", "crossing": " across the river (at the difficult rate)",
               "blocked": " to the river's bank (no crossing they may use in their lane)",
               "bank": " to the river's bank (across it, the move would go at the difficult rate)",
               "further": " further, with the unused digits (0.25 km each)"}.get(how, "")
        return f"  {summary(names)} advance{way} from {km(frm)} to {km(to)} ({change})."

    def general(self, side, general, frm, to):
        lanes = f", lane {frm[1]} to {to[1]}" if self.rules.p("lanes") and frm[1] != to[1] else ""
        where = "behind the line" if side == "defender" else "from the line"
        if frm[0] == to[0]:
            return f"  The {side}'s {general} stays {km(to[0])} {where}{lanes}."
        return (f"  The {side}'s {general} goes from {km(frm[0])} to {km(to[0])} {where}"
                f"{lanes}.")

    def firefight(self, mover, n_mover, n_other):
        other = "defender" if mover == "attacker" else "attacker"
        self.throws = []
        return f"The {mover}'s firefight: {n_mover} {mover}'s and {n_other} {other}'s stands in range fire."

    def assault(self, side, assaulting, assaulted):
        self.throws = []
        other = "defender" if side == "attacker" else "attacker"
        return (f"Close assault: the {side}'s {summary(assaulting)} go in against the "
                f"{other}'s {summary(assaulted)}.")

    def dice(self, purpose, rolls, total, sixes):
        side = "attacker" if purpose in ATTACKER_DICE else "defender"
        self.throws.append((side, total, sixes))
        if not rolls:
            return f"  The {side} throws no dice: total 0."
        shown = ", ".join(f"{name} {die(f, m, s)}" for name, f, m, s in rolls)
        return f"  The {side}'s dice: {shown}; total {total}, {sixes} six{'es' * (sixes != 1)}."

    def winner(self, mover, winner):
        (first, t1, s1), (second, t2, s2) = self.throws[:2]
        if winner == 0:
            return f"  A tie at {t1}: nobody wins; only the sixes wound."
        won, lost = (first, second) if winner > 0 else (second, first)
        gap = abs(t1 - t2)
        sixes = s1 if winner > 0 else s2
        return (f"  The {won} wins, {max(t1, t2)} to {min(t1, t2)}: the {lost} takes {gap} / 6 "
                f"= {gap // 6} for the difference and {sixes} for the {won}'s sixes; the {won} "
                f"takes {s2 if winner > 0 else s1} for the {lost}'s sixes.")

    def casualties(self, side, n, destroyed):
        if not n:
            return []
        gone = f" ({', '.join(destroyed)} destroyed)" if destroyed else ""
        return f"  The {side} loses {n} figure{'s' * (n != 1)}{gone}."

    def retire(self, side, gone):
        if not gone:
            return []
        off = [name for name, how, _ in gone if how == "off"]
        lost = [name for name, how, _ in gone if how == "blocked"]
        back = Counter((how, dist) for _, how, dist in gone if how in ("back", "bank"))
        where = "behind its line" if side == "defender" else "from the line"
        parts = [f"{summary(off)} leave the field"] if off else []
        parts += [f"{summary(lost)} cannot cross the river behind them and are lost"] if lost else []
        parts += [f"{k} stand{'s' * (k != 1)} fall back to {km(d)} {where}"
                  + (" (to the river's bank)" if how == "bank" else "") for (how, d), k in back.items()]
        return f"  The {side} retires: {'; '.join(parts)}."

    def lookahead(self, line):
        return line.strip()

    def end(self, reason):
        if reason == "day ended":
            return "The day ends: neither army has broken."
        return (f"The battle ends: the {reason} (more than {self.rules.p('break_percent')}% "
                f"of its stands destroyed or gone, Winning a Battle).")


def header(rules, policy, params, seed, game_index) -> list[str]:
    values = ", ".join(f"{p.name}={p.text(v)}" for p, v in zip(policy.parameters, params, strict=False))
    return [f"The Balkan Wars: {rules.name}, policy {policy.name} ({values}), "
            f"seed {seed}, game {game_index}.",
            f"The attack starts {km(rules.p('start_distance'))} from the defender's line; "
            f"{len(rules.attacker)} attacking stands, {len(rules.defender)} defending.",
            modifiers(rules)]


def modifiers(rules) -> str:
    """The dice modifiers in force (Firing Modifiers, Close Assault Modifiers), in words."""
    m, cover = rules.data["modifiers"], {s: rules.data[s]["cover"] for s in ("attacker", "defender")}
    covered = "; ".join(f"the {s}'s cover ({c}) {signed(m[c])} on the dice against it"
                        for s, c in cover.items() if c != "none")
    return (f"Modifiers: {covered + '; ' if covered else ''}veteran {signed(m['veteran'])}, "
            f"green {signed(m['green'])}; rifles and machine guns beyond effective range "
            f"{signed(m['beyond_effective'])}; scores kept within 1 to 6 "
            f"{'on the total' if rules.p('clamp_total') else 'die by die'} (I-CLAMP).")


def outcome(row: dict) -> str:
    first = row["first_assault_bound"]
    assault = f"first close assault in bound {first}" if first else "no close assault"
    return (f"Outcome: {row['end_reason']} in bound {row['end_bound']}; {assault}; stands "
            f"lost: attacker {row['attacker_stands_lost']}, defender "
            f"{row['defender_stands_lost']}; figures lost: attacker "
            f"{row['attacker_casualties']}, defender {row['defender_casualties']}.")


def narrated_game(rules, policy, params, seed: int, game_index: int = 0,
                  engine: str = "reference") -> tuple[list[str], dict]:
    """The engagement told bound by bound, and its result row (Game.narration). The
    reference engine tells it; with engine "fast" the row is the fast engine's (the same
    game: tests/test_balkan.py holds them equal)."""
    log, row = events(rules, policy.kernel_params(params), seed, game_index)
    if engine == "fast":
        from bollesim.balkan.play import play_chunk
        from bollesim.balkan.result import RESULT

        row = RESULT.row(play_chunk(rules, policy, np.atleast_2d(params), seed, game_index, "fast")[0])
    lines = [*header(rules, policy, params, seed, game_index), *Teller(rules).lines(log), "",
             outcome(row)]
    return lines, row


def game_document(rules, policy, params, seed: int, game_index: int = 0) -> dict:
    """The engagement as data: what was played, its events in order, the narration and
    the result row."""
    log, row = events(rules, policy.kernel_params(params), seed, game_index)
    lines, _ = narrated_game(rules, policy, params, seed, game_index)
    return {"game": "balkan-wars", "ruleset": rules.name, "policy": policy.name,
            "params": {p.name: float(v) for p, v in zip(policy.parameters, params, strict=False)},
            "seed": seed, "game_index": game_index,
            "events": [{"bound": e[0], "event": e[1], "facts": _plain(e[2:])} for e in log],
            "narration": lines, "result": row}


def _plain(facts):
    """Event facts as JSON values (a stand as its name)."""
    out = []
    for f in facts:
        if isinstance(f, reference.Stand):
            out.append(f.label)
        elif isinstance(f, list | tuple):
            out.append(_plain(f))
        else:
            out.append(f.item() if hasattr(f, "item") else f)
    return out
