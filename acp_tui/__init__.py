"""acp-tui: a terminal client and headless host for ACP coding agents.

Importing the package imports nothing else: the host core (``acp_tui.core``)
and the headless server never pull in Textual or Rich.
"""

__version__ = "0.1.0"

#: The headless protocol stamp (protocol/acp-host-jsonl-v1.md).
ACP_HOST_VERSION = f"acp-tui-{__version__}+jsonl-v1"
