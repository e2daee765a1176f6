"""A categorical parameter's value is given by its choice's name, in any case, wherever a
parameter is given (-p, experiment specs, the Python API), or by its index as before."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import bollesim
from bollesim.batch.runner import param_matrix
from bollesim.cli.app import app
from bollesim.errors import UsageError
from bollesim.game.params import Parameter
from bollesim.game.policy import load_policy
from bollesim.game.registry import load_game

TARGETS = ("ATGM", "tank", "HMG", "artillery")  # the scripted family's `target` choices


def test_a_value_is_a_number_or_a_choice_name():
    target = Parameter("target", 0, 0, 3, "", choices=TARGETS)
    assert [target.value(v) for v in ("tank", "TANK", " Artillery ", "atgm", "2", 3)] == [1, 1, 3, 0, 2, 3]
    with pytest.raises(ValueError, match="'tnk' is not one of ATGM, tank, HMG, artillery"):
        target.value("tnk")
    k = Parameter("k", 12, 8, 25, "")
    assert k.value("9") == 9.0
    with pytest.raises(ValueError, match="k = 'tank' is not a number"):
        k.value("tank")


def test_the_python_api_takes_names():
    policy = load_policy("fire_at_roe")
    assert policy.param_vector({"target": "Tank"})[3] == 1 == policy.param_vector({"target": 1})[3]
    with pytest.raises(UsageError, match="fire_at_roe.target = 'tnk'"):
        policy.param_vector({"target": "tnk"})
    per_game = param_matrix(policy, 4, {"target": ["tank", "HMG", "tank", "atgm"]})
    assert per_game[:, 3].tolist() == [1, 2, 1, 0]
    by_name = bollesim.simulate("fire_at_roe", 3, seed=5, params={"target": "tank"}, engine="reference")
    by_index = bollesim.simulate("fire_at_roe", 3, seed=5, params={"target": 1}, engine="reference")
    assert by_name.equals(by_index) and by_name["target"].to_list() == ["tank"] * 3


def test_the_command_line_takes_names(tmp_path):
    cli = CliRunner()
    out = tmp_path / "run"
    result = cli.invoke(app, ["run", "-P", "fire_at_roe", "-p", "target=tank", "-n", "3",
                              "--engine", "reference", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["params"]["target"] == 1
    played = cli.invoke(app, ["play", "-P", "fire_at_roe", "-p", "target=HMG", "--seed", "3"])
    assert played.exit_code == 0 and "target=HMG" in played.output.splitlines()[0]
    refused = cli.invoke(app, ["run", "-P", "fire_at_roe", "-p", "target=tnk", "-n", "3"])
    assert refused.exit_code == 2 and "one of ATGM, tank, HMG, artillery" in refused.stderr


def test_a_spec_takes_names(tmp_path):
    spec = tmp_path / "targets.toml"
    spec.write_text('name = "targets"\ngames = 5\n[[grid]]\npolicy = "fire_at_roe"\n'
                    'params = { target = ["ATGM", "Tank", 3] }\n', encoding="utf-8")
    cells = bollesim.load_experiment(spec).cells
    assert [c.param_dict()["target"] for c in cells] == [0, 1, 3]
    assert np.array_equal(cells[1].params, load_policy("fire_at_roe").param_vector({"target": 1}))


def test_a_search_spec_takes_names(tmp_path):
    from bollesim.search.optimise_spec import load_search

    spec = tmp_path / "search.toml"
    spec.write_text('policy = "fire_at_roe"\nobjective = "operational"\nbudget = 10000\n'
                    'trial_games = 100\nholdout_games = 100\n[search]\nk = true\n'
                    'target = "Tank"\ntow = 0\n', encoding="utf-8")
    search = load_search(spec, load_game("bollebank"))
    assert search.base[3] == 1 and [a.name for a in search.axes] == ["k"]
    spec.write_text(spec.read_text().replace('target = "Tank"', 'target = ["atgm", "HMG"]'))
    target = next(a for a in load_search(spec, load_game("bollebank")).axes if a.name == "target")
    assert (target.low, target.high) == (0, 2)
    spec.write_text(spec.read_text().replace('"HMG"', '"tnk"'))
    with pytest.raises(UsageError, match="search.target.*'tnk' is not one of"):
        load_search(spec, load_game("bollebank"))
