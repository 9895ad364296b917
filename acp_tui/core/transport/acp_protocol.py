"""ACP's method names and JSON-RPC error codes, taken from the SDK.

Method names come from the SDK's generated tables (``acp.meta``) and error
codes from ``acp.RequestError``'s factories, never from strings and numbers
of our own. What we answer an agent's request with is a ``RequestError``;
the factories fix its message ("Invalid params"), and an agent (and the
person reading its log) is better served by one that says what was wrong,
so the helpers here keep the SDK's code with our own message.
"""

from __future__ import annotations

from typing import Any

from acp import RequestError
from acp.meta import AGENT_METHODS, CLIENT_METHODS

from acp_tui.core.errors import HostError

# -- methods the agent implements (we call them) ---------------------------------
INITIALIZE = AGENT_METHODS["initialize"]
AUTHENTICATE = AGENT_METHODS["authenticate"]
LOGOUT = AGENT_METHODS["logout"]
SESSION_NEW = AGENT_METHODS["session_new"]
SESSION_LOAD = AGENT_METHODS["session_load"]
SESSION_RESUME = AGENT_METHODS["session_resume"]
SESSION_CLOSE = AGENT_METHODS["session_close"]
SESSION_FORK = AGENT_METHODS["session_fork"]
SESSION_DELETE = AGENT_METHODS["session_delete"]
SESSION_LIST = AGENT_METHODS["session_list"]
SESSION_PROMPT = AGENT_METHODS["session_prompt"]
SESSION_CANCEL = AGENT_METHODS["session_cancel"]
SESSION_SET_MODE = AGENT_METHODS["session_set_mode"]
SESSION_SET_CONFIG_OPTION = AGENT_METHODS["session_set_config_option"]

# -- methods the client implements (the agent calls them) ------------------------
SESSION_UPDATE = CLIENT_METHODS["session_update"]
REQUEST_PERMISSION = CLIENT_METHODS["session_request_permission"]
FS_READ_TEXT_FILE = CLIENT_METHODS["fs_read_text_file"]
FS_WRITE_TEXT_FILE = CLIENT_METHODS["fs_write_text_file"]
TERMINAL_CREATE = CLIENT_METHODS["terminal_create"]
TERMINAL_OUTPUT = CLIENT_METHODS["terminal_output"]
TERMINAL_WAIT_FOR_EXIT = CLIENT_METHODS["terminal_wait_for_exit"]
TERMINAL_KILL = CLIENT_METHODS["terminal_kill"]
TERMINAL_RELEASE = CLIENT_METHODS["terminal_release"]
ELICITATION_CREATE = CLIENT_METHODS["elicitation_create"]
ELICITATION_COMPLETE = CLIENT_METHODS["elicitation_complete"]
#: The agent's requests a session answers; with ``elicitation/create``, all we
#: implement (any other is answered ``method_not_found`` at once).
SESSION_REQUESTS = frozenset(
    {
        REQUEST_PERMISSION,
        FS_READ_TEXT_FILE,
        FS_WRITE_TEXT_FILE,
        TERMINAL_CREATE,
        TERMINAL_OUTPUT,
        TERMINAL_WAIT_FOR_EXIT,
        TERMINAL_KILL,
        TERMINAL_RELEASE,
    }
)

# -- error codes -------------------------------------------------------------------
INVALID_REQUEST = RequestError.invalid_request().code
INVALID_PARAMS = RequestError.invalid_params().code
INTERNAL_ERROR = RequestError.internal_error().code
RESOURCE_NOT_FOUND = RequestError.resource_not_found().code
#: What ACP agents answer with when the user must sign in first.
AUTH_REQUIRED = RequestError.auth_required().code


def invalid_params(message: str, data: Any = None) -> RequestError:
    return RequestError(INVALID_PARAMS, message, data)


def internal_error(message: str, data: Any = None) -> RequestError:
    return RequestError(INTERNAL_ERROR, message, data)


def resource_not_found(message: str, data: Any = None) -> RequestError:
    return RequestError(RESOURCE_NOT_FOUND, message, data)


def method_not_found(method: str) -> RequestError:
    return RequestError.method_not_found(method)


def is_auth_required(error: HostError) -> bool:
    """Whether ``error`` is an agent's "authentication required" answer."""
    data = error.data
    return (
        error.code == "agent_error" and isinstance(data, dict) and data.get("code") == AUTH_REQUIRED
    )
