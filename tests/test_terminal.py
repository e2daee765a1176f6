"""bollesim.terminal.printable: nothing a file holds can drive the terminal."""

from bollesim.terminal import printable


def test_escape_sequences_are_shown_not_sent():
    assert printable("a\x1b]0;pwned\x07b") == "a\\x1b]0;pwned\\x07b"
    assert printable("\x9b31m") == "\\x9b31m"


def test_plain_text_tabs_and_newlines_pass_unchanged():
    text = "SAR\tKAL\nØ é → 7"
    assert printable(text) == text
