"""Choosing the session's settings and signing in, from the keyboard.

- the agent's config options (claude-agent-acp's model picker is one) and
  session modes, through :class:`ChoiceScreen` — opened from the command
  palette (:class:`SessionCommands`) or a click on the status line;
- the agent's ``authMethods`` when ``session/new`` says the user must sign in.

Everything here reads the current session's view, submits commands through
the host link and lets the committed ``config-updated`` / ``mode-changed``
events update the screen.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from acp_tui.core import AgentSpec, HostError, SessionView, flat_choices, settings_value_name
from acp_tui.ui.conversation import Conversation
from acp_tui.ui.host_link import AgentInfo, HostLink
from acp_tui.ui.screens.choice import Choice, ChoiceScreen
from acp_tui.ui.widgets.status_bar import StatusInfo

if TYPE_CHECKING:
    from acp_tui.ui.surface import Surface

__all__ = [
    "SessionCommands",
    "SettingsPicker",
    "config_choices",
    "flat_options",
    "mode_choices",
    "option_name",
    "selectable_options",
    "session_status",
    "sign_in_choices",
    "value_name",
]


def flat_options(options: list[Any]) -> list[dict[str, Any]]:
    """Select options, flattening ACP's option groups."""
    return flat_choices(options)


def selectable_options(session: SessionView) -> list[dict[str, Any]]:
    """The session's select-type config options (a model, a reasoning level…)."""
    return [
        option
        for option in session.config_options
        if isinstance(option, dict)
        and option.get("type", "select") == "select"
        and isinstance(option.get("id"), str)
    ]


def option_name(option: dict[str, Any]) -> str:
    return str(option.get("name") or option.get("id"))


def config_choices(option: dict[str, Any]) -> list[Choice]:
    return [
        Choice(str(o["value"]), str(o.get("name") or o["value"]), str(o.get("description") or ""))
        for o in flat_options(option.get("options", []))
        if isinstance(o.get("value"), str)
    ]


def mode_choices(modes: dict[str, Any] | None) -> list[Choice]:
    available = (modes or {}).get("availableModes") or []
    return [
        Choice(str(m["id"]), str(m.get("name") or m["id"]), str(m.get("description") or ""))
        for m in available
        if isinstance(m, dict) and isinstance(m.get("id"), str)
    ]


def sign_in_choices(connection: AgentInfo) -> list[Choice]:
    choices = []
    for method in connection.auth_methods:
        kind = method.get("type", "agent")
        description = str(method.get("description") or "")
        if kind == "env_var":
            description = env_hint(method)
        elif kind == "terminal":
            description = description or "runs the agent's sign-in in this terminal"
        choices.append(
            Choice(str(method["id"]), str(method.get("name") or method["id"]), description)
        )
    return choices


@dataclass
class SettingsPicker:
    """Opens the pickers and applies what the user chose."""

    surface: Surface
    link: HostLink
    conversation: Conversation

    def choose_config(self, config_id: str) -> None:
        session = self.conversation.current
        if session is None:
            return
        for option in selectable_options(session):
            if option["id"] == config_id:
                choices = config_choices(option)
                if not choices:
                    return
                screen = ChoiceScreen(
                    f"Choose {option_name(option)}", choices, option.get("currentValue")
                )
                self.surface.open_dialog(screen, partial(self.set_config, session, config_id))
                return
        self.surface.toast(f"This agent has no setting {config_id!r}", severity="warning")

    def choose_mode(self) -> None:
        session = self.conversation.current
        choices = mode_choices(session.modes if session else None)
        if session is None or not choices:
            self.surface.toast("This agent has no modes", severity="warning", timeout=3)
            return
        current = (session.modes or {}).get("currentModeId")
        screen = ChoiceScreen("Choose the session mode", choices, current)
        self.surface.open_dialog(screen, partial(self._set_mode, session))

    def set_config(self, session: SessionView, config_id: str, value: str | None) -> None:
        if value is not None:
            self.surface.in_background(
                self.apply_config(session, config_id, value), group="settings"
            )

    def _set_mode(self, session: SessionView, value: str | None) -> None:
        if value is not None:
            self.surface.in_background(self.apply_mode(session, value), group="settings")

    async def apply_config(self, session: SessionView, config_id: str, value: str) -> None:
        try:
            await self.link.set_config_option(session.session_id, config_id, value)
        except HostError as exc:
            self.surface.toast(exc.message, severity="error")
        self.surface.refresh_status()

    async def apply_mode(self, session: SessionView, mode_id: str) -> None:
        try:
            await self.link.set_mode(session.session_id, mode_id)
        except HostError as exc:
            self.surface.toast(exc.message, severity="error")
        self.surface.refresh_status()

    async def cycle_mode(self) -> None:
        """The next of the session's modes (Shift+Tab)."""
        session = self.conversation.current
        if session is None or not session.modes:
            self.surface.toast("This agent has no modes", severity="warning", timeout=3)
            return
        modes = [m.get("id") for m in session.modes.get("availableModes", [])]
        if not modes:
            return
        current = session.modes.get("currentModeId")
        following = modes[(modes.index(current) + 1) % len(modes)] if current in modes else modes[0]
        await self.apply_mode(session, str(following))

    async def sign_in(self, agent: AgentInfo, title: str, spec: AgentSpec | None = None) -> bool:
        """Ask the user for a sign-in method and authenticate; True once signed in.

        A ``terminal`` method runs the agent's own program (``spec``) with the
        method's ``args`` and ``env`` in the real terminal, the app suspended,
        then ``authenticate``; the caller retries what needed the sign-in."""
        choices = sign_in_choices(agent)
        while choices:
            method_id = await self.surface.ask(ChoiceScreen(title, choices))
            if method_id is None:
                return False
            method = next(m for m in agent.auth_methods if m["id"] == method_id)
            if method.get("type") == "terminal" and spec is not None:
                # The agent's sign-in in the terminal first, then authenticate.
                if not self._terminal_sign_in(spec, method):
                    continue
            elif method.get("type") == "env_var":
                self.surface.toast(
                    f"{method.get('name', method_id)}: {env_hint(method)}",
                    severity="warning",
                    timeout=10,
                )
                return False
            try:
                await self.link.authenticate(agent.connection_id, method_id)
            except HostError as exc:
                self.surface.toast(f"Sign-in failed: {exc.message}", severity="error", timeout=8)
                continue
            return True
        return False

    def _terminal_sign_in(self, spec: AgentSpec, method: dict[str, Any]) -> bool:
        args = [str(a) for a in method.get("args") or [] if isinstance(a, str)]
        given = method.get("env")
        extra: dict[str, Any] = given if isinstance(given, dict) else {}
        env = {**os.environ, **dict(spec.env), **{str(k): str(v) for k, v in extra.items()}}
        code = self.surface.run_outside([spec.command, *spec.args, *args], env)
        if code is None:
            self.surface.toast("This terminal cannot be handed to the sign-in", severity="error")
            return False
        if code != 0:
            self.surface.toast(f"The sign-in ended with status {code}", severity="warning")
            return False
        return True


def env_hint(method: dict[str, Any]) -> str:
    names = [str(v.get("name")) for v in method.get("vars", []) if isinstance(v, dict)]
    link = f" (see {method['link']})" if method.get("link") else ""
    return f"set {', '.join(names) or 'the variables'} in your environment and restart{link}"


class SettingsOwner(Protocol):
    """What the command palette's entries need of the app."""

    conversation: Conversation
    settings: SettingsPicker

    def action_export(self, argument: str = "") -> None: ...


class SessionCommands(Provider):
    """Command palette entries: each setting and mode of the session."""

    def _entries(self) -> list[tuple[str, str, Any]]:
        app = cast(SettingsOwner, self.app)
        session = app.conversation.current
        if session is None:
            return []
        entries: list[tuple[str, str, Any]] = []
        for option in selectable_options(session):
            name = option_name(option)
            entries.append(
                (
                    f"Choose {name}…",
                    f"currently {value_name(option)}",
                    partial(app.settings.choose_config, option["id"]),
                )
            )
            for choice in config_choices(option):
                entries.append(
                    (
                        f"{name}: {choice.label}",
                        choice.description,
                        partial(app.settings.set_config, session, option["id"], choice.value),
                    )
                )
        if mode_choices(session.modes):
            entries.append(("Choose mode…", "Shift+Tab cycles", app.settings.choose_mode))
        entries.append(
            ("Export the conversation…", "as Markdown, like /export [path]", app.action_export)
        )
        return entries

    async def discover(self) -> Hits:
        for title, help_text, callback in self._entries():
            if title.endswith("…"):
                yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> AsyncIterator[Hit]:
        matcher = self.matcher(query)
        for title, help_text, callback in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text or None)


def value_name(option: dict[str, Any]) -> str:
    return settings_value_name(option)


def session_status(
    session: SessionView, *, agent: str, version: str, running_since: float | None, queued: int
) -> StatusInfo:
    """The status line's facts about ``session``: its mode and config values
    by name (a click on one opens its picker), its state and usage."""
    mode = ""
    if session.modes:
        current = session.modes.get("currentModeId")
        for available in session.modes.get("availableModes", []):
            if available.get("id") == current:
                mode = str(available.get("name") or current)
    config = []
    for option in selectable_options(session):
        if option.get("category") == "mode":
            continue  # shown as the mode
        config.append((option["id"], option_name(option), value_name(option)))
    usage = session.usage or {}
    cost = usage.get("cost") or {}
    return StatusInfo(
        agent=agent,
        agent_version=version,
        title=session.title or "",
        mode=mode,
        config=tuple(config),
        status=session.status,
        running_since=running_since if session.status == "running" else None,
        stop_reason=session.last_stop_reason,
        used_tokens=usage.get("used"),
        context_size=usage.get("size"),
        cost=f"{cost['amount']:.2f} {cost.get('currency', '')}" if cost.get("amount") else "",
        queued=queued,
    )
