"""The user config file (acp_tui/agents/config.py): real files, and the real CLI."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agents.config import (
    Config,
    config_path,
    display_path,
    load_config,
    resolve,
)
from acp_tui.agents.config_text import find_line
from acp_tui.agents.presets import AgentNotFound
from tests.fake_agents import SCRIPTED_AGENT
from tests.test_headless import rebuild_text
from tests.test_list_agents import local_rows
from tests.waiting import wait_until

CONFIG_VARS = ("ACP_TUI_CONFIG", "XDG_CONFIG_HOME")


def toml_str(value: str | Path) -> str:
    return json.dumps(str(value))  # a JSON string is a valid TOML basic string


def clean_env(**env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    return {**base, **env}


def run(*args: str, config: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    if config is not None:
        env["ACP_TUI_CONFIG"] = str(config)
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def listed(stdout: str) -> dict[str, str]:
    return local_rows(stdout)


@pytest.fixture
def agent_bin(tmp_path: Path) -> Path:
    """A folder holding `scripted-acp`, a command (no slash) that runs the scripted agent."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "scripted-acp"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {SCRIPTED_AGENT} "$@"\n')
    script.chmod(0o755)
    return folder


# -- where the file is ----------------------------------------------------------------------


def test_config_path_precedence(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    assert config_path({"HOME": home}) == Path(home, ".config", "acp-tui", "config.toml")
    xdg = str(tmp_path / "xdg")
    assert config_path({"HOME": home, "XDG_CONFIG_HOME": xdg}) == Path(
        xdg, "acp-tui", "config.toml"
    )
    # The XDG spec: a relative XDG_CONFIG_HOME is ignored.
    assert config_path({"HOME": home, "XDG_CONFIG_HOME": "rel"}).parent.parent.name == ".config"
    explicit = str(tmp_path / "mine.toml")
    assert config_path({"HOME": home, "XDG_CONFIG_HOME": xdg, "ACP_TUI_CONFIG": explicit}) == Path(
        explicit
    )


def test_xdg_config_home_is_honoured_by_the_cli(tmp_path: Path, agent_bin: Path) -> None:
    xdg = tmp_path / "xdg"
    (xdg / "acp-tui").mkdir(parents=True)
    (xdg / "acp-tui" / "config.toml").write_text('[agents.viaxdg]\ncommand = "scripted-acp"\n')
    result = run(
        "--list-agents",
        XDG_CONFIG_HOME=str(xdg),
        HOME=str(tmp_path / "home"),
        PATH=f"{agent_bin}{os.pathsep}{os.environ['PATH']}",
    )
    assert result.returncode == 0, result.stderr
    assert "from config" in listed(result.stdout)["viaxdg"]


def test_home_config_and_messages_say_tilde(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "acp-tui").mkdir(parents=True)
    (home / ".config" / "acp-tui" / "config.toml").write_text(
        'theme = 1\n[agents.ok]\ncommand = "x"\n'
    )
    result = run("--list-agents", HOME=str(home))
    assert result.returncode == 0
    assert "ok" in listed(result.stdout)
    assert "config ~/.config/acp-tui/config.toml line 1: theme" in result.stderr
    assert str(home) not in result.stderr


def test_missing_file_is_the_defaults_silently(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nope.toml")
    assert config.problems == [] and config.agents == {}
    assert config.default_agent == "demo" and config.theme is None and config.allow_roots == ()
    result = run("--list-agents", config=tmp_path / "nope.toml")
    assert result.returncode == 0 and result.stderr == ""
    assert "(default)" in listed(result.stdout)["demo"]


# -- what it holds --------------------------------------------------------------------------


def test_a_full_config_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "src").mkdir(parents=True)
    (tmp_path / "cfg" / "shared").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    path = tmp_path / "cfg" / "config.toml"
    path.write_text(
        'default_agent = "mine"\n'
        'theme = "acp-light"\n'
        'allow_roots = ["~/src", "shared"]\n'
        "\n"
        "[agents.mine]\n"
        'command = "node"\n'
        'args = ["agent.js", "--acp"]\n'
        'env = { MINE_LOG = "debug", B = "2" }\n'
        'title = "My agent"\n'
        "\n"
        "[agents.claude]\n"
        'command = "/opt/claude/bin/claude-acp"\n'
    )
    config = load_config(path)
    assert config.problems == []
    assert config.default_agent == "mine" and config.theme == "acp-light"
    assert config.allow_roots == ((home / "src").resolve(), (tmp_path / "cfg" / "shared").resolve())
    mine = config.agents["mine"]
    assert (mine.command, mine.args, mine.title) == ("node", ("agent.js", "--acp"), "My agent")
    assert dict(mine.env) == {"MINE_LOG": "debug", "B": "2"}
    assert mine.line == 5
    assert config.names()[-1] == "mine" and config.names().count("claude") == 1
    # The config's claude overrides the preset; it is missing, so it says where it came from.
    with pytest.raises(AgentNotFound) as missing:
        resolve("claude", config)
    message = missing.value.explain()
    assert "config file ~/" not in message  # the file is not under HOME here
    assert display_path(path) in message and "line 11" in message
    assert "/opt/claude/bin/claude-acp" in message
    with pytest.raises(KeyError):
        resolve("nobody", config)


def test_find_line_knows_tables_dotted_keys_and_inline_tables() -> None:
    text = (
        "# a comment\n"
        'theme = "x"\n'
        "agents.dotted.args = 3\n"
        "[agents]\n"
        'inline = { command = "x", args = 3 }\n'
        '[agents."quoted name"]\n'
        'command = "y"\n'
        "[ agents . plain ]\n"
        "  args = []\n"
    )
    assert find_line(text, ("theme",)) == 2
    assert find_line(text, ("agents", "dotted", "args")) == 3
    assert find_line(text, ("agents", "inline", "args")) == 5
    assert find_line(text, ("agents", "quoted name")) == 6
    assert find_line(text, ("agents", "quoted name", "command")) == 7
    assert find_line(text, ("agents", "plain", "args")) == 9
    assert find_line(text, ("agents",)) == 4  # a line defining exactly the key wins
    assert find_line(text, ("agents", "dotted")) == 3  # else the first line inside it
    assert find_line(text, ("nothing",)) is None


# -- problems: warned about, never fatal -----------------------------------------------------


def test_syntax_error_names_file_and_line_and_continues_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('default_agent = "mine"\n[agents.mine]\ncommand = "y\nargs = []\n')
    config = load_config(path)
    assert config.agents == {} and config.default_agent == "demo"
    [problem] = config.problems
    assert problem.startswith(f"acp-tui: config {path} line 3: invalid TOML")
    assert "using the defaults" in problem
    result = run("--list-agents", config=path)
    assert result.returncode == 0
    assert "Traceback" not in result.stderr
    assert f"config {path} line 3: invalid TOML" in result.stderr
    assert "(default)" in listed(result.stdout)["demo"]
    assert "mine" not in listed(result.stdout)


async def test_syntax_error_headless_still_serves(headless: Any, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("theme = \n")
    client = await headless(
        "--", sys.executable, str(SCRIPTED_AGENT), cwd=tmp_path, ACP_TUI_CONFIG=str(path)
    )
    opened = await client.result("connection.open", {"cwd": str(tmp_path)})
    assert opened["agentInfo"]["name"] == "scripted"
    await client.result("shutdown")
    assert await client.close_stdin_and_wait() == 0
    assert client.proc.stderr is not None
    stderr = (await client.proc.stderr.read()).decode()
    assert f"config {path} line 1: invalid TOML" in stderr


def test_wrong_types_name_the_line_and_key_and_only_that_item_is_ignored(
    tmp_path: Path, agent_bin: Path
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "theme = 7\n"  # 1
        "themes = 'x'\n"  # 2
        'default_agent = "foo"\n'  # 3
        "allow_roots = [\n"  # 4
        '  "missing-dir",\n'  # 5
        "  7,\n"  # 6
        "]\n"  # 7
        "[agents.foo]\n"  # 8
        'command = "scripted-acp"\n'  # 9
        'args = "--verbose"\n'  # 10
        "[agents.bar]\n"  # 11
        'command = "scripted-acp"\n'  # 12
        "env = { PORT = 8080 }\n"  # 13
        "[agents.baz]\n"  # 14
        'comand = "scripted-acp"\n'  # 15
        "[agents.good]\n"  # 16
        'command = "scripted-acp"\n'  # 17
        "title = 3\n"  # 18
    )
    result = run("--list-agents", config=path, PATH=f"{agent_bin}{os.pathsep}{os.environ['PATH']}")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    where = f"acp-tui: config {path}"
    expected = [
        f"{where} line 1: theme must be a theme's name (got an integer); ignoring it",
        f"{where} line 2: unknown key 'themes' (did you mean 'theme'?); ignoring it",
        f"{where} line 3: default_agent 'foo' is not an agent",
        f"{where} line 4: allow_roots item 2 must be a path (got an integer); ignoring it",
        f"{where} line 5: allow_roots: 'missing-dir' is not an existing directory; ignoring it",
        f"{where} line 10: agents.foo.args must be a list of strings (got a string);"
        " ignoring agent 'foo'",
        f"{where} line 13: agents.bar.env.PORT must be a string (got an integer);"
        " ignoring agent 'bar'",
        f"{where} line 14: agents.baz has no command",
        f"{where} line 15: unknown key 'agents.baz.comand' (did you mean 'command'?)",
        f"{where} line 18: agents.good.title must be a string (got an integer); ignoring it",
    ]
    lines = result.stderr.splitlines()
    assert len(lines) == len(expected), result.stderr
    for line, start in zip(lines, expected, strict=True):
        assert line.startswith(start), (line, start)
    agents = listed(result.stdout)
    assert "good" in agents and "found" in agents["good"]
    assert not {"foo", "bar", "baz"} & set(agents)
    assert "(default)" in agents["demo"]


def test_wrong_shapes_for_whole_sections(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('agents = "none"\nallow_roots = "~"\ndefault_agent = 3\n[[x]]\n')
    config = load_config(path)
    assert config.agents == {} and config.allow_roots == () and config.default_agent == "demo"
    assert config.problems == [
        f"acp-tui: config {path} line 1: agents must be a table of [agents.NAME] tables"
        " (got a string); ignoring it",
        f"acp-tui: config {path} line 2: allow_roots must be a list of directories"
        " (got a string); ignoring it",
        f"acp-tui: config {path} line 3: default_agent must be a string, an agent's name"
        " (got an integer); using 'demo'",
        f"acp-tui: config {path} line 4: unknown key 'x' (known: agents, default_agent, theme,"
        " allow_roots, add_dirs, history, timeouts, registry, limits, checkpoints, notifications,"
        " mcp_servers, host); ignoring it",
    ]


def test_unreadable_and_non_utf8_files_warn(tmp_path: Path) -> None:
    folder = tmp_path / "config.toml"
    folder.mkdir()
    [problem] = load_config(folder).problems
    assert problem.startswith(f"acp-tui: config {folder}: cannot read it")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"a = 1\nb = '\xff'\n")
    assert load_config(binary).problems == [
        f"acp-tui: config {binary} line 2: not UTF-8 text; using the defaults"
    ]


# -- custom agents through the real CLI -------------------------------------------------------


def test_list_agents_shows_custom_agents_overrides_and_the_default(
    tmp_path: Path, agent_bin: Path
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'default_agent = "mine"\n'
        '[agents.mine]\ncommand = "scripted-acp"\nargs = ["--x"]\ntitle = "Mine"\n'
        '[agents.gemini]\ncommand = "scripted-acp"\n'
        '[agents.ghost]\ncommand = "ghost-acp-xyz"\n'
    )
    result = run("--list-agents", config=path, PATH=str(agent_bin))
    assert result.returncode == 0 and result.stderr == ""
    agents = listed(result.stdout)
    assert list(agents)[-2:] == ["mine", "ghost"]
    assert "found" in agents["mine"] and f"{agent_bin / 'scripted-acp'} --x" in agents["mine"]
    assert "(default, from config, 'Mine')" in agents["mine"]
    assert "(from config, overrides the preset)" in agents["gemini"]
    assert "found" in agents["gemini"]
    assert "missing" in agents["ghost"] and "`ghost-acp-xyz` on PATH" in agents["ghost"]
    assert "from config" in agents["ghost"]
    assert "default" not in agents["demo"]
    assert "missing" in agents["claude"]  # presets are still listed


async def test_custom_agent_runs_headless_with_its_args_and_env(
    headless: Any, tmp_path: Path, agent_bin: Path
) -> None:
    count_file = tmp_path / "initialized"
    path = tmp_path / "config.toml"
    path.write_text(
        "[agents.mine]\n"
        'command = "scripted-acp"\n'
        f"env = {{ ACP_FAKE_COUNT_FILE = {toml_str(count_file)} }}\n"
    )
    work = tmp_path / "work"
    work.mkdir()
    client = await headless(
        "mine",
        cwd=work,
        ACP_TUI_CONFIG=str(path),
        PATH=f"{agent_bin}{os.pathsep}{os.environ['PATH']}",
    )
    opened = await client.result("connection.open", {"cwd": str(work)})
    assert opened["agentInfo"]["name"] == "scripted"
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    result = await client.result("session.prompt", {"sessionId": session_id, "text": "echo a b"})
    assert result == {"stopReason": "end_turn"}
    assert rebuild_text(client.events, session_id) == "a b "
    # The env table reached the agent process (it records each initialize there).
    assert count_file.read_text() == "initialize\n"


async def test_allow_roots_reach_the_host_and_allow_root_adds(
    headless: Any, tmp_path: Path
) -> None:
    work, config_root, cli_root, fenced = (tmp_path / n for n in ("work", "a", "b", "c"))
    for folder in (work, config_root, cli_root, fenced):
        folder.mkdir()
        (folder / "f.txt").write_text(f"in {folder.name}\n")
    path = tmp_path / "config.toml"
    path.write_text('allow_roots = ["a", "nope"]\n')  # relative to the config file's folder
    client = await headless(
        "--allow-root",
        str(cli_root),
        "--",
        sys.executable,
        str(SCRIPTED_AGENT),
        cwd=work,
        ACP_TUI_CONFIG=str(path),
    )
    opened = await client.result("connection.open", {"cwd": str(work)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    replies = []
    for folder in (config_root, cli_root, fenced):
        before = rebuild_text(client.events, session_id)
        text = f"fs-read {folder / 'f.txt'}"
        await client.result("session.prompt", {"sessionId": session_id, "text": text})
        replies.append(json.loads(rebuild_text(client.events, session_id)[len(before) :]))
    assert replies[0] == {"result": {"content": "in a\n"}}
    assert replies[1] == {"result": {"content": "in b\n"}}
    assert "error" in replies[2]
    await client.result("shutdown")
    await client.close_stdin_and_wait()
    assert client.proc.stderr is not None
    stderr = (await client.proc.stderr.read()).decode()
    assert f"config {path} line 1: allow_roots: 'nope' is not an existing directory" in stderr


@pytest.mark.parametrize("headless_mode", [False, True])
def test_missing_custom_command_is_a_friendly_exit_2(tmp_path: Path, headless_mode: bool) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[agents.ghost]\ncommand = "ghost-acp-xyz"\nargs = ["--acp"]\n')
    args = ("--headless", "--stdio", "ghost") if headless_mode else ("ghost",)
    result = run(*args, config=path, PATH=str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "'ghost'" in result.stderr
    assert "`ghost-acp-xyz` on PATH" in result.stderr
    assert f"from the config file {path} line 1" in result.stderr
    assert len(result.stderr.splitlines()) <= 10


def test_missing_custom_command_path_relative_to_the_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[agents.local]\ncommand = "bin/agent"\n')
    result = run("local", config=path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"`{tmp_path / 'bin' / 'agent'}` (a file)" in result.stderr


def test_default_agent_missing_is_the_same_friendly_error(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('default_agent = "ghost"\n[agents.ghost]\ncommand = "ghost-acp-xyz"\n')
    result = run(config=path, PATH=str(tmp_path))  # no agent given: the default one
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "'ghost'" in result.stderr and "ghost-acp-xyz" in result.stderr
    preset = tmp_path / "preset.toml"
    preset.write_text('default_agent = "codex"\n')
    result = run(config=preset, PATH=str(tmp_path))
    assert result.returncode == 2 and "npm install -g @zed-industries/codex-acp" in result.stderr


def test_unknown_agent_lists_the_config_agents_too(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[agents.mine]\ncommand = "x"\n')
    result = run("nonsense", config=path)
    assert result.returncode == 2 and "unknown agent 'nonsense'" in result.stderr
    assert "from the config file: mine" in result.stderr


def _drain(tui: Any) -> None:
    while select.select([tui.fd], [], [], 0)[0]:
        try:
            if not tui.read(65536):
                return
        except (EOFError, OSError):
            return


def test_default_agent_starts_in_the_tui(tmp_path: Path, agent_bin: Path) -> None:
    ptyprocess = pytest.importorskip("ptyprocess")
    count_file = tmp_path / "initialized"
    path = tmp_path / "config.toml"
    path.write_text(
        'default_agent = "mine"\n'
        "[agents.mine]\n"
        'command = "scripted-acp"\n'
        f"env = {{ ACP_FAKE_COUNT_FILE = {toml_str(count_file)} }}\n"
    )
    env = clean_env(
        TERM="xterm-256color",
        ACP_TUI_CONFIG=str(path),
        PATH=f"{agent_bin}{os.pathsep}{os.environ['PATH']}",
    )
    tui = ptyprocess.PtyProcess.spawn(
        [sys.executable, "-m", "acp_tui", "--cwd", str(tmp_path)], env=env, dimensions=(30, 100)
    )
    try:

        def started_or_gone() -> bool:
            _drain(tui)
            return count_file.exists() or not tui.isalive()

        wait_until(started_or_gone, 30, poll=0.05, what="the default agent never started")
        assert count_file.exists(), "the TUI ended before the default agent started"
        assert count_file.read_text() == "initialize\n"
        tui.write(b"\x11")  # Ctrl+Q

        def quit_() -> bool:
            _drain(tui)
            return not tui.isalive()

        wait_until(quit_, 10, poll=0.05, what="the TUI did not quit")
    finally:
        if tui.isalive():
            tui.kill(signal.SIGKILL)


def test_config_object_defaults() -> None:
    config = Config()
    assert config.names()[-1] == "demo" and config.default_agent == "demo"


def test_history_settings(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[history]\nmax_sessions = 20\nmax_age_days = 0\n")
    settings = load_config(path).history
    assert (settings.enabled, settings.max_sessions, settings.max_age_days) == (True, 20, None)
    path.write_text('[history]\nenabled = "no"\nmax_sessions = 0\nkeep = 1\n')
    config = load_config(path)
    assert config.history.enabled is True and config.history.max_sessions == 500
    assert config.problems == [
        f"acp-tui: config {path} line 2: history.enabled must be true or false; ignoring it",
        f"acp-tui: config {path} line 3: history.max_sessions must be a whole number of at"
        " least 1; ignoring it",
        f"acp-tui: config {path} line 4: unknown key 'history.keep' (known: enabled,"
        " max_sessions, max_age_days); ignoring it",
    ]


def test_checkpoint_settings(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[checkpoints]\nenabled = false\nkeep = 20\nmax_file_mib = 0.5\n")
    settings = load_config(path).checkpoints
    assert (settings.enabled, settings.keep, settings.size_limit) == (False, 20, 2**19)
    path.write_text('[checkpoints]\nenabled = 1\nkeep = 0\nmax_file_mib = "big"\nkept = 3\n')
    config = load_config(path)
    assert (config.checkpoints.enabled, config.checkpoints.keep) == (True, 200)
    assert config.checkpoints.size_limit == 5 * 2**20
    assert config.problems == [
        f"acp-tui: config {path} line 2: checkpoints.enabled must be true or false; ignoring it",
        f"acp-tui: config {path} line 3: checkpoints.keep must be a whole number of at least 1;"
        " ignoring it",
        f"acp-tui: config {path} line 4: checkpoints.max_file_mib must be a number of MiB"
        " above 0; ignoring it",
        f"acp-tui: config {path} line 5: unknown key 'checkpoints.kept' (did you mean 'keep'?);"
        " ignoring it",
    ]


def test_notification_settings(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[notifications]\nbell = false\ntitle = false\n")
    settings = load_config(path).notifications
    assert (settings.bell, settings.title, settings.desktop, settings.needs_you) == (
        False,
        False,
        True,
        True,
    )
    path.write_text('[notifications]\nbell = "loud"\nbells = true\n')
    config = load_config(path)
    assert config.notifications.bell is True
    assert config.problems == [
        f"acp-tui: config {path} line 2: notifications.bell must be true or false; ignoring it",
        f"acp-tui: config {path} line 3: unknown key 'notifications.bells' (did you mean"
        " 'bell'?); ignoring it",
    ]
