"""Issue 18, terminal auth: an agent whose sign-in runs in the terminal. The
real ``acp-tui`` on a real pty advertises ``auth.terminal``; the agent's
``terminal`` method is chosen, the app hands the terminal to the agent's own
program with the method's args and env (a small login that asks a name and
writes a token file), takes it back, authenticates and opens the session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import waiting
from tests.fake_agents import SCRIPTED_AGENT
from tests.ui.helpers import PtyApp


def test_the_sign_in_runs_in_the_terminal_then_the_session_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = tmp_path / "token"
    monkeypatch.setenv("ACP_FAKE_TERMINAL_LOGIN", str(token))
    term = PtyApp(SCRIPTED_AGENT, tmp_path, rows=24, columns=80)
    try:
        term.wait_for(b"asks you to sign in")
        term.wait_for(b"Log in")
        term.read(0.5)
        term.type(b"1")
        term.wait_for(b"hello! Your name: ")  # the agent's program, with the method's env
        term.type(b"Ada\r")
        waiting.wait_until(token.exists, 20, what="the login never wrote its token")
        assert token.read_text() == "Ada"
        # Back in the app, authenticated: the session opens and takes a prompt.
        term.type(b"echo signed-in-now\r")
        term.wait_for(b"signed-in-now ")
        term.type(b"\x11")
        assert term.wait_gone()
    finally:
        term.kill()
