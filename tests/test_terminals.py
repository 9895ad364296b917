"""TerminalManager on real ptys and real processes (AC-7 .. AC-10), no mocks."""

from __future__ import annotations

import asyncio
import itertools
import os
import resource
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
from acp import RequestError

from acp_tui.core.capabilities.terminals import (
    DEFAULT_OUTPUT_LIMIT,
    MAX_LIVE_TERMINALS,
    ExitStatus,
    TerminalManager,
    TerminalSnapshot,
    build_environment,
    build_shell_line,
    pick_shell,
)
from tests.waiting import until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX ptys")

HANG_GUARD = 10.0  # seconds; only ever "did not hang", never a speed assertion
INVALID_PARAMS = -32602


def user_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


@pytest.fixture
async def manager() -> AsyncIterator[TerminalManager]:
    terminals = TerminalManager(base_env=user_env(ACP_TUI_TEST_VAR="from the user"))
    yield terminals
    await asyncio.wait_for(terminals.close(), HANG_GUARD)


async def run(
    terminals: TerminalManager,
    command: str,
    args: Sequence[str] = (),
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    output_byte_limit: int | None = None,
) -> TerminalSnapshot:
    terminal_id = await terminals.create(
        command, args, env, cwd=cwd, output_byte_limit=output_byte_limit
    )
    await asyncio.wait_for(terminals.wait_for_exit(terminal_id), HANG_GUARD)
    return terminals.output(terminal_id)


async def wait_for_output(terminals: TerminalManager, terminal_id: str, lines: int) -> str:
    await until(lambda: terminals.output(terminal_id).output.count("\n") >= lines, HANG_GUARD)
    return terminals.output(terminal_id).output


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs; a zombie (exited, unreaped) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            stat = stat_file.read()
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] in (b"Z", b"X")


async def wait_gone(pid: int) -> bool:
    """Whether ``pid`` is gone within 5 s."""
    try:
        await until(lambda: process_gone(pid), 5)
    except AssertionError:
        return False
    return True


# -- AC-7: environment, stdin, shell lines, cwd ---------------------------------


async def test_pagers_are_disabled_by_default(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, 'printf \'%s|%s\\n\' "$PAGER" "$GIT_PAGER"', cwd=tmp_path)
    assert result.output == "|cat\n"
    assert result.exit_status == ExitStatus(exit_code=0, signal=None)


async def test_agent_env_overrides_pagers(manager: TerminalManager, tmp_path: Path) -> None:
    env = {"PAGER": "less", "GIT_PAGER": "more", "AGENT_VAR": "x y"}
    command = 'printf \'%s|%s|%s\\n\' "$PAGER" "$GIT_PAGER" "$AGENT_VAR"'
    result = await run(manager, command, cwd=tmp_path, env=env)
    assert result.output == "less|more|x y\n"


async def test_user_env_passes_through(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "printf '%s\\n' \"$ACP_TUI_TEST_VAR\"", cwd=tmp_path)
    assert result.output == "from the user\n"


async def test_term_is_set_when_missing(tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if k != "TERM"}
    terminals = TerminalManager(base_env=base)
    try:
        result = await run(terminals, "printf '%s\\n' \"$TERM\"", cwd=tmp_path)
    finally:
        await terminals.close()
    assert result.output == "xterm-256color\n"


def test_environment_layering() -> None:
    env = build_environment({"PAGER": "most", "TERM": "dumb", "A": "1"}, {"GIT_PAGER": "less"})
    assert env == {"PAGER": "", "GIT_PAGER": "less", "TERM": "dumb", "A": "1"}


def test_shell_choice() -> None:
    assert pick_shell({"SHELL": "/usr/bin/fish"}) == "/bin/sh"
    assert pick_shell({"SHELL": "bash"}) == "/bin/sh"  # not an absolute path
    assert pick_shell({}) == "/bin/sh"
    if os.access("/bin/bash", os.X_OK):
        assert pick_shell({"SHELL": "/bin/bash"}) == "/bin/bash"


async def test_non_posix_user_shell_falls_back_to_sh(tmp_path: Path) -> None:
    terminals = TerminalManager(base_env=user_env(SHELL="/bin/false"))
    try:
        result = await run(terminals, "echo ok", cwd=tmp_path)
    finally:
        await terminals.close()
    assert result.output == "ok\n"


@pytest.mark.parametrize("command", ["cat", 'read line; echo "got:$line"', "head -n 1"])
async def test_stdin_is_the_null_device(
    manager: TerminalManager, tmp_path: Path, command: str
) -> None:
    result = await run(manager, command, cwd=tmp_path)  # would hang if stdin were the pty
    assert result.exit_status is not None
    assert result.output in ("", "got:\n")


async def test_stdout_is_a_tty_and_stdin_is_not(manager: TerminalManager, tmp_path: Path) -> None:
    command = "[ -t 1 ] && echo out-tty; [ -t 0 ] || echo in-not-tty"
    result = await run(manager, command, cwd=tmp_path)
    assert result.output == "out-tty\nin-not-tty\n"


async def test_shell_line_with_a_pipe(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "printf 'one\\ntwo\\nthree\\n' | head -n 2", cwd=tmp_path)
    assert result.output == "one\ntwo\n"


async def test_args_are_passed_exactly(manager: TerminalManager, tmp_path: Path) -> None:
    args = ["%s\n", "a b", "c'd", '"q"', "$HOME", "*", ""]
    result = await run(manager, "printf", args, cwd=tmp_path)
    assert result.output == 'a b\nc\'d\n"q"\n$HOME\n*\n\n'


async def test_executable_path_with_spaces(manager: TerminalManager, tmp_path: Path) -> None:
    script = tmp_path / "my dir" / "run me.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho ran\n")
    script.chmod(0o755)
    assert build_shell_line(str(script), [], tmp_path) != str(script)
    result = await run(manager, str(script), cwd=tmp_path)
    assert result.output == "ran\n"


async def test_cwd_is_honoured(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "pwd -P", cwd=tmp_path)
    assert result.output == f"{tmp_path.resolve()}\n"


async def test_onlcr_is_off(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "printf 'a\\nb\\n'", cwd=tmp_path)
    assert result.output == "a\nb\n"


async def test_ansi_escapes_are_kept(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "printf '\\033[31mred\\033[0m\\n'", cwd=tmp_path)
    assert result.output == "\x1b[31mred\x1b[0m\n"


@pytest.mark.parametrize("command", ["exit 3", "sh -c 'exit 3'"])
async def test_exit_code(manager: TerminalManager, tmp_path: Path, command: str) -> None:
    result = await run(manager, command, cwd=tmp_path)
    assert result.exit_status == ExitStatus(exit_code=3, signal=None)


async def test_killed_by_a_signal(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "echo before; kill -9 $$", cwd=tmp_path)
    assert result.output == "before\n"
    assert result.exit_status == ExitStatus(exit_code=None, signal="SIGKILL")
    assert result.exit_status.to_wire() == {"exitCode": None, "signal": "SIGKILL"}


async def test_background_job_holding_the_pty_does_not_block_exit(
    manager: TerminalManager, tmp_path: Path
) -> None:
    command = "trap '' HUP; sleep 30 & echo \"$!\"; echo done"
    terminal_id = await manager.create(command, cwd=tmp_path)
    status = await asyncio.wait_for(manager.wait_for_exit(terminal_id), HANG_GUARD)
    assert status == ExitStatus(exit_code=0, signal=None)
    background_pid, done = manager.output(terminal_id).output.splitlines()
    assert done == "done"
    await manager.release(terminal_id)  # the stray group member goes with it
    assert await wait_gone(int(background_pid))


async def test_bad_requests(manager: TerminalManager, tmp_path: Path) -> None:
    cases = [
        {"command": "  ", "cwd": tmp_path},
        {"command": "echo", "cwd": tmp_path, "output_byte_limit": -1},
        {"command": "echo", "cwd": tmp_path / "missing"},
        {"command": "echo \0", "cwd": tmp_path},
        {"command": "echo", "cwd": tmp_path, "env": {"A=B": "c"}},
    ]
    for case in cases:
        with pytest.raises(RequestError) as caught:
            await manager.create(**case)  # type: ignore[arg-type]
        assert caught.value.code == INVALID_PARAMS
        assert "/" not in str(caught.value)
    assert manager.live_count() == 0


# -- AC-8: output limit through a real pty ---------------------------------------


async def test_small_limit_keeps_the_head(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "seq 1 1000", cwd=tmp_path, output_byte_limit=100)
    full = "".join(f"{n}\n" for n in range(1, 1001))
    assert result.truncated
    assert result.output.endswith("\n")
    assert full.startswith(result.output)
    assert 90 <= len(result.output.encode()) <= 100


async def test_zero_limit(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "echo hi", cwd=tmp_path, output_byte_limit=0)
    assert (result.output, result.truncated) == ("", True)


async def test_output_within_limit_is_complete(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "seq 1 1000", cwd=tmp_path, output_byte_limit=3893)
    assert result.output == "".join(f"{n}\n" for n in range(1, 1001))
    assert not result.truncated


async def test_limit_is_capped_at_one_mib(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(
        manager, "yes abcdefghi | head -c 1500000", cwd=tmp_path, output_byte_limit=10**9
    )
    assert result.truncated
    assert DEFAULT_OUTPUT_LIMIT - 10 <= len(result.output.encode()) <= DEFAULT_OUTPUT_LIMIT


async def test_huge_output_is_bounded(manager: TerminalManager, tmp_path: Path) -> None:
    peak_before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = await run(manager, "yes 0123456789 | head -c 50000000", cwd=tmp_path)
    peak_after_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert result.exit_status == ExitStatus(exit_code=0, signal=None)
    assert result.truncated
    assert result.output.startswith("0123456789\n0123456789\n")
    assert result.output.endswith("\n")
    assert len(result.output.encode()) <= DEFAULT_OUTPUT_LIMIT
    assert peak_after_kib - peak_before_kib < 40 * 1024  # 50 MB went by; we kept ~1 MiB


async def test_many_lines_with_default_limit(manager: TerminalManager, tmp_path: Path) -> None:
    result = await run(manager, "seq 1 3000000", cwd=tmp_path)
    assert result.truncated
    assert result.output.startswith("1\n2\n3\n")
    assert len(result.output.encode()) <= DEFAULT_OUTPUT_LIMIT


# -- AC-9: kill and release --------------------------------------------------------


async def test_kill_keeps_the_handle(manager: TerminalManager, tmp_path: Path) -> None:
    terminal_id = await manager.create("echo started; sleep 100", cwd=tmp_path)
    await wait_for_output(manager, terminal_id, 1)
    await asyncio.wait_for(manager.kill(terminal_id), HANG_GUARD)
    status = await asyncio.wait_for(manager.wait_for_exit(terminal_id), HANG_GUARD)
    assert status.exit_code is None
    assert status.signal in ("SIGTERM", "SIGKILL")
    snapshot = manager.output(terminal_id)
    assert snapshot.output == "started\n"
    assert snapshot.exit_status == status
    await asyncio.wait_for(manager.kill(terminal_id), HANG_GUARD)  # again: no-op
    assert manager.live_count() == 1


async def test_kill_escalates_to_sigkill(manager: TerminalManager, tmp_path: Path) -> None:
    command = "trap '' TERM; echo ready; while :; do sleep 0.05; done"
    terminal_id = await manager.create(command, cwd=tmp_path)
    await wait_for_output(manager, terminal_id, 1)
    await asyncio.wait_for(manager.kill(terminal_id), HANG_GUARD)
    assert manager.output(terminal_id).exit_status == ExitStatus(exit_code=None, signal="SIGKILL")


async def test_kill_takes_the_grandchildren(manager: TerminalManager, tmp_path: Path) -> None:
    command = 'sleep 100 & echo "$!"; echo "$$"; sleep 100'
    terminal_id = await manager.create(command, cwd=tmp_path)
    grandchild, shell = (
        int(pid) for pid in (await wait_for_output(manager, terminal_id, 2)).split()
    )
    assert not process_gone(grandchild)
    await asyncio.wait_for(manager.kill(terminal_id), HANG_GUARD)
    assert await wait_gone(shell)
    assert await wait_gone(grandchild)


async def test_release_forgets_the_id(manager: TerminalManager, tmp_path: Path) -> None:
    terminal_id = await manager.create('echo "$$"; sleep 100', cwd=tmp_path)
    shell = int(await wait_for_output(manager, terminal_id, 1))
    final = await asyncio.wait_for(manager.release(terminal_id), HANG_GUARD)
    assert final.output == f"{shell}\n"
    assert final.exit_status is not None
    assert await wait_gone(shell)
    assert manager.live_count() == 0
    await assert_unknown(manager, terminal_id)


async def assert_unknown(terminals: TerminalManager, terminal_id: str) -> None:
    with pytest.raises(RequestError) as caught:
        terminals.output(terminal_id)
    assert caught.value.code == INVALID_PARAMS
    assert "unknown terminal id" in str(caught.value)
    for call in (terminals.wait_for_exit, terminals.kill, terminals.release):
        with pytest.raises(RequestError) as caught:
            await call(terminal_id)
        assert caught.value.code == INVALID_PARAMS


async def test_never_created_id_is_unknown(manager: TerminalManager) -> None:
    await assert_unknown(manager, "no-such-terminal")


async def test_release_after_exit(manager: TerminalManager, tmp_path: Path) -> None:
    terminal_id = await manager.create("echo bye", cwd=tmp_path)
    await asyncio.wait_for(manager.wait_for_exit(terminal_id), HANG_GUARD)
    final = await manager.release(terminal_id)
    assert final == TerminalSnapshot("bye\n", False, ExitStatus(exit_code=0, signal=None))


# -- AC-10: at most 8 live terminals -------------------------------------------------


async def test_live_terminal_limit(manager: TerminalManager, tmp_path: Path) -> None:
    ids = [await manager.create("sleep 100", cwd=tmp_path) for _ in range(MAX_LIVE_TERMINALS)]
    assert len(set(ids)) == MAX_LIVE_TERMINALS
    assert manager.live_count() == MAX_LIVE_TERMINALS
    with pytest.raises(RequestError) as caught:
        await manager.create("echo ninth", cwd=tmp_path)
    assert caught.value.code == INVALID_PARAMS
    assert "at most 8 terminals" in str(caught.value)

    await asyncio.wait_for(manager.kill(ids[0]), HANG_GUARD)  # killed, not released
    with pytest.raises(RequestError):
        await manager.create("echo ninth", cwd=tmp_path)

    await asyncio.wait_for(manager.release(ids[0]), HANG_GUARD)
    ninth = await manager.create("echo ninth", cwd=tmp_path)
    await asyncio.wait_for(manager.wait_for_exit(ninth), HANG_GUARD)
    assert manager.output(ninth).output == "ninth\n"
    assert manager.live_count() == MAX_LIVE_TERMINALS


# -- waiting, notifications, closing -------------------------------------------------


async def test_concurrent_waiters(manager: TerminalManager, tmp_path: Path) -> None:
    terminal_id = await manager.create("sleep 0.3; exit 5", cwd=tmp_path)
    waiters = [manager.wait_for_exit(terminal_id) for _ in range(5)]
    statuses = await asyncio.wait_for(asyncio.gather(*waiters), HANG_GUARD)
    assert statuses == [ExitStatus(exit_code=5, signal=None)] * 5


async def test_on_change_while_output_grows_and_at_exit(tmp_path: Path) -> None:
    seen: list[tuple[str, bool]] = []
    terminals = TerminalManager(on_change=lambda tid: seen.append(record(terminals, tid)))
    try:
        terminal_id = await terminals.create("echo a; sleep 0.4; echo b; sleep 0.4", cwd=tmp_path)
        await asyncio.wait_for(terminals.wait_for_exit(terminal_id), HANG_GUARD)
    finally:
        await terminals.close()
    assert all(tid == terminal_id for tid, _ in seen)
    running = [exited for _, exited in seen if not exited]
    assert len(running) >= 2  # "a" and "b" arrived while the command still ran
    assert seen[-1][1] is True  # the exit itself was announced
    assert sum(exited for _, exited in seen) == 1


def record(terminals: TerminalManager, terminal_id: str) -> tuple[str, bool]:
    return terminal_id, terminals.output(terminal_id).exit_status is not None


async def test_on_change_is_throttled(tmp_path: Path) -> None:
    loop = asyncio.get_running_loop()
    calls: list[tuple[str, float]] = []
    terminals = TerminalManager(on_change=lambda tid: calls.append((tid, loop.time())))
    try:
        started = loop.time()
        command = "i=0; while [ $i -lt 50 ]; do echo $i; i=$((i+1)); sleep 0.02; done"
        steady = await terminals.create(command, cwd=tmp_path)
        await asyncio.wait_for(terminals.wait_for_exit(steady), HANG_GUARD)
        steady_elapsed = loop.time() - started
        started = loop.time()
        flood = await terminals.create("yes | head -c 5000000", cwd=tmp_path)
        await asyncio.wait_for(terminals.wait_for_exit(flood), HANG_GUARD)
        flood_elapsed = loop.time() - started
    finally:
        await terminals.close()
    steady_times = [when for tid, when in calls if tid == steady]
    flood_times = [when for tid, when in calls if tid == flood]
    # At most one call per CHANGE_INTERVAL (0.1 s) while output grows, plus the exit notice.
    assert 2 <= len(steady_times) <= 10 * steady_elapsed + 2
    assert 1 <= len(flood_times) <= 10 * flood_elapsed + 2
    throttled = steady_times[:-1]  # the last one is the prompt exit notice
    gaps = [later - earlier for earlier, later in itertools.pairwise(throttled)]
    assert all(gap >= 0.09 for gap in gaps), " ".join(f"{gap:.3f}" for gap in gaps)


async def test_no_on_change_after_release(tmp_path: Path) -> None:
    calls: list[str] = []
    terminals = TerminalManager(on_change=calls.append)
    try:
        terminal_id = await terminals.create("while :; do echo x; sleep 0.01; done", cwd=tmp_path)
        await wait_for_output(terminals, terminal_id, 1)
        await asyncio.wait_for(terminals.release(terminal_id), HANG_GUARD)
        count = len(calls)
        await asyncio.sleep(0.3)
        assert len(calls) == count
    finally:
        await terminals.close()


async def test_close_kills_everything(tmp_path: Path) -> None:
    calls: list[str] = []
    terminals = TerminalManager(on_change=calls.append)
    ids = [await terminals.create('echo "$$"; sleep 100', cwd=tmp_path) for _ in range(3)]
    pids = [int(await wait_for_output(terminals, tid, 1)) for tid in ids]
    await asyncio.wait_for(terminals.close(), HANG_GUARD)
    count = len(calls)
    for pid in pids:
        assert await wait_gone(pid)
    assert terminals.live_count() == 0
    for terminal_id in ids:
        await assert_unknown(terminals, terminal_id)
    await asyncio.wait_for(terminals.close(), HANG_GUARD)  # idempotent
    with pytest.raises(RequestError):
        await terminals.create("echo late", cwd=tmp_path)
    await asyncio.sleep(0.2)
    assert len(calls) == count
