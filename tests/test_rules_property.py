"""Both engines play any valid ruleset identically: rulesets drawn from the declaration
(schema.py: every key's kind and range) are played by both engines, which must give the
same rows and traces; a ruleset one engine could not play is refused at load.

Each drawn ruleset is the default with a few keys changed to values their declaration
allows (a scalar, a list, a column of a row, an extra road); drawings the loader refuses
are discarded, so what is played is exactly what `rules check` accepts.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from test_fast_engine import compare_engines, obs_hash_policy

from bollesim.bollebank import codes
from bollesim.bollebank.rules import schema
from bollesim.bollebank.rules.loader import (
    DEFAULT_PATH,
    RulesetError,
    build,
    load_ruleset,
    locate,
    read_toml,
)
from bollesim.game.policy import load_policy
from bollesim.game.schema import row_label

DEFAULT = read_toml(DEFAULT_PATH)
FIXED = {"vehicles.ids", "order_matrix.types", "map.roads"}  # the rulebook's, or drawn apart
FIXED_COLUMNS = {"id", "type", "count"}  # row names, and chit counts the tracks must follow


def values(kind, length: int | None = None):
    """A strategy for valid TOML values of a declared kind."""
    if isinstance(kind, schema.Int):
        return st.integers(kind.lo, kind.hi)
    if isinstance(kind, schema.Flag):
        return st.booleans()
    if isinstance(kind, schema.Choice):
        return st.sampled_from(kind.names)
    if isinstance(kind, schema.Mask):
        return st.lists(st.sampled_from(kind.names), unique=True)
    if isinstance(kind, schema.Record):
        return st.fixed_dictionaries({k.name: values(k.kind) for k in kind.keys})
    if isinstance(kind, schema.ListOf):
        n = kind.length if kind.length is not None else length
        return st.lists(values(kind.item), min_size=n, max_size=n)
    raise TypeError(kind)


def sites() -> list[tuple[str, object]]:
    """(key path, strategy) for every value a drawing may change, from the declaration."""
    out = []

    def add(path: str, key: schema.Key, default) -> None:
        if path in FIXED or isinstance(key.kind, schema.Text):
            return
        length = len(default) if isinstance(default, list) else None
        out.append((path, values(key.kind, length)))

    for entry in schema.DECLARATION:
        tables = [entry] if isinstance(entry, schema.Table) else []
        rows_decls = [(entry.name, entry)] if isinstance(entry, schema.Rows) else []
        for table in tables:
            for e in table.entries:
                if isinstance(e, schema.Key):
                    add(f"{table.name}.{e.name}", e, DEFAULT[table.name].get(e.name))
                else:
                    rows_decls.append((f"{table.name}.{e.name}", e))
        for path, rows in rows_decls:
            node = DEFAULT
            for part in path.split("."):
                node = node[part]
            for i, row in enumerate(node):
                label = row_label(rows, row, i)
                for col in rows.columns:
                    if col.name not in FIXED_COLUMNS:
                        add(f"{path}[{label}].{col.name}", col, row.get(col.name))
    return out


# Keys the loader ties together, drawn together: the four named places are four distinct
# contact points; an extended game is no shorter than the regular one.
PLACES = ("map.saraci", "map.kalesija", "map.tango2", "map.op_n")
CONTACT_POINTS = [p for p, row in zip(codes.POSITIONS, DEFAULT["map"]["positions"], strict=True)
                  if row["kind"] == "cp"]
JOINT = {
    "map places": st.permutations(CONTACT_POINTS).map(lambda cps: list(zip(PLACES, cps, strict=True))),
    "game.extended_turn_limit": st.integers(DEFAULT["game"]["turn_limit"], schema.MAX_TURNS).map(
        lambda n: [("game.extended_turn_limit", n)]),
}
SITES = [s for s in sites() if s[0] not in (*PLACES, *JOINT)]
SITES += [(name, strategy) for name, strategy in JOINT.items()]
SCALARS = {path for path, _ in schema.scalar_keys()} | {"map places"}
ROAD = st.lists(st.sampled_from(codes.POSITIONS), min_size=2, max_size=2, unique=True)


def changes(of_sites: list, low: int, high: int):
    """Between low and high changes at distinct sites, each a (path, value)."""
    chosen = st.lists(st.sampled_from(of_sites), min_size=low, max_size=high, unique_by=lambda s: s[0])
    return chosen.flatmap(lambda picked: st.tuples(
        *(strategy.map(lambda v, path=path: (path, v)) for path, strategy in picked)
    ))


# A drawing changes several scalar keys (every one is drawn a few times over the examples)
# and a few tables: lists, row columns, an extra road.
CHANGES = st.tuples(
    changes([s for s in SITES if s[0] in SCALARS], 3, 10),
    changes([s for s in SITES if s[0] not in SCALARS], 0, 3),
    st.lists(ROAD.map(lambda road: ("map.roads", road)), max_size=1),
).map(lambda parts: [change for part in parts for change in part])


def drawn_ruleset(changes):
    data = copy.deepcopy(DEFAULT)
    for path, value in changes:
        if path == "map.roads":
            data["map"]["roads"].append(value)
            continue
        for key, v in value if path in JOINT else [(path, value)]:
            node, name, _ = locate(data, key, "drawn")
            node[name] = v
    try:
        return build(data, "drawn")
    except RulesetError:
        reject()


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(CHANGES)
def test_engines_agree_on_any_valid_ruleset(drawn):
    rules = drawn_ruleset(drawn)
    compare_engines(obs_hash_policy(), 2, rules=rules, seed=len(drawn))
    compare_engines(load_policy("historical"), 2, rules=rules, seed=len(drawn))


def test_the_drawings_reach_every_part_of_the_declaration():
    """Every scalar key of the declaration is a site (a new key is drawn without a test
    change), and so are the lists, masks and row columns."""
    paths = {path for path, _ in SITES} | set(PLACES)
    assert {path for path, _ in schema.scalar_keys()} <= paths
    for path in ("vehicles.platoon", "tracks.atgm_to_hit", "damage.hmg_hit",
                 "map.positions[K1].bsa", "enemy_action_markers[FP7].sides",
                 "chits.groups[7].double", "abilities[QL1].level", "order_matrix.scope"):
        assert path in paths, path


@pytest.mark.parametrize("platoon", [
    [0, 0, 0, 1, 1, 1, 1, 2, 2],  # a platoon of four
    [0, 0, 0, 1, 1, 1, 2, 2, 3],  # a third platoon
    [0, 0, 1, 1, 1, 1, 1, 1, 1],  # every tank in one platoon of seven
])
def test_engines_agree_on_other_platoons(platoon):
    rules = load_ruleset(overrides=[f"vehicles.platoon={platoon}"])
    compare_engines(obs_hash_policy(), 40, rules=rules)


def test_a_platoon_the_engines_cannot_order_is_refused():
    with pytest.raises(RulesetError) as info:
        load_ruleset(overrides=["vehicles.platoon=[0, 1, 1, 1, 1, 1, 1, 1, 1]"])
    assert info.value.key == "vehicles.platoon" and "247 groups" in info.value.problem
