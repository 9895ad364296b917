"""The host core and the headless server never load Textual or Rich."""

from __future__ import annotations

import subprocess
import sys

HEADLESS_MODULES = [
    "acp_tui",
    "acp_tui.core.host",
    "acp_tui.core.connection",
    "acp_tui.core.sessions.session",
    "acp_tui.core.model.thread",
    "acp_tui.core.model.channel",
    "acp_tui.core.sessions.permissions",
    "acp_tui.core.capabilities.fs",
    "acp_tui.core.capabilities.terminals",
    "acp_tui.core.model.elicitation_form",
    "acp_tui.server.server",
    "acp_tui.server.methods",
    "acp_tui.agents.presets",
    "acp_tui.agents.registry",
    "acp_tui.agents.listing",
    "acp_tui.agents.registry_consent",
    "acp_tui.agents.demo",
    "acp_tui.cli",
]
FORBIDDEN = ("textual", "rich", "acp_tui.ui")


def test_headless_modules_import_no_ui() -> None:
    script = (
        "import importlib, sys\n"
        f"for name in {HEADLESS_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}"
        f" or m.startswith('acp_tui.ui'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "", f"UI modules loaded: {result.stdout.strip()}"


def _import_cycles() -> list[list[str]]:
    """Strongly connected groups of acp_tui modules, type-only imports included."""
    import grimp  # installed with import-linter

    graph = grimp.build_graph("acp_tui", exclude_type_checking_imports=False)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return groups


def test_no_import_cycles() -> None:
    assert _import_cycles() == []


def test_the_core_has_no_import_cycles() -> None:
    """The core on its own (the front ends' cycles are theirs to break)."""
    assert [g for g in _import_cycles() if any(m.startswith("acp_tui.core") for m in g)] == []


def test_the_facade_is_lazy() -> None:
    """Importing the facade or one leaf of the core loads neither Host nor the SDK."""
    script = (
        "import sys\n"
        "import acp_tui.core\n"
        "from acp_tui.core import one_line\n"
        "print(sorted(m for m in sys.modules if m.startswith('acp_tui.core.')"
        " or m.split('.')[0] in ('acp', 'pydantic', 'textual')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "['acp_tui.core.model', 'acp_tui.core.model.content_text']"


def test_every_facade_name_resolves() -> None:
    import acp_tui.core as facade

    for name in facade.__all__:
        assert getattr(facade, name) is not None, name
