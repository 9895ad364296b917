"""What the prompt input does beyond typing: paste chips and the $EDITOR.

* A paste of :data:`CHIP_LINES` lines or more (or :data:`CHIP_CHARS`
  characters) goes into the draft as a chip, ``[Pasted text #1 +400 lines]``;
  the prompt sent carries the whole text in its place. Ctrl+F expands the
  chips of the draft back into their text.
* Ctrl+G: the draft in ``$VISUAL`` / ``$EDITOR`` (else ``vi``), the terminal
  handed over until the editor exits; what it saved becomes the draft.
* Ctrl+R: an earlier prompt of this project (screens/history_search.py).

:class:`PromptExtras` holds the actions; :class:`~acp_tui.ui.widgets.
prompt_input.PromptInput` is one and sets up what they use.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual import events
from textual.app import SuspendNotSupported
from textual.widgets import TextArea

from acp_tui.core import PromptCapabilities, image_label, pasted_image_paths
from acp_tui.ui.history import HistoryBrowser, PromptHistory

CHIP_LINES = 10
CHIP_CHARS = 1000
#: Pasted texts and image labels remembered (a queued or recalled prompt may
#: still use one).
MAX_CHIPS = 64
MAX_IMAGES = 256
_CHIP = re.compile(r"\[Pasted text #(\d+) \+\d+ lines\]")


class PasteChips:
    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._count = 0

    @staticmethod
    def wants(text: str) -> bool:
        return text.count("\n") + 1 >= CHIP_LINES or len(text) >= CHIP_CHARS

    def chip(self, text: str) -> str:
        """The label standing for ``text`` in the draft."""
        self._count += 1
        label = f"[Pasted text #{self._count} +{text.count(chr(10)) + 1} lines]"
        if len(self._texts) >= MAX_CHIPS:
            del self._texts[next(iter(self._texts))]
        self._texts[label] = text
        return label

    def expand(self, text: str) -> str:
        """``text`` with every known chip replaced by its paste."""
        if "[Pasted text #" not in text:
            return text
        return _CHIP.sub(lambda m: self._texts.get(m.group(0), m.group(0)), text)


def editor_command(env: dict[str, str] | None = None) -> list[str]:
    env = dict(os.environ) if env is None else env
    chosen = env.get("VISUAL") or env.get("EDITOR") or "vi"
    try:
        return shlex.split(chosen)
    except ValueError:
        return [chosen]


def edit_text(text: str, cwd: Path | None = None) -> str | None:
    """Run the editor on ``text``; its saved text, or None when it failed."""
    with tempfile.TemporaryDirectory(prefix="acp-tui-") as folder:
        path = Path(folder) / "prompt.md"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*editor_command(), str(path)], cwd=cwd, check=False)
        except OSError:
            return None
        if done.returncode != 0:
            return None
        return path.read_text(encoding="utf-8", errors="replace").rstrip("\n")


class PromptExtras(TextArea):
    """The prompt's pastes (chips, image labels), Ctrl+R, Ctrl+G and Ctrl+F
    (the attributes are PromptInput's)."""

    prompt_history: PromptHistory
    _browser: HistoryBrowser
    _chips: PasteChips
    _file_root: Path | None
    _images: dict[str, Path]

    def _show_recalled(self, text: str) -> None:
        raise NotImplementedError

    @property
    def prompt_capabilities(self) -> PromptCapabilities:
        raise NotImplementedError

    async def _on_paste(self, event: events.Paste) -> None:
        # TextArea._on_paste (called after this) inserts the text, newlines and
        # all, in one edit, without submitting. It does not stop the event, and an
        # unforwarded Paste that bubbles to the App is forwarded to the focused
        # widget again: a Paste posted straight to this widget would be inserted twice.
        event.stop()
        if self.read_only:
            return
        if PasteChips.wants(event.text):
            event.prevent_default()  # a chip instead of 400 lines in the draft
            self._insert_label(self._chips.chip(event.text))
            return
        if not self.prompt_capabilities.image:
            return
        paths = pasted_image_paths(event.text, self._file_root or Path.cwd())
        if not paths:
            return
        event.prevent_default()  # the labels go in instead of the paths
        self._insert_label(" ".join(self._attach_image(path) for path in paths))

    def _insert_label(self, labels: str) -> None:
        """Put ``labels`` at the cursor as typing would, a space around them."""
        start, end = sorted(self.selection)
        before = self.document.get_line(start[0])[: start[1]]
        if before and not before[-1].isspace():
            labels = " " + labels
        if result := self._replace_via_keyboard(labels + " ", start, end):
            self.move_cursor(result.end_location)

    def _attach_image(self, path: Path) -> str:
        for label, known in self._images.items():
            if known == path:
                return label
        label = image_label(path, self._images)
        if len(self._images) >= MAX_IMAGES:
            del self._images[next(iter(self._images))]
        self._images[label] = path
        return label

    def action_search_history(self) -> None:
        """Ctrl+R: pick an earlier prompt (screens/history_search.py)."""
        from acp_tui.ui.screens.history_search import HistorySearchScreen

        query = self.text if "\n" not in self.text else ""

        def chosen(text: str | None) -> None:
            if text is not None:
                self._browser.reset()
                self._show_recalled(text)
            self.focus()

        self.app.push_screen(HistorySearchScreen(self.prompt_history, query), chosen)

    def action_edit_in_editor(self) -> None:
        """Ctrl+G: the draft in $VISUAL / $EDITOR; what it saves becomes the draft."""
        draft = self._chips.expand(self.text)
        try:
            with self.app.suspend():
                edited = edit_text(draft, self._file_root)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor", severity="warning")
            return
        self.app.refresh(repaint=True)
        if edited is None:
            self.notify("The editor failed; the draft is unchanged", severity="warning")
        elif edited != draft:
            self._replace_all(edited)

    def action_expand_pastes(self) -> None:
        """Ctrl+F: the draft's paste chips back into their text."""
        expanded = self._chips.expand(self.text)
        if expanded != self.text:
            self._replace_all(expanded)

    def action_undo(self) -> None:
        # Textual 8.2.8 recomputes the cursor's offset after undoing an edit but
        # before re-wrapping: with the cursor on a line the undo removes (a
        # multi-line paste or expansion) it raises "document line index out of
        # bounds". From the first line it cannot; the undo then puts the cursor
        # back where it was before the edit.
        self.move_cursor((0, 0))
        super().action_undo()

    def _replace_all(self, text: str) -> None:
        """The whole draft replaced, as one edit Ctrl+Z undoes."""
        self.history.checkpoint()
        self.replace(text, (0, 0), self.document.end, maintain_selection_offset=False)
        self.history.checkpoint()
        self.move_cursor(self.document.end)
