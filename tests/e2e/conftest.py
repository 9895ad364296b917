"""Fixtures for the end-to-end tests: the mock API's namespace, the adapters, homes.

The tests skip (with the reason) when node, npm, unshare or nsenter are
missing, when network namespaces cannot be made, or when an adapter cannot
be installed; with ``ACP_TUI_E2E_REQUIRED=1`` (set by .ci/run) they fail
instead, so CI cannot silently stop running them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.e2e.harness import InstalledAdapter, MockApi, make_home, missing_requirements
from tests.e2e.provision import ADAPTERS, ProvisionError

REQUIRED = os.environ.get("ACP_TUI_E2E_REQUIRED") == "1"


def unavailable(reason: str) -> NoReturn:
    if REQUIRED:
        pytest.fail(f"e2e required but unavailable: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def mock_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MockApi]:
    reason = missing_requirements()
    if reason is not None:
        unavailable(reason)
    api = MockApi.start(tmp_path_factory.mktemp("mock-api"))
    try:
        yield api
    finally:
        api.stop()


@pytest.fixture(scope="session", params=list(ADAPTERS), ids=lambda minor: f"adapter-{minor}")
def adapter(request: pytest.FixtureRequest) -> InstalledAdapter:
    reason = missing_requirements()
    if reason is not None:
        unavailable(reason)
    chosen = ADAPTERS[request.param]
    try:
        version = chosen.ensure()
    except ProvisionError as exc:
        unavailable(str(exc))
    return InstalledAdapter(chosen, version)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return make_home(tmp_path / "home")


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The session's cwd: empty, and apart from HOME."""
    cwd = tmp_path / "work"
    cwd.mkdir()
    return cwd
