"""Errors that the command line reports as one line (`error: ...`) and exit code 2."""


class UsageError(ValueError):
    """A request that cannot be carried out as asked: an unknown policy, a parameter out
    of range, an experiment file that names no policy... str() is one line that says what
    is wrong and, where it helps, what would be accepted."""


class RulesetError(ValueError):
    """A ruleset that cannot be used (any game's); str() is one line: file: key: problem
    (file: problem when the problem is the whole file's, key None)."""

    def __init__(self, source: str, key: str | None, problem: str):
        self.source, self.key, self.problem = source, key, problem
        super().__init__(f"{source}: {key}: {problem}" if key else f"{source}: {problem}")


class IllegalChoice(UsageError):
    """A choice that is not one of a decision's options (an index out of range, a number
    that is not a whole one, a choice after the game ended); str() says which exist."""
