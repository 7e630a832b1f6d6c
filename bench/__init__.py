"""`streamroute bench`: the reference's cost against json.loads and the openai SDK, and the
suite's own cost against parsing its vectors (benchmark.py). It times the reference's internals,
so it lives beside the harness, not in it."""
