"""The prompt input: a multi-line, history-aware text area (the editing half;
the slash and ``@`` menus are prompt_completion.py's).

Key map (while the input has focus):

==========================  ===============================================
Enter                       send (``Submitted``), or accept the highlighted
                            entry while the menu is open (see below)
Alt+Enter                   steer: ``Submitted`` with ``steer`` set (the app
                            cancels the turn and sends this one first)
Shift+Enter, Ctrl+J         insert a newline (most terminals send plain
                            Enter for Shift+Enter; Ctrl+J always works)
Up (empty prompt, queued)   the last queued prompt back into the draft
                            (:meth:`PromptInput.set_queue_recall`)
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
Ctrl+R · Ctrl+G · Ctrl+F    search earlier prompts · edit in $EDITOR ·
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
to their files for :func:`acp_tui.core.prompting.mentions.build_prompt`.

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
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from acp_tui.core import PromptCapabilities
from acp_tui.ui.history import HistoryBrowser, PromptHistory
from acp_tui.ui.widgets.prompt_completion import PromptCompletion
from acp_tui.ui.widgets.prompt_extras import PasteChips

PLACEHOLDER = "Message the agent — Enter to send, Ctrl+J for a newline, / for commands"


class PromptInput(PromptCompletion):
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
        Binding("shift+enter,ctrl+j", "newline", "Newline", show=False),
        Binding("alt+enter", "submit(True)", "Steer", show=False),
        Binding("ctrl+r", "search_history", "Search history", show=False),
        Binding("ctrl+g", "edit_in_editor", "Edit in $EDITOR", show=False),
        Binding("ctrl+f", "expand_pastes", "Expand pastes", show=False),
    ]

    class Submitted(Message):
        """Posted when the user sends a non-blank prompt with Enter (or Alt+Enter)."""

        def __init__(self, prompt_input: PromptInput, text: str, *, steer: bool = False) -> None:
            super().__init__()
            self.input: PromptInput = prompt_input
            """The input that sent the prompt."""
            self.text: str = text
            """The prompt, trailing whitespace stripped; never blank."""
            self.steer: bool = steer
            """Alt+Enter: send it now, ahead of the queue (cancelling the turn)."""

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
        self._init_completion()
        self._mute_until = 0.0
        self._capabilities: PromptCapabilities | None = None
        self._images: dict[str, Path] = {}
        self._chips = PasteChips()
        self._queue_recall: Callable[[], str | None] | None = None

    # ------------------------------------------------------------------ API

    def mute_typing(self, seconds: float) -> None:
        """Ignore typed characters for ``seconds`` (after a dialog closes)."""
        self._mute_until = time.monotonic() + seconds

    def clear_draft(self) -> None:
        """Clear the text (undoable with Ctrl+Z), close the menu, end any history walk."""
        self._browser.reset()
        if self.text:
            self.history.checkpoint()
            self.clear()
            self.history.checkpoint()
        self._keep_menu_shut(None)

    def show_draft(self, text: str, cursor: tuple[int, int] = (0, 0)) -> None:
        """Put a draft in (another session's, on a switch): a new text, not an
        edit of this one to undo."""
        self._browser.reset()
        self.load_text(text)
        self.move_cursor(cursor)
        self._keep_menu_shut(None)

    def set_queue_recall(self, take_last: Callable[[], str | None]) -> None:
        """Up on an empty prompt asks ``take_last`` first: the prompt it gives
        (taken out of the queue) becomes the draft; None: history as usual."""
        self._queue_recall = take_last

    def set_prompt_capabilities(self, capabilities: PromptCapabilities | None) -> None:
        """What the agent accepts in a prompt (the app sets its connection's)."""
        self._capabilities = capabilities

    @property
    def image_attachments(self) -> dict[str, Path]:
        """Pasted images: label (``[image: a.png]``) → file. Labels outlive the draft."""
        return dict(self._images)

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
            handled = self._menu_key(key)
        elif key == "enter":
            self.action_submit()
        elif key == "question_mark" and not self.text:
            self.post_message(self.HelpRequested())
        elif key == "end" and not self.text:
            self.post_message(self.FollowRequested())
        elif key == "tab":
            handled = self._reopen_menu()
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            self._restart_blink()

    def action_submit(self, steer: bool = False) -> None:
        """Send the text (trailing whitespace stripped, paste chips expanded);
        nothing happens if blank. ``steer``: Alt+Enter's send."""
        text = self._chips.expand(self.text.rstrip())
        if not text.strip():
            return
        self.prompt_history.add(text)
        self._browser.reset()
        self._keep_menu_shut(None)
        self.load_text("")
        self.post_message(self.Submitted(self, text, steer=steer))

    def action_newline(self) -> None:
        """Insert a newline at the cursor (replacing any selection)."""
        if self.read_only:
            return
        self._replace_via_keyboard("\n", *self.selection)

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and not self.text and self._queue_recall is not None:
            queued = self._queue_recall()
            if queued is not None:
                self._browser.reset()  # the taken prompt is the draft of a new walk
                self._show_recalled(queued)
                return
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
        self._keep_menu_shut(text)  # a recalled "/cmd" does not pop the menu

    @property
    def prompt_capabilities(self) -> PromptCapabilities:
        return self._capabilities or PromptCapabilities.from_init_result(None)
