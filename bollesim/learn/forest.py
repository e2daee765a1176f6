"""A gradient-boosted forest as one flat float64 array, evaluated in compiled code.

LightGBM fits the forest (bollesim train); `pack` exports its trees, and `score` walks
them inside the engine with no Python per decision. The layout, from `start`:

    blob[start]                     number of trees T
    blob[start + 1]                 the forest's constant (LightGBM's init score, 0 if none)
    blob[start + 2 .. + 2 + T]      each tree's root, as a node index from the first node
    then 4 values per node:         feature, threshold, left, right   (an inner node)
                                    -1, leaf value, 0, 0              (a leaf)

An inner node sends x to `left` when x[feature] <= threshold (LightGBM's numerical split;
the features here are never missing).
"""

from __future__ import annotations

import numpy as np

from bollesim.jit import compiled

NODE = 4  # values per node
HEAD = 2  # the tree count and the constant


def pack(booster) -> np.ndarray:
    """The trees of a fitted LightGBM Booster as a flat array (module docstring)."""
    dump = booster.dump_model()
    trees = [t["tree_structure"] for t in dump["tree_info"]]
    roots, nodes = [], []

    def walk(node) -> int:
        at = len(nodes)
        nodes.append(None)
        if "leaf_value" in node or "split_feature" not in node:
            nodes[at] = (-1.0, float(node.get("leaf_value", 0.0)), 0.0, 0.0)
            return at
        if node.get("decision_type", "<=") != "<=":
            raise ValueError(f"a split LightGBM calls {node['decision_type']!r}: numeric only")
        left = walk(node["left_child"])
        right = walk(node["right_child"])
        nodes[at] = (float(node["split_feature"]), float(node["threshold"]), float(left),
                     float(right))
        return at

    for tree in trees:
        roots.append(walk(tree))
    head = [float(len(trees)), 0.0, *map(float, roots)]
    return np.concatenate([np.array(head), np.array(nodes, dtype=np.float64).ravel()])


@compiled
def score(blob, start, x):
    """The forest's raw score (the sum of its trees' leaves and its constant) of x."""
    trees = np.int64(blob[start])
    nodes_at = start + HEAD + trees
    total = blob[start + 1]
    for t in range(trees):
        node = np.int64(blob[start + HEAD + t])
        while True:
            at = nodes_at + NODE * node
            feature = np.int64(blob[at])
            if feature < 0:
                total += blob[at + 1]
                break
            node = np.int64(blob[at + 2]) if x[feature] <= blob[at + 1] else np.int64(blob[at + 3])
    return total


@compiled
def scores(blob, start, xs):
    """score of each row of xs."""
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        out[i] = score(blob, start, xs[i])
    return out
