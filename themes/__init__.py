"""Shipped themes (TOML), installed as the package ``acp_tui.themes``."""
