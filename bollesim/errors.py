"""Errors that the command line reports as one line (`error: ...`) and exit code 2.

`bollesim.bollebank.rules.loader.RulesetError` is the other one: a ruleset file that cannot be used.
"""


class UsageError(ValueError):
    """A request that cannot be carried out as asked: an unknown policy, a parameter out
    of range, an experiment file that names no policy... str() is one line that says what
    is wrong and, where it helps, what would be accepted."""
