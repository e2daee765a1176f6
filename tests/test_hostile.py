"""Hostile and careless input: every case of issue 10 gets one `error:` line, exit code 2,
no traceback, and leaves every folder as it was. The table feeds each case through the
command line; a property-based fuzzer (hypothesis) feeds damaged Parquet files,
manifests and specs."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_values import toml, toml_values, value_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sweep import SMALL, assert_one_line_error, invoke

from bollesim.batch import runfolder
from bollesim.batch.manifest import Manifest
from bollesim.batch.workspace import Workspace

# One worker: the module's fixture plays the run every case damages a copy of.
pytestmark = pytest.mark.xdist_group("hostile")

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
    manifest = Manifest.sealed(
        data_bytes=data.stat().st_size, data_sha256=runfolder.file_sha256(data), **fields
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
    return ["play", "--from", run, "--index", "3"]


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
    (run / "manifest.json").write_bytes(b" " * (runfolder.MANIFEST_LIMIT + 1))
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


@case("play game too large", "--index")
def _(run, tmp):
    return ["play", "-P", "historical", "--index", str(10**16)]


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


# ------------------------------------------------ issue 26: crash paths, misreadings, sizes

DEEP = "[" * 900 + "1" + "]" * 900  # past Python's recursion in a copy, within the parser's
HUGE = "9" * 5000  # past Python's 4,300-digit conversion
LONG = "a" * 300  # a file name past the 255 bytes of every file system
OPTIMISE = """
policy = "fire_at_roe"
objective = "operational"
budget = 40000
finalists = 1
holdout_games = 1000
[search]
k = [10, 12]
"""


def sweep_spec(tmp: Path, **top: str) -> Path:
    """SMALL with top-level keys replaced or added (TOML values as text)."""
    lines = [line for line in SMALL.splitlines() if line.split(" = ")[0] not in top]
    (tmp / "s.toml").write_text("\n".join(f"{k} = {v}" for k, v in top.items()) + "\n"
                                + "\n".join(lines) + "\n")
    return tmp / "s.toml"


def optimise_spec(tmp: Path, text: str = OPTIMISE, **top: str) -> Path:
    lines = [line for line in text.splitlines() if line.split(" = ")[0] not in top]
    (tmp / "o.toml").write_text("\n".join(f"{k} = {v}" for k, v in top.items()) + "\n"
                                + "\n".join(lines) + "\n")
    return tmp / "o.toml"


def ruleset_with(tmp: Path, key: str, value: str) -> Path:
    """The shipped ruleset with one top-level `key = ...` line of a table replaced."""
    from bollesim.bollebank.rules.loader import DEFAULT_PATH

    text = DEFAULT_PATH.read_text(encoding="utf-8")
    table, name = key.split(".")
    head = text.index(f"[{table}]")
    at = text.index(f"\n{name} = ", head) + 1
    end = text.index("\n", at)
    (tmp / "r.toml").write_text(text[:at] + f"{name} = {value}" + text[end:], encoding="utf-8")
    return tmp / "r.toml"


@case("--set nested 900 deep", "--set", "map.roads", "nested more than 32 levels")
def _(run, tmp):
    return [*RUN, "-n", "5", "--set", f"map.roads={DEEP}", "--out", tmp / "o"]


@case("--set of a 5,000-digit integer", "--set", "5,000 digits")
def _(run, tmp):
    return [*RUN, "-n", "5", "--set", f"roe.start={HUGE}", "--out", tmp / "o"]


@case("sweep overrides nested 900 deep", "s.toml", "overrides", "nested more than 32")
def _(run, tmp):
    return ["sweep", sweep_spec(tmp, overrides=f'["map.roads={DEEP}"]'), "--out", tmp / "o"]


@case("optimise overrides nested 900 deep", "o.toml", "overrides", "nested more than 32")
def _(run, tmp):
    return ["optimise", optimise_spec(tmp, overrides=f'["map.roads={DEEP}"]'), "--out", tmp / "o"]


@case("ruleset with a 5,000-digit integer", "r.toml", "5,000 digits")
def _(run, tmp):
    return [*RUN, "-n", "5", "--rules", ruleset_with(tmp, "roe.start", HUGE), "--out", tmp / "o"]


@case("partial with a 5,000-digit integer", "p.toml", "5,000 digits")
def _(run, tmp):
    (tmp / "p.toml").write_text(f"[roe]\nstart = {HUGE}\n")
    return [*RUN, "-n", "5", "--partial", tmp / "p.toml", "--out", tmp / "o"]


@case("spec games of 5,000 digits", "s.toml", "5,000 digits")
def _(run, tmp):
    return ["sweep", sweep_spec(tmp, games=HUGE), "--out", tmp / "o"]


@case("optimise budget of 5,000 digits", "o.toml", "5,000 digits")
def _(run, tmp):
    return ["optimise", optimise_spec(tmp, budget=HUGE), "--out", tmp / "o"]


@case("best.json with a 5,000-digit integer (serve --from)", "best.json", "5,000 digits")
def _(run, tmp):
    (tmp / "best.json").write_text('{"policy": "fire_at_roe", "params": {"k": ' + HUGE + "}}")
    return ["serve", "--from", tmp, "--no-browser", "--port", "0"]


@case("manifest with a 5,000-digit integer", "manifest.json", "5,000 digits")
def _(run, tmp):
    (run / "manifest.json").write_text('{"format": 1, "n_games": ' + HUGE + "}")
    return ["report", run]


@case("--out with a 300-byte name", "a name of 300 bytes")
def _(run, tmp):
    return [*RUN, "-n", "5", "--out", tmp / LONG]


@case("report DIR with a 300-byte name", "a name of 300 bytes")
def _(run, tmp):
    return ["report", tmp / LONG]


@case("report --out with a 300-byte name", "a name of 300 bytes")
def _(run, tmp):
    return ["report", run, "--out", tmp / LONG]


@case("play --from a 300-byte name", "a name of 300 bytes")
def _(run, tmp):
    return ["play", "--from", tmp / LONG]


@case("compare DIR with a 300-byte name", "a name of 300 bytes")
def _(run, tmp):
    return ["compare", run, tmp / LONG]


@case("compare DIR:<5,000 digits>", "no cell", "5,000 digits")
def _(run, tmp):
    return ["compare", f"{run}:{HUGE}", run]


@case("sensitivity -n 0", "--games", "from 1")
def _(run, tmp):
    return ["sensitivity", sweep_spec(tmp), "-n", "0", "--out", tmp / "o"]


@case("bench --games 10^17", "--games", "1,000,000,000")
def _(run, tmp):
    return ["bench", "--games", str(10**17), "--no-cold"]


@case("report --out /", "filesystem's root")
def _(run, tmp):
    return ["report", run, "--out", "/"]


@case("compare --out /", "filesystem's root")
def _(run, tmp):
    return ["compare", run, run, "--out", "/"]


@case("--max-games 0", "--max-games", "from 1")
def _(run, tmp):
    return [*RUN, "-n", "5", "--precision", "0.1", "--max-games", "0", "--out", tmp / "o"]


@case("-p NAME twice", "--param", "stop_at_tanks is given twice")
def _(run, tmp):
    return [*RUN, "-n", "5", "-p", "stop_at_tanks=1", "-p", "stop_at_tanks=3", "--out", tmp / "o"]


@case("--reading ID twice", "--reading", "I-AIR is given twice")
def _(run, tmp):
    return [*RUN, "-n", "5", "--reading", "I-AIR=ceil", "--reading", "I-AIR=floor",
            "--out", tmp / "o"]


@case("a misspelt option", "No such option: --gmaes")
def _(run, tmp):
    return [*RUN, "--gmaes", "5"]


@case("-n 1e30", "--games", "integer")
def _(run, tmp):
    return [*RUN, "-n", "1e30"]


@case("-n NaN", "--games", "integer")
def _(run, tmp):
    return [*RUN, "-n", "NaN"]


@case("a missing argument", "Missing argument 'DIR'")
def _(run, tmp):
    return ["report"]


@case("an unknown command", "No such command 'nope'")
def _(run, tmp):
    return ["nope"]


@case("an unreadable ruleset (no stray ': -:')", "r.toml: cannot read it")
def _(run, tmp):
    return ["rules", "check", tmp / "r.toml"]


@case("a TOML date in an error (no Python repr)", "games", "got 1979-05-27")
def _(run, tmp):
    return ["sweep", sweep_spec(tmp, games="1979-05-27"), "--out", tmp / "o"]


@case("recorded ruleset edited, manifest re-sealed", "ruleset data does not match its hash")
def _(run, tmp):
    fields = json.loads((run / "manifest.json").read_text())
    fields["ruleset_data"]["roe"]["start"] += 1
    reseal(run, fields)
    return ["report", run]


@case("rows of another seed, manifest re-sealed", "rows of seed 6", "another run")
def _(run, tmp):
    table = pq.read_table(run / "games.parquet")
    forge(run, table.set_column(table.schema.get_field_index("seed"), "seed",
                                pa.array([6] * table.num_rows, pa.int64())))
    return ["play", "--from", run, "--index", "1"]


@case("rows of another game range, manifest re-sealed", "another run")
def _(run, tmp):
    table = pq.read_table(run / "games.parquet")
    games = pa.array(range(1000, 1000 + table.num_rows), pa.int64())
    forge(run, table.set_column(table.schema.get_field_index("game"), "game", games))
    return ["report", run]


def reseal(folder: Path, fields: dict) -> None:
    """Write manifest fields back with a matching manifest_sha256 (a forger's edit)."""
    for key in ("format", "manifest_sha256"):
        fields.pop(key)
    (folder / "manifest.json").write_text(json.dumps(Manifest.sealed(**fields).to_json()))


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
    assert_one_line_error(invoke("play", "--from", run, "--index", "1"), "cannot be read")


def test_a_folder_deleted_mid_run(tmp_path, monkeypatch):
    from bollesim.batch import runner

    results = tmp_path / "results"
    real, calls = runner.play_chunk, []

    def deleting(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # the warm-up, one chunk, then the folder goes
            shutil.rmtree(results)
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", deleting)
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
        sealed = Manifest.sealed(data_bytes=len(raw), data_sha256=runfolder.file_sha256(games), **fields)
        (run / "manifest.json").write_text(json.dumps(sealed.to_json()))
    refused_untouched(["play", "--from", run, "--index", "1"], run.parent, may_succeed=forged)


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
        assert runfolder.open_run(folder / "out").n_games >= 1
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
    result = invoke("play", "--from", out, "--index", "2", "--cell", "1")
    assert result.exit_code == 0 and "\x1b" not in result.output


# ------------------------------------------- issue 26: what is printed, resumed and sized


@pytest.mark.parametrize("name", ["evil\nok: a faked line", "x" * 200_000])
def test_a_ruleset_name_is_printed_on_one_short_line(tmp_path, name):
    from bollesim.bollebank.rules.loader import DEFAULT_PATH

    text = DEFAULT_PATH.read_text(encoding="utf-8")
    (tmp_path / "r.toml").write_text(text.replace('name = "', f"name = {json.dumps(name)}\n#", 1))
    result = invoke("rules", "check", tmp_path / "r.toml")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 1 and len(result.stdout) < 300, result.stdout[:300]


def test_a_byte_order_mark_is_read(tmp_path):
    from bollesim.bollebank.rules.loader import DEFAULT_PATH

    (tmp_path / "r.toml").write_bytes(b"\xef\xbb\xbf" + DEFAULT_PATH.read_bytes())
    result = invoke("rules", "check", tmp_path / "r.toml")
    assert result.exit_code == 0 and result.stdout.startswith("ok: "), result.output


def test_a_code_span_in_report_md_shows_the_name_as_written(good, tmp_path):
    run = tmp_path / "R&D"
    shutil.copytree(good, run)
    assert invoke("report", run).exit_code == 0
    spans = re.findall(r"`[^`]*`", (run / "report.md").read_text(encoding="utf-8"))
    assert any("R&D" in span for span in spans)
    assert not any("&amp;" in span for span in spans)


def test_report_of_a_folder_a_live_run_is_writing(tmp_path):
    from filelock import FileLock

    out = tmp_path / "out"
    ws = Workspace(out)
    with FileLock(str(ws.lock_path), timeout=0):
        ws.chunks.mkdir(parents=True)
        (ws.partial / "plan.json").write_text('{"planned": 1000}')
        line = assert_one_line_error(invoke("report", out), "a run is writing it now",
                                     "wait for it to finish")
    assert "--resume" not in line and "interrupted" not in line
    assert_one_line_error(invoke("report", out), "interrupted", "--resume")  # the writer died


def stop_after(monkeypatch, chunks: int, exc=KeyboardInterrupt):
    """Make the engine stop (Ctrl-C) as chunk number `chunks` + 1 starts (after the warm-up)."""
    from bollesim.batch import runner

    real, calls = runner.play_chunk, []

    def stopping(*args, **kwargs):
        calls.append(1)
        if len(calls) > chunks + 1:
            raise exc
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", stopping)
    return lambda: monkeypatch.setattr(runner, "play_chunk", real)


def test_after_a_resume_the_timing_line_counts_this_sessions_games(tmp_path, monkeypatch):
    args = [*RUN, "-n", "3000", "--chunk", "1000", "--out", tmp_path / "o"]
    restore = stop_after(monkeypatch, 2)
    assert invoke(*args).exit_code == 130
    restore()
    result = invoke(*args, "--resume")
    assert result.exit_code == 0, result.output
    assert "1,000 of the 3,000 games" in result.stdout, result.stdout


def test_a_resume_refuses_a_chunk_of_another_run(tmp_path, monkeypatch):
    """A chunk file of a seed-6 run copied into a seed-5 run's chunks/ is named and refused;
    nothing changes; without it the run resumes."""
    five = [*RUN[:3], "-n", "3000", "--chunk", "1000", "--seed", "5", "--out", tmp_path / "five"]
    six = [*five[:-2], "--out", tmp_path / "six"]
    six[six.index("--seed") + 1] = "6"
    for args in (five, six):
        restore = stop_after(monkeypatch, 1)
        assert invoke(*args).exit_code == 130
        restore()
    ours = sorted((tmp_path / ".five.partial" / "chunks").iterdir())
    foreign = next((tmp_path / ".six.partial" / "chunks").iterdir())
    ours[0].unlink()  # the place the foreign chunk fills
    shutil.copy(foreign, tmp_path / ".five.partial" / "chunks" / foreign.name)
    before = tree(tmp_path)
    line = assert_one_line_error(invoke(*five, "--resume"), foreign.name, "seed 6", "5")
    assert "does not belong" in line
    assert tree(tmp_path) == before
    (tmp_path / ".five.partial" / "chunks" / foreign.name).unlink()
    assert invoke(*five, "--resume").exit_code == 0
    assert runfolder.open_run(tmp_path / "five").read()["seed"].unique().to_list() == [5]


def test_a_manifest_too_large_to_read_is_refused_before_playing(tmp_path, monkeypatch):
    """Writer and reader agree on the manifest's limit: a sweep whose manifest would pass
    it is refused up front with the estimate, and none is committed that `report` refuses."""
    from bollesim.batch import manifest, runner

    for module in (manifest, runfolder):  # the writer and the reader
        monkeypatch.setattr(module, "MANIFEST_LIMIT", 20_000)
    monkeypatch.setattr(runner, "play_chunk", lambda *a, **k: pytest.fail("a game was played"))
    ks = ", ".join(f"{8 + i / 100:.2f}" for i in range(200))
    spec = sweep_spec(tmp_path, name='"wide"')
    spec.write_text(spec.read_text().replace("k = [12, 12, 25]", f"k = [{ks}]"))
    before = tree(tmp_path)
    assert_one_line_error(invoke("sweep", spec, "-n", "5", "--out", tmp_path / "o"),
                          "manifest of these", "would be about", "20.0 KB")
    assert tree(tmp_path) == before


@pytest.mark.parametrize(("top", "words"), [
    ({"holdout_games": str(10**12), "budget": str(10**13)}, ("held-out games", "of memory")),
    ({"finalists": "300", "holdout_games": "50000000", "budget": str(10**13)},
     ("15,100,000,000 held-out games", "of memory")),
    ({"budget": "2000"}, ("budget of 2,000 games is too small", "3,000 held-out games")),
])
def test_optimise_is_sized_before_it_plays(tmp_path, monkeypatch, top, words):
    from bollesim.batch import runner

    monkeypatch.setattr(runner, "play_chunk", lambda *a, **k: pytest.fail("a game was played"))
    spec = optimise_spec(tmp_path, **top)
    before = tree(tmp_path)
    assert_one_line_error(invoke("optimise", spec, "--out", tmp_path / "o"), *words)
    assert tree(tmp_path) == before


def test_optimise_budget_counts_every_game(tmp_path):
    """--budget is a limit of all the games played, the held-out ones included."""
    spec = optimise_spec(tmp_path, candidates="3", trial_games="1500")
    result = invoke("optimise", spec, "--budget", "9000", "--out", tmp_path / "o", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert 2 * 1000 <= answer["holdout_games"] <= 3 * 1000  # finalist, best seed?, defaults
    assert answer["search_games"] + answer["holdout_games"] <= 9000


def test_a_stopped_search_says_so_in_one_line(tmp_path, monkeypatch):
    import signal

    from bollesim.cli import running

    stop_after(monkeypatch, 0, running.Signalled(signal.SIGTERM))
    result = invoke("optimise", optimise_spec(tmp_path), "--out", tmp_path / "o")
    assert result.exit_code == 128 + signal.SIGTERM, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted: the search stopped"), lines
    assert "run the same command again" in lines[0]
    assert not (tmp_path / "o").exists()


# ------------------------- issue 26: deep nesting and huge integers in every TOML or JSON input


def _through_cli(*args) -> None:
    """The command refuses in one line or succeeds; never a traceback."""
    result = invoke(*args)
    if result.exit_code != 0:
        assert_one_line_error(result)


def _through_reader(read, path: Path) -> None:
    """The reader of the input (of Operation Bøllebank) refuses with one line (UsageError or
    RulesetError) or reads it."""
    from bollesim.bollebank.rules.loader import RulesetError
    from bollesim.errors import UsageError
    from bollesim.game.registry import load_game

    try:
        read(path, load_game("bollebank"))
    except (UsageError, RulesetError) as exc:
        assert "\n" not in str(exc) and str(exc).strip()


def _ruleset_input(tmp: Path, value: str) -> None:
    _through_cli("rules", "check", ruleset_with(tmp, "roe.start", value))


def _partial_input(tmp: Path, value: str) -> None:
    (tmp / "p.toml").write_text(f"[roe]\nstart = {value}\n")
    _through_cli("rules", "check", "--partial", tmp / "p.toml")


def _set_input(tmp: Path, value: str) -> None:
    _through_cli("rules", "check", "--set", f"map.roads={value}")


def _sweep_spec_input(tmp: Path, value: str) -> None:
    from bollesim.batch.spec import load_experiment

    _through_reader(load_experiment, sweep_spec(tmp, games=value))
    _through_reader(load_experiment, sweep_spec(tmp, overrides=f"[{json.dumps('map.roads=' + value)}]"))


def _optimise_spec_input(tmp: Path, value: str) -> None:
    from bollesim.search.optimise_spec import load_search

    _through_reader(load_search, optimise_spec(tmp, budget=value))
    _through_reader(load_search, optimise_spec(tmp, overrides=f"[{json.dumps('map.roads=' + value)}]"))


def _manifest_input(tmp: Path, value: str) -> None:
    (tmp / "run").mkdir(exist_ok=True)
    (tmp / "run" / "manifest.json").write_text(f'{{"format": 1, "n_games": {value}}}')
    (tmp / "run" / "games.parquet").write_bytes(b"")
    _through_cli("report", tmp / "run")


def _plan_input(tmp: Path, value: str) -> None:
    partial = tmp / ".run.partial"
    (partial / "chunks").mkdir(parents=True, exist_ok=True)
    (partial / "plan.json").write_text(f'{{"planned": {value}}}')
    _through_cli("report", tmp / "run")


def _best_input(tmp: Path, value: str) -> None:
    from bollesim.serve.best import read_best

    (tmp / "best.json").write_text(f'{{"policy": "fire_at_roe", "params": {{"k": {value}}}}}')
    _through_reader(read_best, tmp)
    (tmp / "best.json").write_text(f'{{"policy": "fire_at_roe", "params": {value}}}')
    _through_reader(read_best, tmp)


TOML_OR_JSON_INPUTS = {
    "ruleset": _ruleset_input, "partial": _partial_input, "--set": _set_input,
    "sweep spec": _sweep_spec_input, "optimise spec": _optimise_spec_input,
    "manifest.json": _manifest_input, "plan.json": _plan_input, "best.json": _best_input,
}


@pytest.mark.parametrize("where", TOML_OR_JSON_INPUTS)
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(value=value_text)
def test_fuzz_deep_nesting_and_huge_integers(tmp_path_factory, where, value):
    """Values nested up to 3,000 levels and integers of up to 6,000 digits, alone or inside
    lists, in every input that takes TOML or JSON: one error line or a normal reading."""
    TOML_OR_JSON_INPUTS[where](tmp_path_factory.mktemp("value"), value)
