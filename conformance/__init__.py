"""The streamroute harness: vectors in, any implementation through one adapter, results out.

It needs PyYAML (vector files), jsonschema (every format is checked against spec/), pytest (the
plugin) and Hypothesis (generated streams: `streamroute fuzz` and the plugin's fuzzing). An
in-process adapter declines a vector by raising `Declined`, exported here.
"""

from .declined import Declined

__all__ = ["Declined"]
