"""`python -m bollesim ...` runs the command line, like the `bollesim` script."""

from bollesim.cli.app import main

if __name__ == "__main__":
    main()
