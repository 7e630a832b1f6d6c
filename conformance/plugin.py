"""The pytest plugin's entry point: one test item per vector, its node id the vector id.

Registered through the `pytest11` entry point; it adds items only when asked
to (`--streamroute`, or any other `--streamroute-*` option), so installing
streamroute changes no other test run. The implementation under test is named
in the report header. Options without an implementation
(`--streamroute-adapter` or `--streamroute-adapter-command`) are refused, so an
unset CI variable never tests the reference unnoticed; `--streamroute` alone
asks for the reference. A session in which no vector ran fails, unless
`--streamroute-allow-empty`.

Every pytest run of any project with streamroute installed imports this
module, so it costs that run nothing: it reads the options
(conformance/options.py) and no more; the harness (conformance/plugin_run.py),
and Hypothesis only for `--streamroute-fuzz`, are imported when a streamroute
option is given.
"""

from __future__ import annotations

import pytest

from .options import DEFAULT_ADAPTER, SHARED_OPTIONS


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("streamroute", "streamroute conformance vectors")
    group.addoption(
        "--streamroute",
        action="store_true",
        help=f"run the streamroute vectors; alone, against the reference ({DEFAULT_ADAPTER})",
    )
    for option in SHARED_OPTIONS.values():  # those of `streamroute run` and `fuzz`, as they take them
        group.addoption(f"--streamroute-{option.pytest or option.name}", **option.settings)
    group.addoption(
        "--streamroute-fuzz-shards",
        metavar="K",
        type=int,
        default=1,
        help="split the generated streams into K test items, for pytest-xdist's workers (a campaign)",
    )
    group.addoption(
        "--streamroute-fuzz-database",
        metavar="DIR",
        help="keep failures in this Hypothesis example database, shared by a campaign's workers and"
        " machines: each replays what any of them found",
    )


def _active(config: pytest.Config) -> bool:
    """Asked for: `--streamroute`, or any shared option given."""
    option = config.option
    values = (getattr(option, shared.dest) for shared in SHARED_OPTIONS.values())
    given = (value is not None and value is not False and value != [] for value in values)  # 0 is given
    return bool(option.streamroute) or any(given)


def pytest_configure(config: pytest.Config) -> None:
    if _active(config):
        from .plugin_run import start  # the harness, loaded only now that it is asked for

        start(config)
