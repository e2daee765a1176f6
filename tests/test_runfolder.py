"""A run folder is one unit (bollesim/batch/runfolder.py): its games, manifest and reports are
replaced together, in one rename; the manifest records the data's rows, size and SHA-256,
and every reader checks them; a commit cut short at any step is completed or undone by
the next writer."""

from __future__ import annotations

import errno
import json
import re
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sweep import assert_one_line_error, invoke

from bollesim.batch import durable, runfolder, runner, workspace
from bollesim.batch import manifest as manifest_module
from bollesim.batch.manifest import FORMAT, Manifest, manifest_fields
from bollesim.batch.runfolder import open_run
from bollesim.batch.workspace import Workspace
from bollesim.game import columns
from bollesim.game.registry import load_game

RUN = ("run", "-P", "historical", "--seed", "3")


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under folder (hidden ones too), with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def digest(out: Path) -> str:
    return json.loads((out / "manifest.json").read_text())["data_sha256"]


def run_into(out: Path, *args: str) -> None:
    result = invoke(*RUN, "--out", out, *args)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> tuple[Path, pl.DataFrame, dict]:
    """An uninterrupted run of 3,000 games in chunks of 700: (folder, games, manifest)."""
    out = tmp_path_factory.mktemp("plain") / "out"
    run_into(out, "-n", "3000", "--chunk", "700")
    return out, pl.read_parquet(out / "games.parquet"), json.loads((out / "manifest.json").read_text())


def test_the_manifest_records_the_data(plain):
    out, games, manifest = plain
    assert manifest["format"] == FORMAT and manifest["n_games"] == games.height == 3000
    assert manifest["data_bytes"] == (out / "games.parquet").stat().st_size
    assert manifest["data_sha256"] == runfolder.file_sha256(out / "games.parquet")
    assert manifest["sessions"] == 1 and manifest["plan"]["chunk_size"] == 700
    run = open_run(out)
    assert run.n_games == 3000 and run.collect(run.scan()).equals(games)
    # parameters of their declared types
    assert run.read().equals(columns.typed_params(games, load_game("bollebank")))
    # nothing but the run in the folder, and nothing left beside it but the lock
    assert sorted(p.name for p in out.iterdir()) == ["games.parquet", "manifest.json"]
    assert sorted(p.name for p in out.parent.iterdir()) == [".out.lock", "out"]


def test_the_docstring_documents_every_manifest_field():
    documented = re.findall(r"^    (\w+) {2,}", manifest_module.__doc__.split("Manifest fields")[1], re.M)
    assert documented == list(manifest_fields())


def test_the_file_does_not_depend_on_chunks_or_threads(plain, tmp_path):
    out, _, manifest = plain
    run_into(tmp_path / "other", "-n", "3000", "--chunk", "1100", "--threads", "1")
    other = json.loads((tmp_path / "other" / "manifest.json").read_text())
    assert other["data_sha256"] == manifest["data_sha256"]  # byte for byte the same file


def test_row_groups_do_not_follow_chunks(plain, tmp_path, monkeypatch):
    run_into(tmp_path / "tiny", "-n", "3000", "--chunk", "7")  # 429 chunks
    assert digest(tmp_path / "tiny") == plain[2]["data_sha256"]
    assert pq.read_metadata(tmp_path / "tiny" / "games.parquet").num_row_groups == 1
    monkeypatch.setattr(workspace, "ROW_GROUP_ROWS", 1000)
    run_into(tmp_path / "o", "-n", "2500", "--chunk", "7")
    meta = pq.read_metadata(tmp_path / "o" / "games.parquet")
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [1000, 1000, 500]


def test_many_small_cells_make_one_row_group(tmp_path):
    ks = ", ".join(f"{8 + i * 0.01:.2f}" for i in range(1500))
    spec = tmp_path / "many.toml"
    spec.write_text(f'games = 2\n[[grid]]\npolicy = "fire_at_roe"\nparams = {{ k = [{ks}] }}\n')
    result = invoke("sweep", spec, "--out", tmp_path / "many")
    assert result.exit_code == 0, result.output
    path = tmp_path / "many" / "games.parquet"
    assert pq.read_metadata(path).num_row_groups == 1 and open_run(path.parent).n_games == 3000
    assert path.stat().st_size < 100_000


def test_memory_before_play_does_not_grow_with_games(tmp_path, monkeypatch):
    import tracemalloc

    from bollesim import resources

    monkeypatch.setattr(resources, "check_disk", lambda *args: None)
    seen = []

    def first_chunk(rules, policy, params, seed, first_game, engine="fast"):
        if seed == 0:  # the warm-up game
            return real(rules, policy, params, seed, first_game, engine)
        seen.append(tracemalloc.get_traced_memory()[1])
        raise KeyboardInterrupt

    run_into(tmp_path / "warm", "-n", "1")  # the engine loaded before, whatever ran first
    real = runner.play_chunk
    monkeypatch.setattr(runner, "play_chunk", first_chunk)
    tracemalloc.start()
    try:
        result = invoke(*RUN, "-n", str(10**12), "--out", tmp_path / "huge")
    finally:
        tracemalloc.stop()
    assert result.exit_code == 130 and len(seen) == 1, result.output
    assert seen[0] < 20_000_000, seen  # bytes allocated before the first chunk: not per game


def test_requests_the_machine_cannot_hold(tmp_path, monkeypatch):
    from bollesim import resources
    from bollesim.batch.runner import simulate

    result = invoke(*RUN, "-n", str(10**13), "--out", tmp_path / "big")
    assert_one_line_error(result, "10,000,000,000,000 games need about", "TB of disk", "free")
    monkeypatch.setattr(resources, "available_memory", lambda: 2 * 10**9)
    result = invoke(*RUN, "-n", str(10**7), "--chunk", str(10**7), "--out", tmp_path / "big")
    assert_one_line_error(result, "needs about", "GB of memory", "2.0 GB available", "--chunk")
    with pytest.raises(runfolder.UsageError, match="simulate.*of memory"):
        simulate("historical", 10**9)
    assert list(tmp_path.iterdir()) == []


def put_notes(out: Path) -> None:
    """What a reader puts in a run folder: notes, and another run's folder."""
    (out / "NOTES.md").write_text("keep me")
    run_into(out / "other", "-n", "20")


def notes_kept(out: Path) -> bool:
    return ((out / "NOTES.md").read_text() == "keep me"
            and open_run(out / "other").n_games == 20)


def test_a_new_run_leaves_no_stale_report_and_keeps_what_a_reader_put_there(tmp_path):
    """The run's files and its reports go (runfolder.WRITTEN); a reader's files stay."""
    out = tmp_path / "out"
    run_into(out, "-n", "300")
    assert invoke("report", out).exit_code == 0
    assert (out / "report.html").exists() and list(out.glob("report-*.png"))
    put_notes(out)
    assert_one_line_error(invoke(*RUN, "-n", "200", "--out", out), "holds a finished run", "--replace")
    run_into(out, "-n", "200", "--replace")
    assert sorted(p.name for p in out.iterdir()) == [
        ".other.lock", "NOTES.md", "games.parquet", "manifest.json", "other"]  # the lock: other's
    assert open_run(out).n_games == 200 and notes_kept(out)


def test_what_the_commands_wrote_into_the_committed_run_folders_is_theirs():
    """Every file of a committed run folder (results/) is one runfolder.WRITTEN names,
    but a README: the reports of `report`, `sensitivity` and `optimise`, as made."""
    results = Path(__file__).resolve().parents[1] / "results"
    folders = [m.parent for m in results.rglob("manifest.json")]
    # a run folder beside another keeps the lock it was written under (.OUT.lock, not committed)
    names = {p.name for folder in folders for p in folder.iterdir()
             if p.is_file() and not (p.name.endswith(".lock") and (folder / p.name[1:-5]).is_dir())}
    assert {"optimise.md", "sensitivity.md", "report.md", "best.json"} <= names
    assert {n for n in names if not runfolder.WRITTEN.fullmatch(n)} <= {"README.md", ".gitignore"}


def test_a_run_replaces_only_a_run_folder(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("keep me")
    assert_one_line_error(invoke(*RUN, "-n", "10", "--out", notes), "todo.txt", "not a bollesim run")
    (tmp_path / "file").write_text("x")
    assert_one_line_error(invoke(*RUN, "-n", "10", "--out", tmp_path / "file"), "is a file")
    assert (notes / "todo.txt").read_text() == "keep me"
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert_one_line_error(invoke(*RUN, "-n", "10", "--out", tmp_path / "dangling"), "a link to nothing")
    assert_one_line_error(invoke(*RUN, "-n", "10", "--out", tmp_path / "loop"), "a link that loops")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "file", "loop", "notes"]


def test_a_run_replaces_a_broken_run_folder(tmp_path):
    """What the old writer left: a manifest that is a folder, stray temporary files."""
    out = tmp_path / "out"
    (out / "manifest.json").mkdir(parents=True)
    (out / ".games.parquet.4242.tmp").write_bytes(b"x" * 1000)
    assert_one_line_error(invoke("report", out), "manifest.json", "is a folder")
    assert_one_line_error(invoke(*RUN, "-n", "50", "--out", out), "cannot be read", "--replace")
    run_into(out, "-n", "50", "--replace")
    assert sorted(p.name for p in out.iterdir()) == ["games.parquet", "manifest.json"]
    leftovers = tmp_path / "left"
    leftovers.mkdir()
    (leftovers / ".manifest.json.77.tmp").write_text("{")
    run_into(leftovers, "-n", "50")
    assert open_run(leftovers).n_games == 50


def test_zero_games(tmp_path):
    out = tmp_path / "zero"
    run_into(out, "-n", "0")
    assert open_run(out).read().height == 0
    assert_one_line_error(invoke("report", out), "holds no games")
    assert_one_line_error(invoke("play", "--from", out, "--index", "0"), "holds no games")


def full_disk_at(name: str, monkeypatch) -> None:
    """The disk fills up when the file `name` is written."""
    real = workspace.write_durable

    def write(path: Path, data: bytes) -> None:
        if path.name == name:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(workspace, "write_durable", write)


def test_a_full_disk_at_the_manifest_keeps_the_old_run(plain, tmp_path, monkeypatch):
    out = tmp_path / "out"
    run_into(out, "-n", "3000", "--chunk", "700")
    before = tree(tmp_path)
    full_disk_at("manifest.json", monkeypatch)
    result = invoke("run", "-P", "cautious", "--seed", "9", "-n", "2000", "--out", out, "--replace")
    assert_one_line_error(result, "the disk is full", "--resume")
    after = tree(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith(".out.partial/")} == before
    assert not [k for k in after if k.endswith(".tmp")]
    assert open_run(out).manifest["seed"] == 3  # the old run, whole
    monkeypatch.undo()
    result = invoke("run", "-P", "cautious", "--seed", "9", "-n", "2000", "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert "2,000 games were saved already" in result.stderr
    fresh = tmp_path / "fresh"
    run_into(fresh, "-n", "0")  # any folder: replaced below
    assert invoke("run", "-P", "cautious", "--seed", "9", "-n", "2000", "--out", fresh, "--replace").exit_code == 0
    assert open_run(out).manifest["data_sha256"] == open_run(fresh).manifest["data_sha256"]


@pytest.mark.parametrize("stop", ["before the swap", "after the swap"])
def test_a_commit_cut_short_is_completed(plain, tmp_path, monkeypatch, stop):
    out = tmp_path / "out"
    run_into(out, "-n", "100")
    put_notes(out)
    real_replace, real_clean = Workspace._replace, Workspace._clean_up

    def die(self):
        raise SystemExit("killed")

    if stop == "before the swap":
        monkeypatch.setattr(Workspace, "_replace", die)
    else:
        monkeypatch.setattr(Workspace, "_clean_up", die)
    assert invoke(*RUN, "-n", "3000", "--chunk", "700", "--out", out, "--replace").exit_code != 0
    expected = 100 if stop == "before the swap" else 3000
    assert open_run(out).n_games == expected  # a reader sees one whole run or the other
    monkeypatch.setattr(Workspace, "_replace", real_replace)
    monkeypatch.setattr(Workspace, "_clean_up", real_clean)
    result = invoke(*RUN, "-n", "3000", "--chunk", "700", "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert open_run(out).manifest["data_sha256"] == plain[2]["data_sha256"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"]
    assert notes_kept(out)


def test_without_exchange_two_renames_do(plain, tmp_path, monkeypatch):
    monkeypatch.setattr(durable, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    run_into(out, "-n", "100")
    put_notes(out)
    run_into(out, "-n", "3000", "--chunk", "700", "--replace")
    assert open_run(out).manifest["data_sha256"] == plain[2]["data_sha256"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"]
    assert notes_kept(out)


def test_manifest_checks_itself():
    fields = {"version": "0.1.0", "n_games": 4, "data_bytes": 9, "data_sha256": "0" * 64,
              "games_per_cell": 2, "n_cells": 2, "seed": 3}
    good = Manifest.sealed(**fields).to_json()
    assert Manifest.from_json(good).n_games == 4
    bad = {
        "a list": [good],
        "no format": {k: v for k, v in good.items() if k != "format"},
        "newer format": {**good, "format": 2},
        "unknown field": {**good, "colour": "red"},
        "wrong type": {**good, "n_games": "4"},
        "boolean count": {**good, "n_games": True},
        "missing hash": {k: v for k, v in good.items() if k != "data_sha256"},
        "bad hash": {**good, "data_sha256": "xyz"},
        "cells disagree": {**good, "n_cells": 3},
        "edited": {**good, "seed": 9},
        "seal of another": {**good, "manifest_sha256": "1" * 64},
    }
    for case, data in bad.items():
        with pytest.raises(ValueError):
            Manifest.from_json(data)
            pytest.fail(case)


# ------------------------------------------------------------------ columns from buffers

_KINDS = ["bool", "int16", "int32", "int64", "float64"]


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(_KINDS),
    values=st.lists(st.integers(-5, 40), max_size=70),
    nulls=st.booleans(),
)
def test_columns_built_from_buffers_equal_pa_array(kind, values, nulls):
    """runner._arrow and _arrow_texts (which avoid pa.array's pandas import) give the
    arrays pa.array gives: values, types and nulls."""
    import numpy as np
    import pyarrow as pa

    from bollesim.bollebank import events

    data = np.array(values, dtype=np.int64)
    mask = data <= 0 if nulls else None
    arrow_type = getattr(pa, "bool_" if kind == "bool" else kind)()
    want = pa.array(data.astype(arrow_type.to_pandas_dtype()), arrow_type, mask=mask)
    assert runner._arrow(data, arrow_type, mask).equals(want)
    codes = np.abs(data) % len(events.END_REASONS)
    want = pa.array([events.END_REASONS[c] for c in codes], pa.string())
    assert runner._arrow_texts(events.END_REASONS, codes).equals(want)
