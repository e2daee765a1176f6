"""A gradient-boosted forest as one flat float64 array, evaluated in compiled code.

LightGBM fits the forest (bollesim train); `pack` exports its trees, and `score` walks
them inside the engine with no Python per decision. Each tree is stored complete to the
forest's depth D (its deepest leaf), so a walk is D steps with no test for a leaf and
no branch but the split's: a shallower leaf is reached through splits that always go
left (threshold +inf) and its value fills every slot beneath it. From `start`:

    blob[start]                     number of trees T
    blob[start + 1]                 the forest's constant (0: LightGBM folds it into a tree)
    blob[start + 2]                 the depth D
    then per tree (tree_size(D) values):
        2^D - 1 features, 2^D - 1 thresholds     the splits, breadth first (slot i has
                                                 children 2i + 1 and 2i + 2)
        2^D leaf values                          left to right

A split sends x to the left when x[feature] <= threshold (LightGBM's numerical split; the
features here are never missing).
"""

from __future__ import annotations

import numpy as np

from bollesim.jit import compiled

HEAD = 3  # the tree count, the constant, the depth
MAX_DEPTH = 12  # a complete tree of this depth takes 12,286 values


def tree_size(depth: int) -> int:
    """Values one tree of the forest takes at this depth."""
    return 2 * (2**depth - 1) + 2**depth


def depth_of(node) -> int:
    """How deep a tree of LightGBM's dump_model goes below `node`."""
    if "split_feature" not in node:
        return 0
    return 1 + max(depth_of(node["left_child"]), depth_of(node["right_child"]))


def complete(tree, depth: int) -> np.ndarray:
    """One tree of dump_model as its tree_size(depth) values (module docstring)."""
    inner = 2**depth - 1
    feature, threshold, leaf = np.zeros(inner), np.full(inner, np.inf), np.zeros(2**depth)
    todo = [(tree, 0, 0)]  # (node, slot, level)
    while todo:
        node, slot, level = todo.pop()
        if "split_feature" not in node:  # every leaf slot beneath it, at depth D
            width = 2 ** (depth - level)
            first = (slot + 1) * width - 1 - inner
            leaf[first:first + width] = node.get("leaf_value", 0.0)
            continue
        if node.get("decision_type", "<=") != "<=":
            raise ValueError(f"a split LightGBM calls {node['decision_type']!r}: numeric only")
        feature[slot], threshold[slot] = node["split_feature"], node["threshold"]
        todo += [(node["left_child"], 2 * slot + 1, level + 1),
                 (node["right_child"], 2 * slot + 2, level + 1)]
    return np.concatenate([feature, threshold, leaf])


def pack(booster) -> np.ndarray:
    """The trees of a fitted LightGBM Booster as a flat array (module docstring)."""
    trees = [t["tree_structure"] for t in booster.dump_model()["tree_info"]]
    depth = max([depth_of(t) for t in trees] + [0])
    if depth > MAX_DEPTH:
        raise ValueError(f"a tree {depth} deep: fit with max_depth at most {MAX_DEPTH} (each "
                         "tree is stored complete)")
    return np.concatenate([[float(len(trees)), 0.0, float(depth)],
                           *(complete(t, depth) for t in trees)])


@compiled
def score(blob, start, x):
    """The forest's raw score (the sum of its trees' leaves and its constant) of x."""
    return partial_scores(blob, start, x.reshape(1, x.shape[0]), 0, np.int64(blob[start]))[0]


@compiled
def scores(blob, start, xs):
    """score of each row of xs."""
    return partial_scores(blob, start, xs, 0, np.int64(blob[start]))


@compiled
def partial_scores(blob, start, xs, first, last):
    """The sums of trees first..last-1 of the forest (the constant with the first) for
    each row of xs, the rows walked side by side through each tree."""
    rows = xs.shape[0]
    depth = np.int64(blob[start + 2])
    inner = (1 << depth) - 1
    size = 2 * inner + (1 << depth)
    out = np.full(rows, blob[start + 1] if first == 0 else 0.0)
    slots = np.zeros(rows, dtype=np.int64)
    at = start + HEAD + first * size
    for _ in range(first, last):
        slots[:] = 0
        for _ in range(depth):
            for r in range(rows):
                slot = slots[r]
                slots[r] = 2 * slot + 1 + (xs[r, np.int64(blob[at + slot])] > blob[at + inner + slot])
        for r in range(rows):
            out[r] += blob[at + 2 * inner + slots[r] - inner]
        at += size
    return out
