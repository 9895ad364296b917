"""``/changes``, ``/rewind`` (or Esc Esc on an empty prompt), and the keys
of the log's checkpoint entries.

- ``/changes`` lists every turn that changed files; choosing one selects its
  changes entry in the log and expands it (each file's diff).
- ``/rewind`` lists the turns that changed files, newest first, with their
  prompts, and the rewinds that can be undone. Choosing one shows what the
  restore would do (the host's dry run: every file, those edited outside the
  turns flagged), and only the user's confirmation writes anything.
- On a changes entry: ``r`` rewinds its turn, ``f`` restores one of its
  files, ``e`` opens one in ``$VISUAL``/``$EDITOR`` (else vi); expanding it fetches its
  diffs. On a rewind entry: ``u`` undoes it.

A restore never runs while a turn does: the flow offers to cancel it first.
Everything goes through the host link; the log shows the committed entries.
"""

from __future__ import annotations

import asyncio
import subprocess
from typing import TYPE_CHECKING

from acp_tui.core import ChangesEntry, Entry, HostError, RewindEntry, UserEntry, one_line
from acp_tui.ui.render.changes import plural, rewind_title
from acp_tui.ui.screens.choice import Choice, ChoiceScreen
from acp_tui.ui.screens.restore_confirm import RestoreScreen
from acp_tui.ui.widgets.prompt_extras import editor_command

if TYPE_CHECKING:
    from acp_tui.core import SessionView
    from acp_tui.ui.conversation import Conversation
    from acp_tui.ui.host_link import HostLink
    from acp_tui.ui.surface import Surface
    from acp_tui.ui.turns import Turns

__all__ = ["CHECKPOINT_COMMANDS", "RewindFlow", "parse_checkpoint_command"]

#: How the commands show up in slash completion, beside the agent's own.
CHECKPOINT_COMMANDS = [
    {"name": "changes", "description": "acp-tui: what each turn changed in the files"},
    {"name": "rewind", "description": "acp-tui: put the files back as they were before a turn"},
]
#: Seconds to wait for a cancelled turn to end before a restore.
CANCEL_WAIT = 10.0
PROMPT_WIDTH = 48


def parse_checkpoint_command(text: str) -> str | None:
    """``"changes"`` or ``"rewind"`` for such a line, else None."""
    word = text.strip()
    return word[1:] if word in ("/changes", "/rewind") else None


def turn_name(turn: int | None) -> str:
    return f"turn {turn}" if turn is not None else "an earlier turn"


def stats(entry: ChangesEntry) -> str:
    added = sum(int(f.get("added") or 0) for f in entry.files)
    removed = sum(int(f.get("removed") or 0) for f in entry.files)
    counts = (f" +{added}" if added else "") + (f" −{removed}" if removed else "")
    return plural(len(entry.files), "file") + counts


class RewindFlow:
    def __init__(
        self, surface: Surface, link: HostLink, conversation: Conversation, turns: Turns
    ) -> None:
        self.surface = surface
        self.link = link
        self.conversation = conversation
        self.turns = turns

    # -- the commands ---------------------------------------------------------------

    def command(self, name: str) -> None:
        work = self._changes() if name == "changes" else self._rewind()
        self.surface.in_background(work, "rewind", exclusive=True)

    def entry_action(self, index: int, entry: Entry, action: str) -> None:
        """A key on the log's entry ``index`` (EntryLog.EntryAction)."""
        if isinstance(entry, ChangesEntry):
            handler = {
                "expanded": self._details,
                "rewind": self._rewind_turn,
                "restore_file": self._restore_file,
                "edit": self._edit,
            }.get(action)
            if handler is not None:
                self.surface.in_background(handler(index, entry), "rewind", exclusive=True)
        elif isinstance(entry, RewindEntry) and action in ("undo", "rewind"):
            self.surface.in_background(self._undo(index, entry), "rewind", exclusive=True)

    async def _changes(self) -> None:
        view = self.conversation.current
        found = self._turns(view)
        if view is None or not found:
            self.surface.toast("No turn has changed any file yet", timeout=4)
            return
        prompts = await self._prompts(view)
        choices = [
            Choice(
                str(index),
                f"Turn {entry.turn} · {stats(entry)}",
                self._prompt(view, index, entry, prompts),
            )
            for index, entry in found
        ]
        picked = await self.surface.ask(ChoiceScreen("What each turn changed", choices))
        if picked is None:
            return
        # The view's index, as the log numbers it (notices, an earlier session above).
        shown = self.conversation.source.position(view.entries, int(picked))
        if shown is None:
            return
        log = self.surface.log_view
        log.select(shown, expand=True)
        log.focus()

    async def _rewind(self) -> None:
        view = self.conversation.current
        if view is None:
            self.surface.toast("No session yet", timeout=4)
            return
        targets: dict[str, tuple[str, str]] = {}
        choices: list[Choice] = []
        prompts = await self._prompts(view)
        for index in range(len(view.entries) - 1, -1, -1):
            entry = view.entries[index]
            if isinstance(entry, RewindEntry):
                title = f"Undo: {rewind_title(entry)}"
                targets[str(index)] = (entry.undo_checkpoint_id, title)
                choices.append(Choice(str(index), title, plural(len(entry.files), "file")))
            elif isinstance(entry, ChangesEntry):
                title = f"Rewind the files to before turn {entry.turn}"
                targets[str(index)] = (entry.base_checkpoint_id, title)
                label = f"Before turn {entry.turn} · {stats(entry)}"
                choices.append(Choice(str(index), label, self._prompt(view, index, entry, prompts)))
        if not choices:
            self.surface.toast("Nothing to rewind: no turn has changed any file yet", timeout=4)
            return
        picked = await self.surface.ask(ChoiceScreen("Rewind the files to…", choices))
        if picked is not None:
            checkpoint_id, title = targets[picked]
            await self._confirm(view, checkpoint_id, title)

    # -- entry keys -----------------------------------------------------------------

    async def _details(self, index: int, entry: ChangesEntry) -> None:
        view = self.conversation.current
        if view is None:
            return
        try:
            found = await self.link.checkpoint_files(
                view.session_id, entry.base_checkpoint_id, entry.checkpoint_id
            )
        except HostError as exc:
            self.surface.toast(f"Cannot show the diffs: {exc.message}", severity="error")
            found = []
        self.surface.log_view.set_details(index, entry, found)

    async def _rewind_turn(self, index: int, entry: ChangesEntry) -> None:
        view = self.conversation.current
        if view is not None:
            title = f"Rewind the files to before {turn_name(entry.turn)}"
            await self._confirm(view, entry.base_checkpoint_id, title)

    async def _undo(self, index: int, entry: RewindEntry) -> None:
        view = self.conversation.current
        if view is not None:
            title = f"Undo: {rewind_title(entry)}"
            await self._confirm(view, entry.undo_checkpoint_id, title)

    async def _restore_file(self, index: int, entry: ChangesEntry) -> None:
        view = self.conversation.current
        path = await self._pick_file(entry, "Restore one file to before the turn")
        if view is not None and path is not None:
            name = next(str(f.get("display")) for f in entry.files if f.get("path") == path)
            title = f"Restore {name} to before {turn_name(entry.turn)}"
            await self._confirm(view, entry.base_checkpoint_id, title, [path])

    async def _edit(self, index: int, entry: ChangesEntry) -> None:
        path = await self._pick_file(entry, "Open which file?", existing=True)
        if path is None:
            return
        argv = [*editor_command(), path]  # as Ctrl+G in the prompt: $VISUAL, $EDITOR, vi
        code = self.surface.run_outside(argv)
        if code is None:
            self.surface.toast("Cannot hand the terminal to an editor here", severity="error")
        elif code != 0:
            self.surface.toast(f"{one_line(argv[0])} ended with status {code}", severity="warning")

    # -- the restore ------------------------------------------------------------------

    async def _confirm(
        self, view: SessionView, checkpoint_id: str, title: str, paths: list[str] | None = None
    ) -> None:
        if not await self._idle(view):
            return
        try:
            plan = await self.link.plan_restore(view.session_id, checkpoint_id, paths)
        except HostError as exc:
            self.surface.toast(f"Cannot rewind: {exc.message}", severity="error", timeout=6)
            return
        if not plan:
            self.surface.toast("Nothing to restore: the files are already as they were", timeout=4)
            return
        answer = await self.surface.ask(RestoreScreen(title, plan))
        if answer is None:
            return
        try:
            result = await self.link.restore_checkpoint(
                view.session_id, checkpoint_id, paths, tell_agent=answer == "tell"
            )
        except HostError as exc:
            self.surface.toast(f"The restore failed: {exc.message}", severity="error", timeout=8)
            return
        done = plural(len(result.get("files") or []), "file")
        self.surface.toast(f"Restored {done}. /rewind (or u on its entry) undoes it.", timeout=5)

    async def _idle(self, view: SessionView) -> bool:
        """No turn runs (after offering to cancel the one that does)."""
        if not view.running:
            return True
        choices = [
            Choice("cancel", "Cancel the turn, then go on"),
            Choice("keep", "Keep it running (nothing is restored)"),
        ]
        screen = ChoiceScreen("A turn is running: files cannot be restored under it", choices)
        if await self.surface.ask(screen) != "cancel":
            return False
        await self.turns.cancel()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CANCEL_WAIT
        while view.running and loop.time() < deadline:
            await asyncio.sleep(0.05)
        if view.running:
            self.surface.toast("The turn has not ended yet: try again", severity="warning")
        return not view.running

    # -- helpers ----------------------------------------------------------------------

    @staticmethod
    def _turns(view: SessionView | None) -> list[tuple[int, ChangesEntry]]:
        if view is None:
            return []
        return [(i, e) for i, e in enumerate(view.entries) if isinstance(e, ChangesEntry)][::-1]

    async def _prompts(self, view: SessionView) -> dict[str, str]:
        """Each before-turn checkpoint's prompt (as the user typed it)."""
        try:
            listed = await self.link.list_checkpoints(view.session_id)
        except HostError:
            return {}
        return {str(c["checkpointId"]): str(c.get("prompt") or "") for c in listed}

    @staticmethod
    def _prompt(view: SessionView, index: int, entry: ChangesEntry, prompts: dict[str, str]) -> str:
        text = prompts.get(entry.base_checkpoint_id)
        if not text:
            text = next((e.text for e in view.entries[index::-1] if isinstance(e, UserEntry)), "")
        text = one_line(text)
        text = text if len(text) <= PROMPT_WIDTH else text[: PROMPT_WIDTH - 1] + "…"
        names = ", ".join(one_line(str(f.get("display"))) for f in entry.files[:4])
        more = f" +{len(entry.files) - 4}" if len(entry.files) > 4 else ""
        return f"“{text}”  {names}{more}" if text else names + more

    async def _pick_file(
        self, entry: ChangesEntry, title: str, *, existing: bool = False
    ) -> str | None:
        files = [f for f in entry.files if not (existing and f.get("change") == "deleted")]
        if not files:
            self.surface.toast("The turn deleted that file: r or f brings it back", timeout=5)
            return None
        if len(files) == 1:
            return str(files[0]["path"])
        choices = [
            Choice(str(f["path"]), one_line(str(f.get("display"))), str(f.get("change")))
            for f in files
        ]
        picked = await self.surface.ask(ChoiceScreen(title, choices))
        return None if picked is None else str(picked)


def run_editor(argv: list[str], env: dict[str, str] | None = None) -> int:
    """Run a program in the foreground (the caller has handed it the terminal)."""
    try:
        return subprocess.call(argv, env=env)
    except OSError:
        return 127
