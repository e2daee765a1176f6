"""Keeps `--dist loadgroup` grouping on pytest 9.2 (pytest-xdist issue #1386).

pytest-xdist sends the tests of one `xdist_group` to one worker by reading the group from
a suffix it adds to each marked test's node id (`test_x@group`). Its 3.8 release writes that
suffix where pytest 9.2 no longer reads a node id from, so every test is handed out on its
own, a group's tests are split over the workers and an order-dependent group (the what-if
page's browser session) breaks. This plugin adds the suffix as the node id is now kept, on
an xdist worker under loadgroup, only to a marked test whose id lacks it: once xdist writes
it again, this does nothing.
"""

from __future__ import annotations

import pytest


def group_suffix(item: pytest.Item) -> str:
    """'@' and the item's xdist_group names, sorted and joined by '_' (as xdist names the
    group), or '' for an item in no group."""
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
    return "@" + "_".join(sorted(names)) if names else ""


@pytest.hookimpl(trylast=True)  # after xdist's own hook, whose suffix it then sees
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not getattr(config.option, "loadgroup", False):  # set on xdist workers only
        return
    for item in items:
        suffix = group_suffix(item)
        if suffix and not item.nodeid.endswith(suffix):
            from _pytest.nodeid import NodeId  # pytest 9.2's node id: xdist misses it

            item._id = NodeId.parse(item.nodeid + suffix)
