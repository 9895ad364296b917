"""The host core: the one owner of session truth.

Everything a front end shows — entries, a turn's status, a pending
permission, a running terminal — is owned here. Front ends (the Textual UI,
the headless NDJSON server, tests) submit commands through :class:`Host` and
render the events it publishes; they never keep a second copy of the truth.

This package never imports Textual, Rich, ``acp_tui.ui`` or
``acp_tui.server`` (tests/test_import_hygiene.py proves it at run time).
"""
