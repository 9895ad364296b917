#!/usr/bin/env python3
"""Refresh acp-tui's snapshot of the ACP agent registry (acp_tui/agents/registry.json).

    python3 scripts/refresh_registry.py            # from the published registry.json
    python3 scripts/refresh_registry.py --from FILE [--output PATH] [--url URL]

It downloads the registry the agentclientprotocol/registry workflow publishes
(its README, "Usage"), checks every agent with the parser acp-tui itself uses
(agents/registry.py; an entry acp-tui cannot use is reported), stamps the file
with a ``snapshot`` block (the date, the source, the response's Last-Modified)
and writes it in place of the old one, atomically. Nothing is written when the
download or the file is bad, or when it holds fewer than --min-agents agents.

Not part of the installed package: it is a maintainer's tool (needs internet).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from acp_tui.agents.registry import REGISTRY_URL, SNAPSHOT, parse_agent  # noqa: E402

TIMEOUT = 60


def fetch(url: str) -> tuple[bytes, str]:
    """The body and its Last-Modified header ("" when absent)."""
    request = urllib.request.Request(url, headers={"User-Agent": "acp-tui registry refresh"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        return response.read(), response.headers.get("Last-Modified", "")


def build(raw: bytes, source: str, last_modified: str = "") -> tuple[dict[str, Any], list[str]]:
    """The snapshot to write, and the problems found; raises ValueError when unusable."""
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise ValueError('no "agents" list')
    problems = []
    for number, agent in enumerate(data["agents"], 1):
        parsed, why = parse_agent(agent)
        if parsed is None:
            problems.append(f"agent {number} will be skipped by acp-tui: {why}")
    snapshot: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "source": source,
    }
    if last_modified:
        snapshot["lastModified"] = last_modified
    agents = sorted(
        data["agents"], key=lambda a: str(a.get("id", "")) if isinstance(a, dict) else ""
    )
    rest = {k: v for k, v in data.items() if k not in ("agents", "snapshot")}
    return {"version": data.get("version", ""), "snapshot": snapshot, **rest, "agents": agents}, (
        problems
    )


def write(path: Path, snapshot: dict[str, Any]) -> None:
    text = json.dumps(snapshot, indent=2, ensure_ascii=False) + "\n"
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".registry-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=REGISTRY_URL, help="the registry.json to download")
    parser.add_argument("--from", dest="source_file", type=Path, help="read this file instead")
    parser.add_argument("--output", type=Path, default=SNAPSHOT, help="where to write it")
    parser.add_argument("--min-agents", type=int, default=10, help="refuse a smaller registry")
    args = parser.parse_args(argv)
    try:
        if args.source_file is not None:
            raw, source, modified = args.source_file.read_bytes(), str(args.source_file), ""
        else:
            raw, modified = fetch(args.url)
            source = args.url
        snapshot, problems = build(raw, source, modified)
    except (OSError, ValueError) as exc:
        where = args.source_file or args.url
        print(f"refresh_registry: cannot use {where}: {exc}", file=sys.stderr)
        return 1
    for problem in problems:
        print(f"refresh_registry: {problem}", file=sys.stderr)
    count = len(snapshot["agents"])
    if count < args.min_agents:
        print(
            f"refresh_registry: only {count} agents (fewer than --min-agents {args.min_agents});"
            " not writing it",
            file=sys.stderr,
        )
        return 1
    write(args.output, snapshot)
    print(f"refresh_registry: {count} agents from {source} -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
