"""The completion half of the prompt input: the slash-command and ``@`` menus.

``/`` at the start opens the command menu (when commands are set); ``@``
after a space or at the start of a line opens the file menu: paths under
the root of :meth:`PromptCompletion.set_file_root` (the session's cwd)
matching what follows the ``@`` (fuzzy), through a
:class:`~acp_tui.ui.widgets.command_menu.PathSource`. The menu is an overlay
mounted on the screen and placed above the input; it never takes focus.

Accepting a command replaces the first word with ``/name``; a command that
takes input gets a trailing space and waits for its argument (Enter on one
without input sends it at once: :meth:`PromptCompletion._accept` says so).
Accepting a path replaces the ``@word`` with ``@path `` (``@"my file.txt" ``
when it has spaces); a directory is inserted as ``@dir/`` and the menu goes
on listing what is in it. After an accept or an Esc the menu stays closed
until the text changes again.

The keys are the editing half's (prompt_input.py): it hands a key to
:meth:`PromptCompletion._menu_key` while the menu is open.
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.screen import Screen
from textual.widgets import TextArea

from acp_tui.core import MentionToken, format_mention, mention_at
from acp_tui.ui.widgets.command_menu import (
    CommandMenu,
    PathSource,
    SlashCommand,
    parse_commands,
    rank_commands,
)
from acp_tui.ui.widgets.prompt_extras import PromptExtras

if TYPE_CHECKING:
    # Loaded at the first ``@`` (command_menu.PathSource): the first frame
    # needs no file index.
    from acp_tui.core import FileIndex, PathMatch


class PromptCompletion(PromptExtras):
    """The menus of the prompt input (see the module doc)."""

    def _init_completion(self) -> None:
        self._commands: list[SlashCommand] = []
        self._menu: CommandMenu | None = None
        self._completion_open = False
        # After Esc or an accept, the menu stays shut until the text differs from this.
        self._menu_dismissed_for: str | None = None
        self._layout_screen: Screen[Any] | None = None
        self._file_root: Path | None = None
        self._paths = PathSource(self._spawn_index_build, self._index_built)

    def action_submit(self) -> None:
        """Send the draft (the editing half's)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ API

    def set_commands(self, commands: list[dict[str, Any]]) -> None:
        """Set the slash commands (ACP ``availableCommands``); never touches the text."""
        self._commands = parse_commands(commands)
        self._refresh_completion()

    @property
    def commands(self) -> list[SlashCommand]:
        """The slash commands currently offered (parsed)."""
        return list(self._commands)

    def set_file_root(self, root: Path | None) -> None:
        """The folder ``@`` completes paths in (the app sets the session's cwd)."""
        self._file_root = root

    @property
    def file_index(self) -> FileIndex | None:
        """The index ``@`` searches, once the first ``@`` has been typed."""
        return self._paths.index

    @property
    def completion_open(self) -> bool:
        """True while the completion menu is shown (Esc then belongs to the input)."""
        return self._completion_open

    def close_completion(self) -> bool:
        """Close the menu as Esc would; return whether it was open.

        For an app that binds Esc with ``priority=True``: call this first and
        only cancel the turn when it returns False.
        """
        was_open = self._completion_open
        if was_open:
            self._dismiss_menu()
        return was_open

    @property
    def menu(self) -> CommandMenu | None:
        """The completion menu widget once created (for tests and styling)."""
        return self._menu

    # ------------------------------------------------------------- keys

    def _menu_key(self, key: str) -> bool:
        """A key while the menu is open; whether the menu took it."""
        menu = self._menu
        assert menu is not None
        if key == "up":
            menu.action_cursor_up()
        elif key == "down":
            menu.action_cursor_down()
        elif key == "pageup":
            menu.page_up()
        elif key == "pagedown":
            menu.page_down()
        elif key in ("tab", "enter"):
            if self._accept() and key == "enter":
                self.action_submit()
        elif key == "escape":
            self._dismiss_menu()
        else:
            return False
        return True

    def _reopen_menu(self) -> bool:
        """Tab after an Esc: the menu again, if there is anything to offer."""
        if self._menu_dismissed_for is None:
            return False
        self._menu_dismissed_for = None
        self._refresh_completion()
        return self._completion_open

    def _keep_menu_shut(self, text: str | None) -> None:
        """No menu for ``text`` (a recalled "/cmd"); None: a fresh start."""
        self._menu_dismissed_for = text
        if text is None:
            self._close_menu()

    # ------------------------------------------------------- completion

    def _completion_query(self) -> str | None:
        """The word after ``/`` when the cursor is in the first word, else None."""
        if not self._commands:
            return None
        line = self.document.get_line(0)
        if not line.startswith("/"):
            return None
        start, end = self.selection
        if start != end:
            return None
        row, column = end
        word_end = next((i for i, ch in enumerate(line) if ch.isspace()), len(line))
        if row != 0 or not 1 <= column <= word_end:
            return None
        return line[1:word_end]

    def _refresh_completion(self, *, focused: bool | None = None) -> None:
        """Open, update or close the menu to match the text, cursor and focus."""
        if focused is None:
            focused = self.has_focus
        if self._menu_dismissed_for is not None and self._menu_dismissed_for != self.text:
            self._menu_dismissed_for = None
        if self._menu_dismissed_for is not None or not focused:
            self._close_menu()
            return
        query = self._completion_query()
        if query is not None:
            matches = rank_commands(self._commands, query)
            if matches:
                self._open_menu().show_commands(matches)
                self._place_menu()
                return
        else:
            paths = self._path_matches()
            if paths:
                self._open_menu().show_paths(paths, max(0, self.region.width - 4))
                self._place_menu()
                return
        self._close_menu()

    def _open_menu(self) -> CommandMenu:
        menu = self._ensure_menu()
        if not self._completion_open:
            menu.highlighted = 0  # a freshly opened menu starts at the best match
        self._completion_open = True
        menu.display = True
        return menu

    # ------------------------------------------------------- @ paths

    def _mention_token(self) -> tuple[int, MentionToken] | None:
        """The ``@`` word the cursor is in (row, token), or None."""
        start, end = self.selection
        if start != end:
            return None
        row, column = end
        token = mention_at(self.document.get_line(row), column)
        return None if token is None else (row, token)

    def _path_matches(self) -> list[PathMatch]:
        found = self._mention_token()
        root = self._root() if found is not None else None
        if found is None or root is None:
            return []
        menu = self._menu
        opening = not self._completion_open or menu is None or menu.kind != "path"
        return self._paths.matches(root, found[1].query, opening=opening)

    def _root(self) -> Path | None:
        return self._file_root

    def _accept_path(self, menu: CommandMenu) -> None:
        match = menu.highlighted_path
        found = self._mention_token()
        if match is None or found is None:
            self._dismiss_menu()
            return
        row, token = found
        line = self.document.get_line(row)
        replacement = format_mention(match.path)
        cursor = len(replacement)
        if match.is_dir and replacement.endswith('"'):
            cursor -= 1  # inside the quotes, to go on typing the path
        elif not match.is_dir:
            if line[token.end : token.end + 1].isspace():
                cursor += 1  # reuse the existing space
            else:
                replacement += " "
                cursor += 1
        self.history.checkpoint()
        self.replace(
            replacement, (row, token.start), (row, token.end), maintain_selection_offset=False
        )
        self.move_cursor((row, token.start + cursor))
        self.history.checkpoint()
        if match.is_dir:
            self._refresh_completion()  # list what is inside
        else:
            self._dismiss_menu()

    def _spawn_index_build(self, build: Coroutine[Any, Any, None]) -> None:
        self.run_worker(build, group="file-index", exit_on_error=False)

    def _index_built(self) -> None:
        if self.is_attached:
            self._refresh_completion()

    # ------------------------------------------------------- accepting

    def _accept(self, index: int | None = None) -> bool:
        """Accept the highlighted entry (or row ``index``); whether it is a
        command without input (Enter then sends it at once)."""
        menu = self._menu
        if menu is None:
            return False
        if index is not None:
            menu.highlighted = index
        if menu.kind == "path":
            self._accept_path(menu)
            return False
        command = menu.highlighted_command
        if command is None:
            self._dismiss_menu()
            return False
        line = self.document.get_line(0)
        word_end = next((i for i, ch in enumerate(line) if ch.isspace()), len(line))
        replacement = f"/{command.name}"
        if command.takes_input:
            if line[word_end : word_end + 1] == " ":
                word_end += 1  # reuse the existing space
            replacement += " "
        self.history.checkpoint()
        self.replace(replacement, (0, 0), (0, word_end), maintain_selection_offset=False)
        self.move_cursor((0, len(replacement)))
        self.history.checkpoint()
        self._dismiss_menu()
        return not command.takes_input

    def _pick_from_menu(self, index: int) -> None:
        """A click on a menu row: accept it (Tab semantics) and keep focus here."""
        self._accept(index)
        self.focus()

    def _dismiss_menu(self) -> None:
        self._menu_dismissed_for = self.text
        self._close_menu()

    def _close_menu(self) -> None:
        self._completion_open = False
        if self._menu is not None:
            self._menu.display = False

    def _ensure_menu(self) -> CommandMenu:
        if self._menu is None:
            self._menu = CommandMenu(self._pick_from_menu)
            self.screen.mount(self._menu)
        return self._menu

    def _place_menu(self) -> None:
        """Float the menu just above the input (below it if there is no room)."""
        menu = self._menu
        if menu is None or not self._completion_open:
            return
        region = self.region
        origin = self.screen.region.offset
        rows = menu.rows
        x = region.x - origin.x
        y = region.y - origin.y - rows
        if y < 0:
            y = region.bottom - origin.y
        styles = menu.styles
        if styles.offset.x.value != x or styles.offset.y.value != y:
            styles.offset = (x, y)
        if styles.width is None or styles.width.value != region.width:
            styles.width = region.width
        if styles.height is None or styles.height.value != rows:
            styles.height = rows

    # ----------------------------------------------------------- events

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self:
            self._refresh_completion()

    def _on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self:
            self._refresh_completion()

    # Textual calls each class's handler along the MRO: no super() calls here.

    def _on_mount(self, event: events.Mount) -> None:
        self._layout_screen = self.screen
        self.screen.screen_layout_refresh_signal.subscribe(self, self._on_screen_layout)

    def _on_screen_layout(self, _screen: Screen[Any]) -> None:
        self._place_menu()

    def _on_resize(self) -> None:
        self._place_menu()

    def _on_focus(self, event: events.Focus) -> None:
        # The menu only shows while the input has focus; coming back to
        # "/re…" shows it again (unless it was dismissed for this text).
        # Widget._on_focus, which sets has_focus, runs after this handler.
        self._refresh_completion(focused=True)

    def _on_blur(self, event: events.Blur) -> None:
        self._close_menu()

    def _on_unmount(self) -> None:
        self._paths.close()
        if self._layout_screen is not None:
            self._layout_screen.screen_layout_refresh_signal.unsubscribe(self)
            self._layout_screen = None
        if self._menu is not None:
            menu, self._menu = self._menu, None
            self._completion_open = False
            if menu.is_attached:
                menu.remove()
