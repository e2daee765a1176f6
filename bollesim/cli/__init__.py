"""The command line (`bollesim`, typer): cli/app.py."""
