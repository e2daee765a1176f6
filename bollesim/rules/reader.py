"""Typed access to ruleset data through its declaration (schema.py).

Every value a table builder reads goes through a Reader, which checks it against its
declared kind and raises a one-line RulesetError naming the file, the key and what is
allowed.
"""

from __future__ import annotations

from bollesim.rules import schema as S


class RulesetError(ValueError):
    """A ruleset that cannot be used; str() is one line: file: key: problem."""

    def __init__(self, source: str, key: str, problem: str):
        self.source, self.key, self.problem = source, key, problem
        super().__init__(f"{source}: {key}: {problem}")


class Reader:
    """Reads declared keys of merged ruleset data; `source` names the data in errors."""

    def __init__(self, data: dict, source: str):
        self.data, self.source = data, source

    def fail(self, key: str, problem: str):
        raise RulesetError(self.source, key, problem)

    def raw(self, path: str):
        """The value at a dotted path as written, or S.REQUIRED when absent."""
        node = self.data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return S.REQUIRED
            node = node[part]
        return node

    def value(self, path: str):
        """The value of a declared key, read by its kind (a Choice gives its index)."""
        key = S.find(path)
        value = self.raw(path)
        if value is S.REQUIRED:
            self.fail(path, f"missing: expected {key.kind.describe()}")
        return self.read(path, key.kind, value)

    def read(self, path: str, kind, value):
        try:
            return kind.read(value)
        except S.Fail as exc:
            self.fail(path + exc.where, exc.problem)

    def rows(self, path: str) -> list[dict]:
        """The rows of an array of tables, each a dict of its columns read by their kinds
        (omitted columns take their default), plus `_key`, the row's key path for
        messages (`map.positions[K1]`), and `_raw`, the row as written."""
        rows_decl = S.find(path)
        value = self.raw(path)
        if value is S.REQUIRED:
            self.fail(path, "missing: expected one or more tables")
        if not isinstance(value, list):
            self.fail(path, f"must be a list of tables, got {value!r}")
        out = []
        for i, row in enumerate(value):
            where = f"{path}[{S.row_label(rows_decl, row, i)}]"
            if not isinstance(row, dict):
                self.fail(where, f"must be a table {{ ... }}, got {row!r}")
            parsed = {}
            for col in rows_decl.columns:
                given = row.get(col.name, col.default)
                if given is S.REQUIRED:
                    self.fail(f"{where}.{col.name}", f"missing: expected {col.kind.describe()}")
                parsed[col.name] = self.read(f"{where}.{col.name}", col.kind, given)
            parsed["_key"] = where
            parsed["_raw"] = row
            out.append(parsed)
        return out

    def list_length(self, path: str, values: list, length: int, what: str) -> None:
        if len(values) != length:
            self.fail(path, f"needs one value per {what} ({length}), got {len(values)}")
