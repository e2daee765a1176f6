"""Hypothesis strategies of hostile values, shared by the hostile tests of the command line
(test_hostile.py) and of the what-if page's server (test_serve_hostile.py)."""

from __future__ import annotations

import json

from hypothesis import strategies as st

toml_values = st.recursive(
    st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)


def toml(value) -> str:
    """A value as TOML (JSON's spelling, which TOML shares for these types)."""
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return json.dumps(value)


# Values as text, TOML's and JSON's (they share this spelling): nested up to a few thousand
# levels deep and integers up to thousands of digits, which Python cannot always read or
# carry (its recursion and its 4,300-digit limit), besides ordinary values.
# The sizes that matter most are drawn often: just past bollesim's limits (INT_DIGITS,
# MAX_DEPTH), past Python's digits limit, deep enough to overflow a recursive copy (900) or
# the parser itself (3,000).
digits = st.sampled_from([25, 4301, 5000]) | st.integers(20, 6000)
huge_integers = digits.map(lambda n: "9" * n) | st.integers(-(2**70), 2**70).map(str)
depths = st.sampled_from([33, 900, 3000]) | st.integers(30, 3000)
deeply_nested = st.tuples(depths, st.sampled_from(["1", "9" * 30, '"x"'])).map(
    lambda depth_leaf: "[" * depth_leaf[0] + depth_leaf[1] + "]" * depth_leaf[0])
value_text = st.recursive(
    huge_integers | deeply_nested | toml_values.map(toml),
    lambda inner: st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    max_leaves=4,
)
json_text = value_text | st.dictionaries(st.sampled_from(["roe.start", "map.roads", "k", "x"]),
                                         value_text, max_size=2).map(
    lambda d: "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in d.items()) + "}")
