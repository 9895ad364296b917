"""The form-mode elicitation modal: answers an agent's ``elicitation/create``
(mode ``form``) with a form built from its ``requestedSchema``.

Opening it and getting the answer::

    screen = ElicitationFormScreen(message, requested_schema, agent="Claude Code")
    app.push_screen(screen, on_answer)      # or: answer = await app.push_screen_wait(screen)

``on_answer`` gets the ACP response (``CreateElicitationResponse`` on the wire):
``{"action": "accept", "content": {...}}``, ``{"action": "decline"}`` or
``{"action": "cancel"}`` — or ``None`` when the question was withdrawn from
outside with :meth:`ElicitationFormScreen.withdraw` (``$/cancel_request``, the
turn ended: nothing is to be sent). A schema no form can be built from raises
:class:`~acp_tui.core.model.elicitation_form.FormSchemaError` in the constructor
(answer the agent with an error then).

Keys: Tab / Shift+Tab move between fields and buttons; Enter in a text field
goes to the next field (on the last one it accepts); Space toggles a checkbox,
a radio button or a list item, Up/Down move in a list; Ctrl+S accepts,
Ctrl+N declines, Esc cancels. Accepting checks every field first
(core/elicitation_form.py): a field that is wrong shows why under it and gets
the focus, and nothing is sent. A field that showed an error is checked again
as it changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from rich.cells import cell_len
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.scalar import Scalar
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, RadioSet, SelectionList, Static

from acp_tui.core import ElicitationForm, clean
from acp_tui.ui.screens.elicitation_fields import FieldBlock

__all__ = ["ElicitationAnswer", "ElicitationFormScreen"]

#: The ACP response: ``{"action": "accept", "content": {...}}``, decline or cancel.
ElicitationAnswer = dict[str, Any]

_COMPACT_BELOW = 30
_MIN_FIELD_ROWS = 4


class ElicitationFormScreen(ModalScreen[ElicitationAnswer | None]):
    DEFAULT_CSS = """
    ElicitationFormScreen {
        align: center middle;
        overflow: hidden;
    }
    ElicitationFormScreen > #dialog {
        width: 80%;
        max-width: 100;
        min-width: 40;
        height: auto;
        max-height: 90%;
        background: $panel;
        border: round $accent;
        padding: 0 1;
    }
    ElicitationFormScreen #header { height: 1; width: 1fr; }
    ElicitationFormScreen #heading { width: 1fr; color: $text-accent; text-style: bold; }
    ElicitationFormScreen #counter { width: auto; color: $foreground-muted; }
    ElicitationFormScreen #message { width: 1fr; height: auto; margin-top: 1; }
    ElicitationFormScreen #about { width: 1fr; height: auto; color: $foreground-muted; }
    ElicitationFormScreen #fields {
        width: 1fr;
        height: auto;
        margin-top: 1;
        scrollbar-size-vertical: 1;
    }
    ElicitationFormScreen #buttons { width: 1fr; height: 1; margin-top: 1; }
    ElicitationFormScreen #buttons Button { margin-right: 2; }
    ElicitationFormScreen #hint {
        width: 1fr;
        height: 1;
        margin-top: 1;
        color: $foreground-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    ElicitationFormScreen.-compact {
        #message, #fields, #buttons, #hint { margin-top: 0; }
        FieldBlock { margin-bottom: 0; }
    }
    """

    #: Tab is a priority binding: keys typed right after it (a burst from a
    #: fast typist or a script) go to the next field, not the one left. Ctrl+S
    #: and Ctrl+N are not: they reach the screen after the keys typed before
    #: them, so the text just typed is in the answer.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
        Binding("ctrl+s", "accept", "Accept", show=False),
        Binding("ctrl+n", "decline", "Decline", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
    ]
    #: No automatic focus ("" — None would inherit the app's): the first field
    #: gets it once the form is armed (see arm_after).
    AUTO_FOCUS = ""

    def __init__(
        self,
        message: str,
        schema: Mapping[str, Any] | ElicitationForm,
        *,
        agent: str = "",
        position: int = 1,
        total: int = 1,
        arm_after: float = 0.0,
        on_early_key: Callable[[events.Key], None] | None = None,
    ) -> None:
        """``arm_after``: when the user was typing as the form appeared, the
        form takes no keys until they paused this long (their Enter must not
        send it); until then printable keys go to ``on_early_key``."""
        super().__init__()
        self.form = schema if isinstance(schema, ElicitationForm) else ElicitationForm.parse(schema)
        self.message = message
        self.agent = agent
        self.position = position
        self._total = total
        self._arm_after = arm_after
        self._armed_at = time.monotonic() + arm_after
        self._on_early_key = on_early_key
        self._answered = False

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        defaults = self.form.defaults()
        heading = f"Question from {self.agent}" if self.agent else "The agent asks"
        with Vertical(id="dialog"):
            with Horizontal(id="header"):
                yield Static(heading, id="heading", markup=False)
                yield Static(self._counter_text(), id="counter", markup=False)
            yield Static(_one_paragraph(self.message), id="message", markup=False)
            about = " — ".join(t for t in (self.form.title, self.form.description) if t)
            if about:
                yield Static(about, id="about", markup=False)
            with VerticalScroll(id="fields", can_focus=False):
                for index, form_field in enumerate(self.form.fields):
                    yield FieldBlock(index, form_field, defaults.get(form_field.name))
            with Horizontal(id="buttons"):
                yield Button(
                    "Accept ^S",
                    id="accept",
                    variant="primary",
                    compact=True,
                    disabled=not self.form.answerable,
                )
                yield Button("Decline ^N", id="decline", compact=True)
                yield Button("Cancel Esc", id="cancel", compact=True)
            yield Static("", id="hint", markup=False)

    def on_mount(self) -> None:
        self._fit()
        if self._arm_after > 0:
            self._delay_arming()
        else:
            self._focus_first()

    def on_resize(self, event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        self.set_class(self.size.height < _COMPACT_BELOW, "-compact")
        self._refresh_hint()
        self.call_after_refresh(self._fit_fields)

    def _fit_fields(self) -> None:
        """Cap the fields' height so the buttons always fit; the fields scroll."""
        if not self.is_attached:
            return
        dialog = self.query_one("#dialog", Vertical)
        fields = self.query_one("#fields", VerticalScroll)
        used = dialog.styles.border.spacing.height + dialog.styles.padding.height
        for child in dialog.children:
            used += child.styles.margin.height
            if child is not fields:
                used += child.outer_size.height
        cap = max(_MIN_FIELD_ROWS, int(self.size.height * 0.9) - used)
        if fields.styles.max_height != Scalar.from_number(cap):
            fields.styles.max_height = cap

    def _counter_text(self) -> str:
        return f"{self.position} of {self._total}" if self._total > 1 else ""

    def _hint_text(self, width: int) -> str:
        if not self.armed:
            return "You were typing: the form takes keys when you pause"[:width]
        variants = [
            "Tab next · Enter next field · Space toggles · ^S accept · ^N decline · Esc cancel",
            "Tab next · Space toggles · ^S accept · ^N decline · Esc cancel",
            "Tab · ^S accept · ^N decline · Esc cancel",
        ]
        if not self.form.answerable:
            variants = ["A required field cannot be shown: ^N decline · Esc cancel"]
        return next((v for v in variants if cell_len(v) <= width), variants[-1])

    def _refresh_hint(self) -> None:
        if not self.is_attached:
            return
        width = min(100, max(40, int(self.size.width * 0.8))) - 4
        self.query_one("#hint", Static).update(self._hint_text(width))

    # ------------------------------------------------------------------ arming

    @property
    def armed(self) -> bool:
        return time.monotonic() >= self._armed_at

    def _delay_arming(self) -> None:
        self._armed_at = time.monotonic() + self._arm_after
        self.set_timer(self._arm_after + 0.01, self._arm_if_ready)
        self._refresh_hint()

    def _arm_if_ready(self) -> None:
        if self.is_attached and self.armed and self.focused is None:
            self._refresh_hint()
            self._focus_first()

    def on_key(self, event: events.Key) -> None:
        if self.armed:
            return
        event.stop()
        event.prevent_default()
        self._delay_arming()
        if event.is_printable and self._on_early_key is not None:
            self._on_early_key(event)

    # ------------------------------------------------------------------ API

    def withdraw(self) -> None:
        """Close the form without an answer (the agent withdrew the question)."""
        if not self._answered and self.is_attached:
            self._answered = True
            self.dismiss(None)

    def update_total(self, total: int) -> None:
        """More (or fewer) questions are waiting behind this one."""
        self._total = total
        if self.is_mounted:
            self.query_one("#counter", Static).update(self._counter_text())

    def blocks(self) -> list[FieldBlock]:
        return list(self.query(FieldBlock))

    def block(self, name: str) -> FieldBlock:
        """The field named ``name`` (as the schema names it)."""
        return next(b for b in self.blocks() if b.field.name == name)

    # ------------------------------------------------------------------ checking

    def _collect(self) -> tuple[dict[str, Any], dict[str, str]]:
        """(the content, {field name: message}) from what the widgets hold."""
        content: dict[str, Any] = {}
        parse_errors: dict[str, str] = {}
        for block in self.blocks():
            value, error = block.value()
            if error is not None:
                parse_errors[block.field.name] = error
            elif value is not None and block.field.kind != "unsupported":
                content[block.field.name] = value
        errors = self.form.validate(content)
        errors.update(parse_errors)
        return content, errors

    def _recheck(self, block: FieldBlock) -> None:
        value, error = block.value()
        if error is None:
            if value is None:
                error = "Required." if block.field.required else None
            else:
                error = block.field.check(value)
        block.show_error(error)

    def _changed(self, widget: Any) -> None:
        block = next((b for b in widget.ancestors if isinstance(b, FieldBlock)), None)
        if block is not None and block.showing_error:
            self._recheck(block)

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(RadioSet.Changed)
    @on(SelectionList.SelectedChanged)
    def _on_field_changed(self, event: Any) -> None:
        self._changed(event.control)

    @on(Input.Blurred)
    def _on_input_blurred(self, event: Input.Blurred) -> None:
        """Leaving a text field that holds something checks it."""
        block = next((b for b in event.input.ancestors if isinstance(b, FieldBlock)), None)
        if block is not None and event.input.value.strip():
            self._recheck(block)

    @on(Input.Submitted)
    def _on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        blocks = self.blocks()
        block = next((b for b in event.input.ancestors if isinstance(b, FieldBlock)), None)
        if block is not None and block is blocks[-1]:
            self.action_accept()
        else:
            self.focus_next()

    # ------------------------------------------------------------------ actions

    def _focus_first(self) -> None:
        blocks = self.blocks()
        for block in blocks:
            if block.field.kind != "unsupported":
                block.editor.focus()
                return
        self.query_one("#decline", Button).focus()

    def _answer(self, answer: ElicitationAnswer) -> None:
        if self._answered or not self.armed:
            return
        self._answered = True
        self.dismiss(answer)

    def action_accept(self) -> None:
        if self._answered or not self.armed or not self.form.answerable:
            return
        content, errors = self._collect()
        first = None
        for block in self.blocks():
            block.show_error(errors.get(block.field.name))
            if first is None and block.field.name in errors:
                first = block
        if first is not None:
            first.editor.focus()
            first.scroll_visible(animate=False)
            return
        self._answer({"action": "accept", "content": content})

    def action_decline(self) -> None:
        self._answer({"action": "decline"})

    def action_cancel(self) -> None:
        self._answer({"action": "cancel"})

    @on(Button.Pressed)
    def _on_button(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "accept": self.action_accept,
            "decline": self.action_decline,
            "cancel": self.action_cancel,
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            action()


def _one_paragraph(text: str) -> Content:
    """The agent's message as plain text: its own lines, made safe (the core's
    one sanitizer: escape sequences dropped, other controls shown)."""
    return Content(clean(text).strip())
