"""The JSON schema of a game's document (narrated.game_document, `bollesim play --json`,
bollesim.narrate), made from the declarations it names: the events (events.py), the
decisions (decisions.py) and the result columns (result.py); `bollesim analyse --json`
adds its analysis (strong/account.py). docs/game.schema.json is
written by `python -m bollesim.bollebank.gameschema` and checked by a test."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bollesim.bollebank import decisions, events
from bollesim.bollebank.result import RESULT
from bollesim.strong.account import ANALYSIS_SCHEMA

PATH = Path(__file__).resolve().parents[2] / "docs" / "game.schema.json"
JSON_TYPES = {"bool": "boolean", "int16": "integer", "int32": "integer", "text": "string"}
INTEGER = {"type": "integer"}


def _column(column) -> dict:
    types = [JSON_TYPES[column.kind]] + (["null"] if column.name in RESULT.nullable else [])
    out = {"type": types[0] if len(types) == 1 else types, "description": column.meaning}
    if column.texts:
        out["enum"] = [*column.texts, *([None] if "null" in types else [])]
    return out


def _object(properties: dict, description: str = "") -> dict:
    out = {"type": "object", "required": list(properties), "additionalProperties": False,
           "properties": properties}
    return {"description": description, **out} if description else out


def schema() -> dict:
    event = _object({
        "turn": INTEGER,
        "event": {"enum": list(events.EVENT_NAMES), "description": "bollesim/bollebank/events.py"},
        "args": {"type": "array", "items": INTEGER, "minItems": 4, "maxItems": 4,
                 "description": "the event's four integers, as events.py says for each"},
    }, "an event of the reference engine's trace: a chit drawn, a die rolled, a move...")
    option = _object({"code": INTEGER, "words": {"type": "string"}},
                     "a legal option, packed as decisions.py says, and in words")
    decision = _object({
        "turn": INTEGER,
        "decision": {"enum": list(decisions.KIND_NAMES), "description": "bollesim/bollebank/decisions.py"},
        "context": {"type": "array", "items": INTEGER, "minItems": 2, "maxItems": 2,
                    "description": "observation.py's CONTEXT_A and CONTEXT_B"},
        "options": {"type": "array", "items": option, "minItems": 2},
        "chosen": {"type": "integer", "minimum": 0, "description": "the index of the option taken"},
    }, "a decision put to the policy (one with a single option is not asked)")
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "A game of Operation Bøllebank",
        "description": "One game played by the reference engine, as `bollesim play --json` "
                       "prints it and bollesim.narrate returns it. Written by `python -m "
                       "bollesim.bollebank.gameschema`.",
        **_object({
            "policy": {"type": "string"},
            "params": {"type": "object", "additionalProperties": {"type": ["number", "string"]},
                       "description": "the policy's parameters: a number, or a choice's name"},
            "seed": {**INTEGER, "minimum": 0},
            "game": {**INTEGER, "minimum": 0, "description": "the game's index in its run"},
            "ruleset": _object({"name": {"type": "string"}, "sha256": {"type": "string"}}),
            "steps": {"type": "array", "items": {"oneOf": [event, decision]},
                      "description": "the game's decisions and events, in the order they came"},
            "narration": {"type": "array", "items": {"type": "string"},
                          "description": "the game told turn by turn, as `bollesim play` prints it"},
            "result": _object({c.name: _column(c) for c in RESULT.columns}, "the result row"),
        }),
    }
    document["properties"]["analysis"] = ANALYSIS_SCHEMA  # optional: `bollesim analyse --json`
    return document


def text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(text(), encoding="utf-8")
    print(f"wrote {PATH}", file=sys.stderr)
