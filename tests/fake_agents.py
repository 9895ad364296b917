"""The fake agents the tests run: real ACP agents on the SDK (tests/agents/), and
the demo agent that ships with acp-tui, each run by this Python.

    agent_spec()                                  the scripted agent, for Host / AcpApp
    agent_spec(HOSTILE_AGENT)                     another of tests/agents/
    agent_spec(ACP_FAKE_HANG="initialize")        its environment
    agent_spec(name="")                           unnamed, as ``acp-tui -- python x.py``
    agent_params(ECHO_AGENT, ECHO_BLOCKS_FILE=f)  the same as connection.open's "agent"
    demo_spec()                                   the demo agent, without its pauses
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from acp_tui.core import AgentSpec

AGENTS = Path(__file__).parent / "agents"
SCRIPTED_AGENT = AGENTS / "scripted_agent.py"
HOSTILE_AGENT = AGENTS / "hostile_agent.py"
ECHO_AGENT = AGENTS / "echo_blocks_agent.py"

#: The name each agent is shown under (a preset's name, as a user would pick).
_NAMES = {SCRIPTED_AGENT: "scripted", HOSTILE_AGENT: "hostile", ECHO_AGENT: "echo"}


def agent_spec(agent: Path = SCRIPTED_AGENT, *, name: str | None = None, **env: str) -> AgentSpec:
    """``agent`` (a script in tests/agents/) run by this Python with ``env``;
    named after it unless ``name`` is given (``""``: no name)."""
    shown = _NAMES.get(agent, agent.stem) if name is None else name
    return AgentSpec.of(sys.executable, [str(agent)], env, name=shown)


def agent_params(agent: Path = SCRIPTED_AGENT, **env: str) -> dict[str, Any]:
    """``agent`` as the headless protocol's ``connection.open`` takes it."""
    params: dict[str, Any] = {"command": sys.executable, "args": [str(agent)]}
    if env:
        params["env"] = env
    return params


def demo_spec(delay: float = 0.0) -> AgentSpec:
    """The demo agent (acp_tui/agents/demo.py), pausing ``delay`` between steps."""
    return AgentSpec.of(
        sys.executable,
        ["-m", "acp_tui.agents.demo"],
        {"ACP_TUI_DEMO_DELAY": "0" if delay == 0 else str(delay)},
        name="demo",
    )
