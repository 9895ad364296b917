"""The config file's ``[registry.ID]`` tables: what the user said about running
an ACP registry agent through a package runner::

    [registry.cline]                # an ACP registry agent acp-tui may run
    run = "npx"                     # through npx (or "uvx"); false: never
    package = "cline"               # the package that was allowed

acp-tui appends these tables itself when the user answers its question
(agents/registry_consent.py). A wrong table is reported (through ``warn``)
and left out, so the question is asked again; an unknown key is reported and
ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acp_tui.agents.config_text import dotted_key, find_line, value_kind

REGISTRY_KEYS = ("run", "package")
RUNNERS = ("npx", "uvx")
Warn = Callable[[tuple[str, ...], str], None]


@dataclass(frozen=True)
class RegistryAnswer:
    """A ``[registry.ID]`` table: what the user said about running a registry agent."""

    agent_id: str
    #: "npx" or "uvx": allowed through that runner; None: never run it.
    run: str | None
    #: The package name (no version) it was allowed for; another package asks again.
    package: str = ""
    line: int | None = None

    def allows(self, runner: str, package: str) -> bool:
        return self.run == runner and self.package == package


def registry_answers(
    value: Any, warn: Warn, hint: Callable[[str], str], *, text: str
) -> dict[str, RegistryAnswer]:
    """The answers in the ``registry`` value of the file, whose ``text`` gives their lines."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        warn(
            ("registry",),
            f"registry must be a table of [registry.ID] tables (got {value_kind(value)});"
            " ignoring it",
        )
        return {}
    answers = {}
    for agent_id, table in value.items():
        key = ("registry", agent_id)
        where = dotted_key(key)
        if not isinstance(table, dict):
            warn(key, f"{where} must be a table (got {value_kind(table)}); ignoring it")
            continue
        for extra in table:
            if extra not in REGISTRY_KEYS:
                warn(
                    (*key, extra),
                    f"unknown key '{dotted_key((*key, extra))}'{hint(extra)}; ignoring it",
                )
        run = table.get("run")
        package = table.get("package", "")
        if run is not False and run not in RUNNERS:
            warn(
                (*key, "run"),
                f'{where}.run must be "npx", "uvx" or false (got {run!r}); ignoring {where}',
            )
            continue
        if not isinstance(package, str):
            warn(
                (*key, "package"),
                f"{where}.package must be a string (got {value_kind(package)}); ignoring {where}",
            )
            continue
        answers[agent_id] = RegistryAnswer(
            agent_id, run if isinstance(run, str) else None, package, find_line(text, key)
        )
    return answers
