"""A gradient-boosted forest as one flat float64 array, evaluated in compiled code.

LightGBM fits the forest (bollesim train); `pack` exports its trees, and `walk` sums
them inside the engine with no Python per decision. Each tree is stored complete to the
forest's depth D (its deepest leaf), so a walk is D steps with no test for a leaf and
no branch but the split's: a shallower leaf is reached through splits that always go
left (threshold +inf) and its value fills every slot beneath it. From `start`:

    blob[start]                     number of trees T
    blob[start + 1]                 the forest's constant (0: LightGBM folds it into a tree)
    blob[start + 2]                 the depth D
    then per tree (tree_size(D) values):
        2^D - 1 splits, breadth first, each a (feature, threshold) pair side by side
                                    (slot i has children 2i + 1 and 2i + 2)
        2^D leaf values             left to right

A split sends x to the left when x[feature] <= threshold (LightGBM's numerical split; the
features here are never missing). A split's two values share a cache line, and `walk`
takes WIDE trees side by side: a step waits on the memory of the step before, so one
tree at a time leaves the processor idle.
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
    return np.concatenate([np.column_stack([feature, threshold]).ravel(), leaf])


def pack(booster) -> np.ndarray:
    """The trees of a fitted LightGBM Booster as a flat array (module docstring)."""
    trees = [t["tree_structure"] for t in booster.dump_model()["tree_info"]]
    depth = max([depth_of(t) for t in trees] + [0])
    if depth > MAX_DEPTH:
        raise ValueError(f"a tree {depth} deep: fit with max_depth at most {MAX_DEPTH} (each "
                         "tree is stored complete)")
    return np.concatenate([[float(len(trees)), 0.0, float(depth)],
                           *(complete(t, depth) for t in trees)])


WIDE = 4  # trees walked side by side


@compiled(inline=True)
def step(blob, at, slot, x):
    """The child of split `slot`, in the tree at blob[at:], that x goes to."""
    node = at + 2 * slot
    return 2 * slot + 1 + (x[np.int64(blob[node])] > blob[node + 1])


@compiled
def walk(blob, start, x, first, last):
    """The sum of trees first..last-1 of the forest (the constant with the first) for one
    row x, added in tree order."""
    depth = np.int64(blob[start + 2])
    inner = (1 << depth) - 1
    size = 2 * inner + (1 << depth)
    total = blob[start + 1] if first == 0 else 0.0
    at = start + HEAD + first * size
    leaf = inner  # the leaf of slot s of the tree at blob[at:] is blob[at + leaf + s]
    t = first
    while t + WIDE <= last:
        a, b, c, d = at, at + size, at + 2 * size, at + 3 * size
        sa, sb, sc, sd = 0, 0, 0, 0
        for _ in range(depth):
            sa, sb = step(blob, a, sa, x), step(blob, b, sb, x)
            sc, sd = step(blob, c, sc, x), step(blob, d, sd, x)
        total += blob[a + leaf + sa]
        total += blob[b + leaf + sb]
        total += blob[c + leaf + sc]
        total += blob[d + leaf + sd]
        t += WIDE
        at += WIDE * size
    while t < last:
        s = 0
        for _ in range(depth):
            s = step(blob, at, s, x)
        total += blob[at + leaf + s]
        t += 1
        at += size
    return total


@compiled
def score(blob, start, x):
    """The forest's raw score (the sum of its trees' leaves and its constant) of x."""
    return walk(blob, start, x, 0, np.int64(blob[start]))


@compiled
def scores(blob, start, xs):
    """score of each row of xs."""
    out = np.empty(xs.shape[0])
    for r in range(xs.shape[0]):
        out[r] = score(blob, start, xs[r])
    return out
