"""Issue 15, "needs you, and notifications", in one window: the real
``acp-tui`` on a real pty, the terminal reporting its focus as a real one
does (``CSI O`` lost, ``CSI I`` back); what it wrote is read back.

And :class:`~acp_tui.ui.attention.Attention` on its own, for the rules
(once a second, no "done" before a queued prompt, the config's switches)."""

from __future__ import annotations

import re
from typing import Any

from acp_tui.agents.config_notifications import NotificationSettings
from acp_tui.core import Event
from acp_tui.ui.attention import Attention, safe
from tests import waiting
from tests.fake_agents import SCRIPTED_AGENT
from tests.ui.helpers import PtyApp

NOTIFY = re.compile(rb"\x1b\]9;([^\x07]*)\x07\x1b\]777;notify;acp-tui;([^\x07]*)\x07")


def test_a_permission_and_a_finished_turn_while_the_terminal_lacks_focus(tmp_path: Any) -> None:
    term = PtyApp(SCRIPTED_AGENT, tmp_path, rows=24, columns=80)
    try:
        term.wait_for(b"is ready")
        # With focus (a terminal that reports nothing counts as focused): nothing.
        term.type(b"echo zebra-quartz\r")
        term.wait_for(b"zebra-quartz ")
        term.read(0.5)
        assert not NOTIFY.search(term.output)
        term.type(b"\x1b[O")  # the terminal lost focus
        term.read(0.3)
        start = len(term.output)
        term.type(b"permission\r")
        term.wait_for(b"Always allow")
        term.wait_for(b"\x1b]0;(1) acp-tui\x07")
        written = bytes(term.output[start:])
        found = NOTIFY.search(written)
        assert found and found.group(1) == found.group(2)
        assert b"wants your permission" in found.group(1)
        assert b"\x07" in written.replace(found.group(0), b"")  # the bell
        term.type(b"\x1b[I")  # focus back: the title says nothing waits
        term.wait_for(b"\x1b]0;acp-tui\x07")
        term.read(1.2)  # a dialog ignores keys right after focus comes back; once a second
        term.type(b"\x1b[O")
        term.read(0.3)
        start = len(term.output)
        term.type(b"y")
        _wait(term, start, b"is done")
        term.type(b"\x11")
        assert term.wait_gone()
    finally:
        term.kill()


def _wait(term: PtyApp, start: int, needle: bytes) -> None:
    def found() -> bool:
        term.read()
        return any(needle in m.group(1) for m in NOTIFY.finditer(bytes(term.output[start:])))

    waiting.wait_until(found, 30, poll=0, what=f"no notification with {needle!r}")


class Written:
    def __init__(self) -> None:
        self.text = ""
        self.bells = 0

    def write(self, text: str) -> None:
        self.text += text

    def bell(self) -> None:
        self.bells += 1


def event(kind: str, session: str = "s1", **data: Any) -> Event:
    return Event(kind, data, session_id=session)


def test_the_rules_once_a_second_queued_prompts_and_the_switches() -> None:
    out = Written()
    now = [100.0]
    queued = [False]
    attention = Attention(
        out.write, out.bell, queued=lambda _session: queued[0], clock=lambda: now[0]
    )
    attention.on_event(event("permission-requested", requestId="r1", title="Edit x"), "claude")
    assert out.text == "" and out.bells == 0  # focused
    attention.focus_changed(False)
    assert out.text == "\x1b]0;(1) acp-tui\x07"
    out.text = ""
    for status in ("running", "idle"):
        attention.on_event(event("status-changed", status=status), "claude")
    assert out.text == "\x1b]9;claude is done\x07\x1b]777;notify;acp-tui;claude is done\x07"
    assert out.bells == 1
    out.text = ""
    now[0] += 0.5  # within a second of the last one: nothing
    attention.on_event(event("elicitation-requested", requestId="q1", message="Pick"), "claude")
    assert out.text == "\x1b]0;(2) acp-tui\x07" and out.bells == 1
    out.text = ""
    now[0] += 1.0
    queued[0] = True  # a queued prompt starts at once: no "done"
    for status in ("running", "idle"):
        attention.on_event(event("status-changed", status=status), "claude")
    assert out.text == ""
    attention.on_event(event("permission-resolved", requestId="r1"), "claude")
    attention.on_event(event("elicitation-resolved", requestId="q1"), "claude")
    assert out.text == "\x1b]0;(1) acp-tui\x07\x1b]0;acp-tui\x07"
    quiet = Written()
    off = NotificationSettings(bell=False, title=False)
    attention = Attention(quiet.write, quiet.bell, queued=lambda _session: False, settings=off)
    attention.focus_changed(False)
    attention.on_event(event("permission-requested", requestId="r2", title="x"), "codex")
    assert quiet.bells == 0 and quiet.text.startswith("\x1b]9;codex wants your permission: x")


def test_a_background_session_tells_even_with_focus_the_shown_one_does_not() -> None:
    out = Written()
    queued = {"s1": False, "s2": True, "s3": False}
    attention = Attention(out.write, out.bell, queued=lambda session: queued[session])
    attention.on_event(event("permission-requested", "s1", requestId="r1", title="Edit"), "a")
    assert out.text == "" and out.bells == 0  # the session on screen, with focus
    attention.on_event(
        event("permission-requested", "s2", requestId="r2", title="Run"), "b", background=True
    )
    assert out.bells == 1
    said = "b wants your permission: Run"
    assert out.text == f"\x1b]9;{said}\x07\x1b]777;notify;acp-tui;{said}\x07"
    out.text = ""
    for status in ("running", "idle"):  # s2's own queue holds a prompt: no "done"
        attention.on_event(event("status-changed", "s2", status=status), "b", background=True)
    assert out.text == ""
    queued["s2"] = False
    for status in ("running", "idle"):
        attention.on_event(event("status-changed", "s3", status=status), "c", background=True)
    assert "c is done" in out.text and out.bells == 2


def test_agent_text_cannot_break_out_of_the_sequence() -> None:
    assert safe("a\x1b]0;PWNED\x07b;c\nd\x9b") == "ab,c d\ufffd"
