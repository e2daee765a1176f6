"""Hostile and careless input: every case of issue 10 gets one `error:` line, exit code 2,
no traceback, and leaves every folder as it was. The table feeds each case through the
command line; a property-based fuzzer (hypothesis) feeds damaged Parquet files,
manifests and specs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_values import toml, toml_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sweep import SMALL, assert_one_line_error, invoke

from bollesim.batch import runfolder as F

RUN = ("run", "-P", "historical", "--seed", "3")


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under `folder`, hidden ones too, with the files' bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
        if not p.is_fifo()
    }


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A run folder of 300 games to damage (copied for each case)."""
    out = tmp_path_factory.mktemp("good") / "run"
    assert invoke(*RUN, "-n", "300", "--out", out).exit_code == 0
    return out


def forge(folder: Path, table: pa.Table) -> None:
    """Replace the games and re-seal the manifest to match: only the checks that look
    inside the data can catch it."""
    pq.write_table(table, folder / "games.parquet")
    fields = json.loads((folder / "manifest.json").read_text())
    for key in ("format", "data_bytes", "data_sha256", "manifest_sha256"):
        fields.pop(key)
    data = folder / "games.parquet"
    manifest = F.Manifest.sealed(
        data_bytes=data.stat().st_size, data_sha256=F.file_sha256(data), **fields
    )
    (folder / "manifest.json").write_text(json.dumps(manifest.to_json()))


def flip_byte(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at % len(data)] ^= 0x40
    path.write_bytes(bytes(data))


CASES: dict[str, tuple] = {}


def case(name: str, *words: str):
    """Register a case: a function (run folder, scratch folder) -> command line, which may
    damage the run folder or write files in the scratch folder first; `words` are what the
    error line must name."""

    def register(prepare):
        CASES[name] = (prepare, words)
        return prepare

    return register


@case("truncated games (report)", "truncated")
def _(run, tmp):
    os.truncate(run / "games.parquet", 500)
    return ["report", run]


@case("truncated games (play --from)", "truncated")
def _(run, tmp):
    os.truncate(run / "games.parquet", 500)
    return ["play", "--from", run]


@case("zero-byte games", "games.parquet is 0 bytes")
def _(run, tmp):
    (run / "games.parquet").write_bytes(b"")
    return ["report", run]


@case("bit-flipped games", "SHA-256", "corrupt or edited")
def _(run, tmp):
    flip_byte(run / "games.parquet", 1234)
    return ["play", "--from", run]


@case("duplicated rows", "the manifest says")
def _(run, tmp):
    table = pq.read_table(run / "games.parquet")
    pq.write_table(pa.concat_tables([table, table]), run / "games.parquet")
    return ["report", run]


@case("duplicated rows, manifest forged", "600 rows, the manifest says 300")
def _(run, tmp):
    table = pq.read_table(run / "games.parquet")
    forge(run, pa.concat_tables([table, table]))
    return ["report", run]


@case("missing column, manifest forged", "no column 'defeat'")
def _(run, tmp):
    forge(run, pq.read_table(run / "games.parquet").drop_columns(["defeat"]))
    return ["play", "--from", run, "--game", "3"]


@case("manifest not JSON", "manifest.json", "not valid JSON")
def _(run, tmp):
    (run / "manifest.json").write_text("{")
    return ["report", run]


@case("manifest a JSON list", "expected a JSON object, got a JSON list")
def _(run, tmp):
    (run / "manifest.json").write_text("[1, 2]")
    return ["report", run]


@case("manifest a folder", "manifest.json", "is a folder")
def _(run, tmp):
    (run / "manifest.json").unlink()
    (run / "manifest.json").mkdir()
    return ["report", run]


@case("manifest edited", "edited after the run")
def _(run, tmp):
    text = (run / "manifest.json").read_text()
    (run / "manifest.json").write_text(text.replace('"seed": 3', '"seed": 9'))
    return ["report", run]


@case("manifest of an older bollesim", "no format field")
def _(run, tmp):
    (run / "manifest.json").write_text('{"seed": 3, "n_games": 0}')
    return ["play", "--from", run]


@case("manifest too large", "larger than")
def _(run, tmp):
    (run / "manifest.json").write_bytes(b" " * (F.MANIFEST_LIMIT + 1))
    return ["report", run]


@case("manifest not UTF-8", "not UTF-8")
def _(run, tmp):
    (run / "manifest.json").write_bytes(b'{"a": "\xff"}')
    return ["report", run]


@case("games missing", "no games.parquet")
def _(run, tmp):
    (run / "games.parquet").unlink()
    return ["report", run]


@case("not a run folder", "not a run or sweep folder")
def _(run, tmp):
    return ["report", tmp]


@case("ruleset not UTF-8", "r.toml", "not UTF-8")
def _(run, tmp):
    (tmp / "r.toml").write_bytes(b'name = "\xe6"\n')
    return [*RUN, "-n", "5", "--rules", tmp / "r.toml", "--out", tmp / "o"]


@case("partial not UTF-8", "p.toml", "not UTF-8")
def _(run, tmp):
    (tmp / "p.toml").write_bytes(b"\xff\xfe")
    return [*RUN, "-n", "5", "--partial", tmp / "p.toml", "--out", tmp / "o"]


@case("spec not UTF-8", "s.toml", "not UTF-8")
def _(run, tmp):
    (tmp / "s.toml").write_bytes(SMALL.encode().replace(b"two", b"tw\xf6"))
    return ["sweep", tmp / "s.toml", "--out", tmp / "o"]


@case("spec too large", "s.toml", "larger than the 4.2 MB allowed")
def _(run, tmp):
    (tmp / "s.toml").write_text(SMALL + "#" * (4 << 20))
    return ["sweep", tmp / "s.toml", "--out", tmp / "o"]


@case("spec a device", "/dev/zero", "not a regular file")
def _(run, tmp):
    return ["sweep", "/dev/zero", "--out", tmp / "o"]


@case("spec a folder", "is a folder")
def _(run, tmp):
    return ["sweep", tmp, "--out", tmp / "o"]


@case("spec a pipe", "fifo.toml", "not a regular file")
def _(run, tmp):
    os.mkfifo(tmp / "fifo.toml")
    return ["sweep", tmp / "fifo.toml", "--out", tmp / "o"]


@case("ruleset a device (rules check)", "/dev/zero", "not a regular file")
def _(run, tmp):
    return ["rules", "check", "/dev/zero"]


@case("spec games out of range", "s.toml", "games", "1 to 1,000,000,000,000,000")
def _(run, tmp):
    (tmp / "s.toml").write_text(SMALL.replace("games = 40", "games = 10000000000000000"))
    return ["sweep", tmp / "s.toml", "--out", tmp / "o"]


@case("spec with too many cells", "s.toml", "grid[0].params", "more than 100,000 cells")
def _(run, tmp):
    ks = ", ".join(f"{8 + i / 2000:.4f}" for i in range(20001))
    spec = SMALL.replace("k = [12, 12, 25]", f"k = [{ks}], stop_at_tanks = [0, 1, 2, 3, 4]")
    (tmp / "s.toml").write_text(spec)
    return ["sweep", tmp / "s.toml", "--out", tmp / "o"]


@case("play seed too large", "--seed", "18446744073709551616")
def _(run, tmp):
    return ["play", "-P", "historical", "--seed", str(2**64)]


@case("play seed negative", "--seed", "-1")
def _(run, tmp):
    return ["play", "-P", "historical", "--seed", "-1"]


@case("run seed negative", "--seed", "-1")
def _(run, tmp):
    return [*RUN[:3], "--seed", "-1", "--out", tmp / "o"]


@case("play game too large", "--game")
def _(run, tmp):
    return ["play", "-P", "historical", "--game", str(10**16)]


@case("more games than the disk holds", "10,000,000,000,000 games need about", "TB of disk")
def _(run, tmp):
    return [*RUN, "-n", str(10**13), "--out", tmp / "o"]


@case("chunk too large", "--chunk")
def _(run, tmp):
    return [*RUN, "-n", "5", "--chunk", str(10**8), "--out", tmp / "o"]


@case("too many local workers", "--workers", "4 per core")
def _(run, tmp):
    return [*RUN, "-n", "5", "--cluster", "local", "--workers", "100000", "--out", tmp / "o"]


@case("out is a file", "is a file")
def _(run, tmp):
    (tmp / "f").write_text("x")
    return [*RUN, "-n", "5", "--out", tmp / "f"]


@case("out holds other files", "notes.txt", "not a bollesim run")
def _(run, tmp):
    (tmp / "d").mkdir()
    (tmp / "d" / "notes.txt").write_text("x")
    return [*RUN, "-n", "5", "--out", tmp / "d"]


@case("escape sequences in an error", "\\x1b[2Jgone")
def _(run, tmp):
    return ["report", tmp / "\x1b[2Jgone"]


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_hostile_input_is_one_line(good, tmp_path, case):
    prepare, words = CASES[case]
    run = tmp_path / "run"
    shutil.copytree(good, run)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    args = prepare(run, scratch)
    before = tree(tmp_path)
    line = assert_one_line_error(invoke(*args), *words)
    assert "\x1b" not in line
    assert tree(tmp_path) == before, f"{case}: the command changed a folder"


def test_a_decoder_panic_is_refused_in_one_line(good, tmp_path, monkeypatch):
    """A forged games file that passes the manifest's checks can make polars' parquet
    decoder panic (a PanicException, not an Exception); it is refused like any file that
    fails to decode."""
    import polars as pl

    def panic(query, *args, **kwargs):
        raise pl.exceptions.PanicException("called `Result::unwrap()` on an `Err` value")

    run = tmp_path / "run"
    shutil.copytree(good, run)
    monkeypatch.setattr(pl.LazyFrame, "collect", panic)
    assert_one_line_error(invoke("play", "--from", run, "--game", "1"), "cannot be read")


def test_a_folder_deleted_mid_run(tmp_path, monkeypatch):
    from bollesim.batch import runner as R

    results = tmp_path / "results"
    real, calls = R.play_chunk, []

    def deleting(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # the warm-up, one chunk, then the folder goes
            shutil.rmtree(results)
        return real(*args, **kwargs)

    monkeypatch.setattr(R, "play_chunk", deleting)
    result = invoke(*RUN, "-n", "20000", "--chunk", "4096", "--out", results / "out")
    assert_one_line_error(result, "cannot write", "was removed")


# --------------------------------------------------------------------------- the fuzzer

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def refused_untouched(args, folder: Path, may_succeed: bool = False) -> None:
    """The command refuses with one line and changes nothing, or (`may_succeed`) runs."""
    before = tree(folder)
    result = invoke(*args)
    if may_succeed and result.exit_code == 0:
        return
    assert_one_line_error(result)
    assert tree(folder) == before


@FUZZ
@given(data=st.data())
def test_fuzz_damaged_games(good, tmp_path_factory, data):
    run = tmp_path_factory.mktemp("fuzz") / "run"
    shutil.copytree(good, run)
    games = run / "games.parquet"
    raw = bytearray(games.read_bytes())
    damage = data.draw(st.sampled_from(["truncate", "flip", "append", "splice", "random"]))
    at = data.draw(st.integers(0, len(raw) - 1))
    if damage == "truncate":
        raw = raw[:at]
    elif damage == "flip":
        raw[at] ^= data.draw(st.integers(1, 255))
    elif damage == "append":
        raw += data.draw(st.binary(min_size=1, max_size=64))
    elif damage == "splice":
        raw[at:at] = data.draw(st.binary(min_size=1, max_size=64))
    else:
        raw = bytearray(data.draw(st.binary(max_size=4096)))
    games.write_bytes(bytes(raw))
    forged = data.draw(st.booleans())
    if forged:  # a forger who re-seals the manifest: what still reads may be used
        fields = json.loads((run / "manifest.json").read_text())
        for key in ("format", "data_bytes", "data_sha256", "manifest_sha256"):
            fields.pop(key)
        sealed = F.Manifest.sealed(data_bytes=len(raw), data_sha256=F.file_sha256(games), **fields)
        (run / "manifest.json").write_text(json.dumps(sealed.to_json()))
    refused_untouched(["play", "--from", run, "--game", "1"], run.parent, may_succeed=forged)


@FUZZ
@given(manifest=st.one_of(json_values.map(lambda v: json.dumps(v).encode()), st.binary(max_size=200)))
def test_fuzz_manifests(good, tmp_path_factory, manifest):
    run = tmp_path_factory.mktemp("fuzz") / "run"
    shutil.copytree(good, run)
    (run / "manifest.json").write_bytes(manifest)
    refused_untouched(["report", run], run.parent)


@FUZZ
@given(
    top=st.dictionaries(st.sampled_from(["name", "description", "seed", "games", "precision",
                                         "max_games", "overrides", "ruleset", "partial", "color"]),
                        toml_values, max_size=5),
    policy=st.sampled_from(["historical", "fire_at_roe", "nope"]) | st.text(max_size=5),
    params=st.dictionaries(st.sampled_from(["k", "stop_at_tanks", "t", "zz"]), toml_values, max_size=3),
    garbage=st.binary(max_size=20),
)
def test_fuzz_specs(tmp_path_factory, top, policy, params, garbage):
    folder = tmp_path_factory.mktemp("spec")
    lines = [f"{key} = {toml(value)}" for key, value in top.items()]
    inline = ", ".join(f"{k} = {toml(v)}" for k, v in params.items())
    lines += ["[[grid]]", f"policy = {toml(policy)}", f"params = {{ {inline} }}"]
    (folder / "s.toml").write_bytes("\n".join(lines).encode() + b"\n" + garbage)
    before = tree(folder)
    result = invoke("sweep", folder / "s.toml", "-n", "1", "--out", folder / "out")
    if result.exit_code == 0:  # a valid spec: played, one game per cell
        assert F.open_run(folder / "out").n_games >= 1
        return
    assert_one_line_error(result)
    assert tree(folder) == before


def test_terminal_output_is_printable(tmp_path):
    """Names that came from the user (here the folder) reach the terminal escaped."""
    out = tmp_path / "\x1b]0;title\x07\x1b[2J"
    spec = tmp_path / "s.toml"
    spec.write_text(SMALL)
    for args in ([*RUN, "-n", "20"], ["sweep", spec, "-n", "5"]):
        result = invoke(*args, "--out", out)
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "\\x1b]0;title\\x07\\x1b[2J" in result.stdout
    result = invoke("play", "--from", out, "--game", "2", "--cell", "1")
    assert result.exit_code == 0 and "\x1b" not in result.output
