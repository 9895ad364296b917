"""The prompt input: a multi-line, history-aware text area with slash and ``@`` completion.

Key map (while the input has focus):

==========================  ===============================================
Enter                       send (``Submitted``), or accept the highlighted
                            entry while the menu is open (see below)
Shift+Enter, Ctrl+J,        insert a newline (most terminals send plain
Alt+Enter                   Enter for Shift+Enter; Ctrl+J always works)
Up (first visual row)       previous history entry; the draft is kept
Down (last visual row)      next history entry; past the newest, the draft
Up/Down elsewhere           move the cursor (soft-wrapped rows included)
/ at the start              open the command menu (when commands are set)
@ after a space or at the   open the file menu: paths under the session cwd
start of a line             matching what follows the ``@`` (fuzzy)
Up/Down, PageUp/PageDown    move in the menu while it is open
Tab                         accept the highlighted entry; with the menu
                            closed after Esc, reopen it
Esc                         close the menu (consumed only while it is open)
Ctrl+R · Ctrl+G · Ctrl+O    search earlier prompts · edit in $EDITOR ·
                            expand paste chips (prompt_extras.py)
? · End (empty prompt)      ``HelpRequested`` · ``FollowRequested``
==========================  ===============================================

Accepting a command replaces the first word with ``/name``; a command that
takes input gets a trailing space and waits for its argument. **Enter on a
command without input sends it at once** (Tab only completes). Accepting a
path (Tab or Enter: Enter never sends then) replaces the ``@word`` with
``@path `` (``@"my file.txt" `` when it has spaces); a directory is inserted
as ``@dir/`` and the menu goes on listing what is in it. A file typed in full
opens no menu, so Enter sends. After an accept or an Esc the menu stays closed
until the text changes again.

``@`` searches the root of :meth:`PromptInput.set_file_root` (the app sets the
session's cwd) through a :class:`~acp_tui.ui.widgets.command_menu.PathSource`.
Pasting inserts the text in one edit (the menu logic runs once, not per
character); a paste of image paths (PNG, JPEG, GIF, WebP, as terminals paste
dropped files) becomes ``[image: name.png]`` labels when the agent accepts
images (:meth:`PromptInput.set_prompt_capabilities`, which the app sets from
its connection); :attr:`PromptInput.image_attachments` maps them
to their files for :func:`acp_tui.core.mentions.build_prompt`.

Keys left to the app: Escape (menu closed), Tab (menu closed and nothing to
complete: focus moves on, via the Screen binding), Shift+Tab, Ctrl+C (unless
text is selected in the input: then TextArea copies it), Ctrl+Q, and any
other key the TextArea does not bind. TextArea's own editing keys stay
(Ctrl+A/E line start/end, Ctrl+W/U/K delete, Ctrl+Z/Y undo/redo, Ctrl+X/V
cut/paste, Ctrl+D delete right, F6/F7 select line/all).

The widget changes its own text only in response to the user's keys (typing,
paste, history, completion) and :meth:`PromptInput.clear_draft`, and adds no
other way to write to it; the writers inherited from TextArea (``text =``,
``load_text``, ``insert``, ``replace``, ``clear``) are not for the app. Typing
is never blocked while a turn runs (neither ``disabled`` nor ``read_only``).

What the app must do (Textual 8.2.8 dispatch: App ``priority=True`` bindings
first, then the focused widget's key handlers, then non-priority bindings
from the focused widget up to the App):

* Shift+Tab: bind it on the App with ``priority=True``; the Screen's own
  ``shift+tab`` (focus previous) binding comes before a plain App binding.
* Escape: a plain App binding works (the input stops Esc only while its menu
  is open). With ``priority=True``, first call :meth:`PromptInput.close_completion`
  and cancel the turn only when it returns False.
* Ctrl+C: a plain App binding fires unless text is selected in the input
  (TextArea's ``copy`` runs then; it raises SkipAction when nothing is
  selected, as does the Screen's ``copy_text``). ``priority=True`` always wins.
  Either way replace App's default ``ctrl+c`` → ``help_quit`` binding.
* Focus: ``prompt.focus()``; the menu never takes focus (it is an overlay
  mounted on the screen and placed above the input), so ``app.focused is
  prompt`` whenever the user is typing.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import TextArea

from acp_tui.core.mentions import (
    MentionToken,
    PromptCapabilities,
    format_mention,
    mention_at,
)
from acp_tui.ui.history import HistoryBrowser, PromptHistory
from acp_tui.ui.widgets.command_menu import (
    CommandMenu,
    PathSource,
    SlashCommand,
    parse_commands,
    rank_commands,
)
from acp_tui.ui.widgets.prompt_extras import PasteChips, PromptExtras

if TYPE_CHECKING:
    from acp_tui.core.file_index import FileIndex, PathMatch

PLACEHOLDER = "Message the agent — Enter to send, Ctrl+J for a newline, / for commands"


class PromptInput(PromptExtras):
    """Where the user types prompts. Posts :class:`PromptInput.Submitted` on Enter."""

    DEFAULT_CSS = """
    PromptInput {
        /* 1 to 8 text rows plus the border, then it scrolls */
        height: auto;
        min-height: 3;
        max-height: 10;
        width: 1fr;
        padding: 0 1;
        background: $surface;
        border: tall $border-blurred;
        scrollbar-size-vertical: 1;
        &:focus {
            border: tall $primary;
        }
        & .text-area--placeholder {
            color: $foreground-muted;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("shift+enter,ctrl+j,alt+enter", "newline", "Newline", show=False),
        Binding("ctrl+r", "search_history", "Search history", show=False),
        Binding("ctrl+g", "edit_in_editor", "Edit in $EDITOR", show=False),
        Binding("ctrl+o", "expand_pastes", "Expand pastes", show=False),
    ]

    class Submitted(Message):
        """Posted when the user sends a non-blank prompt with Enter."""

        def __init__(self, prompt_input: PromptInput, text: str) -> None:
            super().__init__()
            self.input: PromptInput = prompt_input
            """The input that sent the prompt."""
            self.text: str = text
            """The prompt, trailing whitespace stripped; never blank."""

        @property
        def control(self) -> PromptInput:
            return self.input

    class HelpRequested(Message):
        """``?`` on an empty prompt: the app shows its help."""

    class FollowRequested(Message):
        """End on an empty prompt: the log goes back to its tail and follows it."""

    def __init__(
        self,
        *,
        history: PromptHistory | None = None,
        placeholder: str = PLACEHOLDER,
        name: str | None = None,
        id: str | None = None,  # noqa: A002
        classes: str | None = None,
    ) -> None:
        super().__init__(
            "",
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            placeholder=placeholder,
            name=name,
            id=id,
            classes=classes,
        )
        # Note: ``self.history`` is TextArea's undo history; ours is ``prompt_history``.
        self.prompt_history: PromptHistory = history if history is not None else PromptHistory()
        self._browser = HistoryBrowser(self.prompt_history)
        self._commands: list[SlashCommand] = []
        self._menu: CommandMenu | None = None
        self._completion_open = False
        self._mute_until = 0.0
        # After Esc or an accept, the menu stays shut until the text differs from this.
        self._menu_dismissed_for: str | None = None
        self._layout_screen: Screen[Any] | None = None
        self._file_root: Path | None = None
        self._capabilities: PromptCapabilities | None = None
        self._paths = PathSource(self._spawn_index_build, self._index_built)
        self._images: dict[str, Path] = {}
        self._chips = PasteChips()

    # ------------------------------------------------------------------ API

    def set_commands(self, commands: list[dict[str, Any]]) -> None:
        """Set the slash commands (ACP ``availableCommands``); never touches the text."""
        self._commands = parse_commands(commands)
        self._refresh_completion()

    @property
    def commands(self) -> list[SlashCommand]:
        """The slash commands currently offered (parsed)."""
        return list(self._commands)

    def mute_typing(self, seconds: float) -> None:
        """Ignore typed characters for ``seconds`` (after a dialog closes)."""
        self._mute_until = time.monotonic() + seconds

    def clear_draft(self) -> None:
        """Clear the text (undoable with Ctrl+Z), close the menu, end any history walk."""
        self._browser.reset()
        self._menu_dismissed_for = None
        if self.text:
            self.history.checkpoint()
            self.clear()
            self.history.checkpoint()
        self._close_menu()

    def set_file_root(self, root: Path | None) -> None:
        """The folder ``@`` completes paths in (the app sets the session's cwd)."""
        self._file_root = root

    def set_prompt_capabilities(self, capabilities: PromptCapabilities | None) -> None:
        """What the agent accepts in a prompt (the app sets its connection's)."""
        self._capabilities = capabilities

    @property
    def file_index(self) -> FileIndex | None:
        """The index ``@`` searches, once the first ``@`` has been typed."""
        return self._paths.index

    @property
    def image_attachments(self) -> dict[str, Path]:
        """Pasted images: label (``[image: a.png]``) → file. Labels outlive the draft."""
        return dict(self._images)

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

    async def _on_key(self, event: events.Key) -> None:
        # Runs before TextArea._on_key (MRO order); ``prevent_default`` stops
        # TextArea from also handling the key, ``stop`` keeps it from bubbling
        # to the Screen/App bindings.
        key = event.key
        if event.is_printable and time.monotonic() < self._mute_until:
            # A key that answered a dialog and was pressed twice ("yy") must
            # not land in the draft.
            event.stop()
            event.prevent_default()
            return
        if key in ("enter", "tab", "escape", "up", "down", "pageup", "pagedown"):
            # Keys can be queued before the Changed message of the previous
            # keystroke is processed: bring the menu up to date first.
            self._refresh_completion()
        handled = True
        if self._completion_open:
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
                self._accept(submit=key == "enter")
            elif key == "escape":
                self._dismiss_menu()
            else:
                handled = False
        elif key == "enter":
            self.action_submit()
        elif key == "question_mark" and not self.text:
            self.post_message(self.HelpRequested())
        elif key == "end" and not self.text:
            self.post_message(self.FollowRequested())
        elif key == "tab" and self._menu_dismissed_for is not None:
            self._menu_dismissed_for = None
            self._refresh_completion()
            handled = self._completion_open
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            self._restart_blink()

    def action_submit(self) -> None:
        """Send the text (trailing whitespace stripped, paste chips expanded);
        nothing happens if blank."""
        text = self._chips.expand(self.text.rstrip())
        if not text.strip():
            return
        self.prompt_history.add(text)
        self._browser.reset()
        self._menu_dismissed_for = None
        self._close_menu()
        self.load_text("")
        self.post_message(self.Submitted(self, text))

    def action_newline(self) -> None:
        """Insert a newline at the cursor (replacing any selection)."""
        if self.read_only:
            return
        self._replace_via_keyboard("\n", *self.selection)

    def action_cursor_up(self, select: bool = False) -> None:
        if (
            not select
            and self.selection.is_empty
            and self.navigator.is_first_wrapped_line(self.cursor_location)
        ):
            recalled = self._browser.older(self.text)
            if recalled is not None:
                self._show_recalled(recalled)
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if (
            not select
            and self.selection.is_empty
            and self.navigator.is_last_wrapped_line(self.cursor_location)
        ):
            recalled = self._browser.newer(self.text)
            if recalled is not None:
                self._show_recalled(recalled)
                return
        super().action_cursor_down(select)

    def _show_recalled(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)
        self._menu_dismissed_for = text  # a recalled "/cmd" does not pop the menu

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

    @property
    def prompt_capabilities(self) -> PromptCapabilities:
        return self._capabilities or PromptCapabilities.from_init_result(None)

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

    def _accept(self, *, submit: bool, index: int | None = None) -> None:
        menu = self._menu
        if menu is None:
            return
        if index is not None:
            menu.highlighted = index
        if menu.kind == "path":
            self._accept_path(menu)
            return
        command = menu.highlighted_command
        if command is None:
            self._dismiss_menu()
            return
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
        if submit and not command.takes_input:
            self.action_submit()

    def _pick_from_menu(self, index: int) -> None:
        """A click on a menu row: accept it (Tab semantics) and keep focus here."""
        self._accept(submit=False, index=index)
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
