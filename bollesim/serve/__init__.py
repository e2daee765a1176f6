"""The what-if page, `bollesim serve`: change a table of the rules, watch the odds move.

    server.py   bind the port, print where the page is, run uvicorn until Ctrl-C
    app.py      the web application (Starlette): routes, request checks, event stream
    form.py     the form, generated from the ruleset's declaration and readings
    edits.py    the page's edits as a ruleset (the loader's path and messages), and back
                out as a partial TOML
    odds.py     the odds of one setting, refined piece by piece; the trigger chart
    worker.py   the one engine thread, where a new change cancels the old between pieces
    best.py     `--from DIR`: DIR/best.json, the contract with `bollesim optimise`
    static/     the page: index.html, page.js, page.css (Vega comes from vl-convert)
"""
