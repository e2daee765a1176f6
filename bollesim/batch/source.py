"""Where a ruleset comes from: a file (None: the shipped one), a partial TOML merged over
it, `KEY=VALUE` overrides and readings {id: variant}, as `run`, `sweep`, `optimise` and
`serve` take them and as a run's manifest records them (`ruleset_source`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bollesim.game.declaration import Game, Ruleset


@dataclass(frozen=True)
class RulesetSource:
    """A ruleset's file, partial, overrides and readings, loaded in that order."""

    file: Path | None = None
    partial: Path | None = None
    overrides: tuple[str, ...] = ()
    readings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_options(cls, game: Game, file: Path | None, overrides: list[str] | None,
                     partial: Path | None, readings: list[str] | None) -> RulesetSource:
        """From the command line's --rules, --set, --partial and --reading ID=VARIANT (the
        game's reading ids)."""
        choices = game.rulebook.parse_choices(readings or [])
        return cls(file, partial, tuple(overrides or ()), choices)

    def load(self, game: Game) -> Ruleset:
        """The game's ruleset from this source."""
        return game.load_ruleset(self.file, list(self.overrides), self.partial, dict(self.readings))

    def label(self) -> str:
        """The source in one line: `default.toml + tweak.toml + --set KEY=VALUE + --reading ID=VARIANT`."""
        parts = [str(self.file) if self.file is not None else "default.toml"]
        parts += [str(self.partial)] if self.partial is not None else []
        parts += [f"--set {o}" for o in self.overrides]
        parts += [f"--reading {rid}={name}" for rid, name in self.readings.items()]
        return " + ".join(parts)

    def record(self) -> dict:
        """The manifest's `ruleset_source`."""
        return {"file": str(self.file) if self.file is not None else None,
                "partial": str(self.partial) if self.partial is not None else None,
                "overrides": list(self.overrides), "readings": dict(self.readings)}
