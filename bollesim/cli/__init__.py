"""The command line (`bollesim`, typer): one module per command group, the options they
share, what they print; cli/app.py registers them all (cli/wiring.py says how)."""
