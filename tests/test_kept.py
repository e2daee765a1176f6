"""What is made once a machine and kept (bollesim/kept.py): made by the first process,
read by the later ones, written whole, and made anyway where nothing can be written."""

from __future__ import annotations

import pytest

from bollesim import kept


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """Two roots in a scratch folder, in their order of preference."""
    where = [tmp_path / "package", tmp_path / "user"]
    monkeypatch.setattr(kept, "roots", lambda kind: [w / kind for w in where])
    return where


def never() -> str:
    raise AssertionError("made again: the kept text was not read")


def test_a_text_is_made_once_then_read(folders):
    made = []
    assert kept.text("k", "a.txt", lambda: made.append(1) or "the text") == "the text"
    assert made == [1]
    assert (folders[0] / "k" / "a.txt").read_text() == "the text"
    assert kept.text("k", "a.txt", never) == "the text"
    assert [p.name for p in (folders[0] / "k").iterdir()] == ["a.txt"]  # no temporary left


def test_a_root_that_cannot_be_written_gives_way_to_the_next(folders):
    folders[0].write_text("a file where the folder would go")
    assert kept.text("k", "a.txt", lambda: "the text") == "the text"
    assert (folders[1] / "k" / "a.txt").read_text() == "the text"
    assert kept.text("k", "a.txt", never) == "the text"


def test_where_nothing_can_be_written_the_text_is_made_each_time(folders):
    for root in folders:
        root.write_text("a file where the folder would go")
    made = []
    for _ in range(2):
        assert kept.text("k", "a.txt", lambda: made.append(1) or "the text") == "the text"
    assert made == [1, 1]


def test_the_charts_bundle_is_kept_under_vl_converts_version(folders, monkeypatch):
    import vl_convert

    from bollesim.report import charts

    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda: "the bundle")
    charts.javascript.cache_clear()
    try:
        assert charts.javascript() == "the bundle"
        kept_file = folders[0] / "vega" / f"vl-convert-{vl_convert.__version__}.js"
        assert kept_file.read_text() == "the bundle"
        monkeypatch.setattr(vl_convert, "javascript_bundle", never)
        charts.javascript.cache_clear()
        assert charts.javascript() == "the bundle"
    finally:
        charts.javascript.cache_clear()
