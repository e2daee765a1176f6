"""The game the command line plays: `bollesim --game NAME COMMAND` resolves NAME once
(registry.load_game, in the app's callback) into a `Chosen` kept in the typer context, and
every command takes it as a value (wiring.command hands it to a parameter `game: Game`,
or `chosen: Chosen` for a command that reads a run folder, whose own game it plays).

`--help` speaks of the chosen game: a command's help, its examples and its options' help
are templates whose `$words` (help_words: `$title`, `$baseline`, `$experiment`, ...) are
filled in with the chosen game's when shown, so `bollesim --game balkan-wars rules check
--help` shows that game's ruleset file. The templates themselves hold no game's words.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from string import Template

import typer
from typer._click.globals import get_current_context
from typer.core import _click as click  # typer's own click (pyproject.toml)

from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.game.registry import DEFAULT_GAME, load_game, registered


@dataclass(frozen=True)
class Chosen:
    """The game `--game` chose (the default one when not given) and whether it was given."""

    game: Game
    explicit: bool

    def of_folder(self, folder: str | Path) -> Game:
        """The game of a run folder a command reads: the one its manifest records (a folder
        without a manifest: the chosen one, for open_run to judge). An explicit --game that
        names another is refused in one line naming both."""
        from bollesim.batch.runfolder import MANIFEST, read_manifest
        from bollesim.inputs import check_path

        path = check_path(folder)  # a name the system cannot open: one line naming it
        if not (path / MANIFEST).is_file():
            return self.game
        held = read_manifest(path).game or DEFAULT_GAME
        if self.explicit and held != self.game.name:
            raise UsageError(f"{path} holds games of {held!r}, not of {self.game.name!r} "
                             f"(--game {self.game.name}): drop --game, a command on a run "
                             "folder plays the folder's game")
        return load_game(held)


def choose(ctx: click.Context, param: click.Parameter, name: str) -> str:
    """The callback of the global --game (eager, so that `--game NAME --help` speaks of
    it): the game resolved once and kept in the context for the commands."""
    explicit = ctx.get_parameter_source(param.name) == click.core.ParameterSource.COMMANDLINE
    try:
        ctx.obj = Chosen(load_game(name), explicit)
    except UsageError as exc:  # one `error:` line, exit 2 (wiring's group says it)
        raise click.exceptions.UsageError(str(exc), ctx) from None
    return name


def chosen_game(ctx: click.Context | None = None) -> Chosen:
    """The command line's Chosen, from the context of the command running (or `ctx`); the
    default game before --game was read (`bollesim --help`)."""
    ctx = ctx or get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    if root is not None and isinstance(root.obj, Chosen):
        return root.obj
    return Chosen(load_game(DEFAULT_GAME), explicit=False)


def help_words(game: Game) -> dict[str, str]:
    """The words a help template may name, of the game: $title, $name, $games (every
    registered game), $chooser (`--game NAME ` unless the default game), $baseline,
    $param (the baseline's first parameter at its highest, NAME=VALUE), $trigger and
    $setting (the headline question's last family and its parameter at its default),
    $reading (the first reading with alternatives), $rules_file (the shipped ruleset),
    $experiment and $results (the headline sweep's spec, and its results folder),
    $readings (the page of its readings), $loss (the outcome its player wants least)."""
    baseline = game.policy_module(game.baseline).PARAMETERS
    trigger = game.triggers[-1] if game.triggers else None
    setting = next((p for p in game.policy_module(trigger.policy).PARAMETERS
                    if p.name == trigger.param), None) if trigger else None
    readings = [r.id for r in game.rulebook.READINGS.values() if r.alternatives]
    experiment = game.experiment or "experiments/SPEC.toml"
    return {
        "title": game.title, "name": game.name, "games": ", ".join(registered()),
        "chooser": "" if game.name == DEFAULT_GAME else f"--game {game.name} ",
        "baseline": game.baseline,
        "param": f"{baseline[0].name}={baseline[0].text(baseline[0].high)}" if baseline else "",
        "trigger": trigger.policy if trigger else game.baseline,
        "setting": f"{setting.name}={setting.text(setting.default)}" if setting else "",
        "reading": readings[0] if readings else "ID",
        "rules_file": _shown(Path(game.rulebook.DEFAULT_PATH)),
        "experiment": experiment, "results": f"results/{Path(experiment).stem}",
        "readings": game.readings_page, "loss": game.result.loss,
    }


def _shown(path: Path) -> str:
    """A path of the installation as its source tree names it (else as it is)."""
    root = Path(__file__).resolve().parents[2]
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def fill(text: str | None, words: dict[str, str]) -> str | None:
    """A help template with its $words filled in (a `$` that names no word stays)."""
    return None if text is None else Template(text).safe_substitute(words)


def _filled(item, words: dict[str, str]):
    """A copy of a command, group or parameter with its help texts filled in."""
    shown = copy.copy(item)
    for attribute in ("help", "epilog", "short_help"):
        if getattr(item, attribute, None):
            setattr(shown, attribute, fill(getattr(item, attribute), words))
    if hasattr(item, "params"):
        shown.params = [_filled(p, words) for p in item.params]
    if getattr(item, "commands", None):
        shown.commands = {name: _filled(c, words) for name, c in item.commands.items()}
    return shown


class GameCommand(typer.core.TyperCommand):
    """A command whose help speaks of the chosen game (its templates filled in)."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        shown = _filled(self, help_words(chosen_game(ctx).game))
        return typer.core.TyperCommand.format_help(shown, ctx, formatter)


class GameGroup(typer.core.TyperGroup):
    """A group of commands whose help (and its commands' lines in it) speaks of the
    chosen game."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        shown = _filled(self, help_words(chosen_game(ctx).game))
        return typer.core.TyperGroup.format_help(shown, ctx, formatter)
