"""The methods of acp-host-jsonl-v1: parameter checks and calls into the host.

Each method takes the request's ``params`` object and returns the result
object, or raises :class:`~acp_tui.core.errors.HostError` (``invalid_params``
for anything malformed). The host does the work; nothing here keeps state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp import PROTOCOL_VERSION

from acp_tui import ACP_HOST_VERSION
from acp_tui.core import AgentConnection, AgentSpec, Host, HostError, Session

Method = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def _str(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise HostError("invalid_params", f"{key} must be a non-empty string")
    return value


def _opt_str(params: dict[str, Any], key: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise HostError("invalid_params", f"{key} must be a string")
    return value


def _str_list(value: Any, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HostError("invalid_params", f"{key} must be a list of strings")
    return value


def _opt_bool(params: dict[str, Any], key: str) -> bool:
    value = params.get(key, False)
    if value is not True and value is not False:
        raise HostError("invalid_params", f"{key} must be a boolean")
    return value


def _opt_paths(params: dict[str, Any], key: str) -> list[str] | None:
    """``None`` when absent (every file); else a non-empty list of non-empty strings."""
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise HostError("invalid_params", f"{key} must be a non-empty list of non-empty strings")
    return value


def _agent_spec(value: Any) -> AgentSpec:
    if not isinstance(value, dict):
        raise HostError("invalid_params", "agent must be an object {command, args?, env?}")
    command = _str(value, "command")
    args = _str_list(value.get("args"), "agent.args")
    env = value.get("env") or {}
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise HostError("invalid_params", "agent.env must be an object of strings")
    name = value.get("name") or ""
    if not isinstance(name, str):
        raise HostError("invalid_params", "agent.name must be a string")
    return AgentSpec.of(command, args, env, name=name)


def _mcp_servers(params: dict[str, Any]) -> list[dict[str, Any]] | None:
    servers = params.get("mcpServers")
    if servers is not None and not isinstance(servers, list):
        raise HostError("invalid_params", "mcpServers must be a list")
    return servers


def _connection_info(connection: AgentConnection) -> dict[str, Any]:
    init = connection.init_result
    spec = connection.spec
    result: dict[str, Any] = {
        "connectionId": connection.connection_id,
        "agentName": connection.agent_name,
        # How it was started (a surface that attaches later starts it again so).
        "agent": {
            "command": spec.command,
            "args": list(spec.args),
            "env": dict(spec.env),
            "name": spec.name,
        },
        "hostVersion": ACP_HOST_VERSION,
        "protocolVersion": init.get("protocolVersion", PROTOCOL_VERSION),
        "agentCapabilities": init.get("agentCapabilities", {}),
        "authMethods": init.get("authMethods", []),
    }
    if init.get("agentInfo") is not None:
        result["agentInfo"] = init["agentInfo"]
    return result


def _session_setup(session: Session) -> dict[str, Any]:
    result: dict[str, Any] = {"sessionId": session.session_id}
    if session.modes is not None:
        result["modes"] = session.modes
    if session.config_options:
        result["configOptions"] = session.config_options
    return result


class Methods:
    def __init__(self, host: Host, default_agent: AgentSpec | None = None) -> None:
        self.host = host
        self.default_agent = default_agent
        self.table: dict[str, Method] = {
            "connection.open": self.connection_open,
            "connection.authenticate": self.connection_authenticate,
            "connection.logout": self.connection_logout,
            "connection.close": self.connection_close,
            "connection.info": self.connection_info,
            "session.create": self.session_create,
            "session.load": self.session_load,
            "session.list": self.session_list,
            "session.prompt": self.session_prompt,
            "session.cancel": self.session_cancel,
            "session.close": self.session_close,
            "session.fork": self.session_fork,
            "session.delete": self.session_delete,
            "session.setMode": self.session_set_mode,
            "session.setConfigOption": self.session_set_config_option,
            "session.snapshot": self.session_snapshot,
            "session.revive": self.session_revive,
            "session.restoreSettings": self.session_restore_settings,
            "session.notice": self.session_notice,
            "shell.run": self.shell_run,
            "shell.stop": self.shell_stop,
            "shell.dropContext": self.shell_drop_context,
            "checkpoint.files": self.checkpoint_files,
            "permission.decide": self.permission_decide,
            "elicitation.respond": self.elicitation_respond,
            "checkpoint.list": self.checkpoint_list,
            "checkpoint.diff": self.checkpoint_diff,
            "checkpoint.restore": self.checkpoint_restore,
        }

    async def connection_open(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("agent") is None:
            if self.default_agent is None:
                raise HostError("invalid_params", "agent is required (no default agent was given)")
            spec = self.default_agent
        else:
            spec = _agent_spec(params["agent"])
        trace = params.get("traceFrames", False)
        if not isinstance(trace, bool):
            raise HostError("invalid_params", "traceFrames must be a boolean")
        connection, reused = await self.host.open_connection(
            spec, _opt_str(params, "cwd"), trace_frames=trace
        )
        return {**_connection_info(connection), "reused": reused}

    async def connection_info(self, params: dict[str, Any]) -> dict[str, Any]:
        return _connection_info(self.host.connection(_str(params, "connectionId")))

    async def connection_authenticate(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.host.authenticate(_str(params, "connectionId"), _str(params, "methodId"))
        return {}

    async def connection_logout(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.host.logout(_str(params, "connectionId"))
        return {}

    async def connection_close(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.host.close_connection(_str(params, "connectionId"))
        return {}

    async def session_create(self, params: dict[str, Any]) -> dict[str, Any]:
        session = await self.host.create_session(
            _str(params, "connectionId"),
            _opt_str(params, "cwd"),
            allow_roots=_str_list(params.get("allowRoots"), "allowRoots"),
            mcp_servers=_mcp_servers(params),
            additional_directories=_str_list(
                params.get("additionalDirectories"), "additionalDirectories"
            ),
        )
        return _session_setup(session)

    async def session_load(self, params: dict[str, Any]) -> dict[str, Any]:
        session = await self.host.load_session(
            _str(params, "connectionId"),
            _str(params, "sessionId"),
            _opt_str(params, "cwd"),
            allow_roots=_str_list(params.get("allowRoots"), "allowRoots"),
            mcp_servers=_mcp_servers(params),
            additional_directories=_str_list(
                params.get("additionalDirectories"), "additionalDirectories"
            ),
        )
        return _session_setup(session)

    async def session_list(self, params: dict[str, Any]) -> dict[str, Any]:
        sessions = await self.host.list_sessions(
            _str(params, "connectionId"), _opt_str(params, "cwd")
        )
        return {"sessions": sessions}

    async def session_prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = _str(params, "sessionId")
        blocks = params.get("prompt")
        notes: list[str] = []
        if blocks is None:
            text = params.get("text")
            if not isinstance(text, str):
                raise HostError("invalid_params", "give prompt: [ContentBlock] or text: string")
            # Read as the TUI reads what is typed: @mentions attach files.
            built = self.host.build_prompt(session_id, text)
            blocks, notes = built.blocks, built.notes
        if not isinstance(blocks, list):
            raise HostError("invalid_params", "prompt must be a list of content blocks")
        result: dict[str, Any] = {"stopReason": await self.host.prompt(session_id, blocks)}
        if notes:
            result["notes"] = notes
        return result

    async def session_cancel(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.host.cancel(_str(params, "sessionId"))
        return {}

    async def session_close(self, params: dict[str, Any]) -> dict[str, Any]:
        reap = _opt_bool(params, "reapAgent")
        await self.host.close_session(_str(params, "sessionId"), reap=reap)
        return {}

    async def session_fork(self, params: dict[str, Any]) -> dict[str, Any]:
        return _session_setup(await self.host.fork_session(_str(params, "sessionId")))

    async def session_delete(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.host.delete_session(_str(params, "connectionId"), _str(params, "sessionId"))
        return {}

    async def session_set_mode(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.host.set_mode(_str(params, "sessionId"), _str(params, "modeId"))
        return {}

    async def session_set_config_option(self, params: dict[str, Any]) -> dict[str, Any]:
        value = params.get("value")
        if not isinstance(value, str | bool):
            raise HostError("invalid_params", "value must be a string or a boolean")
        options = await self.host.set_config_option(
            _str(params, "sessionId"), _str(params, "configId"), value
        )
        return {"configOptions": options}

    async def session_snapshot(self, params: dict[str, Any]) -> dict[str, Any]:
        return self.host.snapshot(_str(params, "sessionId"))

    async def session_revive(self, params: dict[str, Any]) -> dict[str, Any]:
        dead = self.host.session(_str(params, "sessionId"))
        revived = await self.host.revive_session(_str(params, "connectionId"), dead)
        if revived is None:
            return {"revived": None}
        session, how = revived
        return {"revived": {**_session_setup(session), "how": how}}

    async def session_restore_settings(self, params: dict[str, Any]) -> dict[str, Any]:
        settings = params.get("settings")
        if not isinstance(settings, dict):
            raise HostError("invalid_params", "settings must be an object")
        await self.host.restore_settings(self.host.session(_str(params, "sessionId")), settings)
        return {}

    async def session_notice(self, params: dict[str, Any]) -> dict[str, Any]:
        level = params.get("level", "info")
        if level not in ("info", "warning", "error"):
            raise HostError("invalid_params", "level must be info, warning or error")
        self.host.add_notice(_str(params, "sessionId"), level, _str(params, "text"))
        return {}

    async def shell_run(self, params: dict[str, Any]) -> dict[str, Any]:
        return await self.host.run_shell(_str(params, "sessionId"), _str(params, "command"))

    async def shell_stop(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"stopped": await self.host.stop_shell(_str(params, "sessionId"))}

    async def shell_drop_context(self, params: dict[str, Any]) -> dict[str, Any]:
        dropped = self.host.drop_shell_context(
            _str(params, "sessionId"), _str(params, "toolCallId")
        )
        return {"dropped": dropped}

    async def permission_decide(self, params: dict[str, Any]) -> dict[str, Any]:
        request_id = _str(params, "requestId")
        cancelled = params.get("cancelled", False)
        if cancelled is not True and cancelled is not False:
            raise HostError("invalid_params", "cancelled must be a boolean")
        self.host.decide(request_id, _opt_str(params, "optionId"), cancelled=cancelled)
        return {}

    async def elicitation_respond(self, params: dict[str, Any]) -> dict[str, Any]:
        content = params.get("content")
        if content is not None and not isinstance(content, dict):
            raise HostError("invalid_params", "content must be an object")
        self.host.respond_elicitation(
            _str(params, "requestId"),
            _str(params, "action"),
            content,
            session_id=_opt_str(params, "sessionId"),
        )
        return {}

    async def checkpoint_list(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"checkpoints": await self.host.list_checkpoints(_str(params, "sessionId"))}

    async def checkpoint_diff(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = _str(params, "sessionId")
        checkpoint_id = _str(params, "checkpointId")
        path = params.get("path")
        if path is not None and (not isinstance(path, str) or not path):
            raise HostError("invalid_params", "path must be a non-empty string")
        return {"diff": await self.host.checkpoint_diff(session_id, checkpoint_id, path)}

    async def checkpoint_files(self, params: dict[str, Any]) -> dict[str, Any]:
        files = await self.host.checkpoint_files(
            _str(params, "sessionId"),
            _str(params, "checkpointId"),
            _opt_str(params, "toCheckpointId"),
            _opt_paths(params, "paths"),
        )
        return {"files": files}

    async def checkpoint_restore(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = _str(params, "sessionId")
        checkpoint_id = _str(params, "checkpointId")
        paths = _opt_paths(params, "paths")
        tell_agent = _opt_bool(params, "tellAgent")
        if _opt_bool(params, "dryRun"):
            return {"files": await self.host.plan_restore(session_id, checkpoint_id, paths)}
        return await self.host.restore_checkpoint(
            session_id, checkpoint_id, paths, tell_agent=tell_agent
        )
