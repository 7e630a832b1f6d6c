"""The streamroute harness: vectors in, any implementation through one adapter, results out.

It needs PyYAML (vector files), jsonschema (every format is checked against spec/), pytest (the
plugin) and Hypothesis (generated streams: `streamroute fuzz` and the plugin's fuzzing).
"""
