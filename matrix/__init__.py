"""`streamroute matrix`: real libraries run through the suite (run.py), the Markdown and JSON Lines
reports of docs/, and the HTML page (page.py). Tooling that generates docs, beside the harness."""
