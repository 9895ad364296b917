"""One field of the elicitation form (ui/screens/elicitation.py): its label, the
widget that edits it, what it accepts, and the message of what is wrong.

:class:`FieldBlock` turns what the widget holds into a wire value with the
rules of core/elicitation_form.py; it never decides whether the form is valid.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Input, RadioButton, RadioSet, SelectionList, Static
from textual.widgets.selection_list import Selection

from acp_tui.core import (
    BOOLEAN,
    CHOICE,
    FORMAT_EXAMPLES,
    INTEGER,
    MULTI,
    NUMBER,
    STRING,
    FormField,
)

__all__ = ["FieldBlock"]


class FieldBlock(Vertical):
    """The label, the editing widget, the hint and the error line of one field."""

    DEFAULT_CSS = """
    FieldBlock {
        height: auto;
        width: 1fr;
        margin-bottom: 1;
    }
    FieldBlock > .field-label {
        width: 1fr;
        text-style: bold;
    }
    FieldBlock > .field-hint {
        width: 1fr;
        color: $foreground-muted;
    }
    FieldBlock > .field-error {
        width: 1fr;
        color: $text-error;
        display: none;
    }
    FieldBlock.-invalid > .field-error { display: block; }
    FieldBlock.-invalid > .field-label { color: $text-error; }
    FieldBlock Input { width: 1fr; }
    FieldBlock RadioSet, FieldBlock SelectionList {
        width: 1fr;
        height: auto;
    }
    FieldBlock SelectionList { max-height: 10; }
    /* A list that does not have the focus shows no cursor: it would look chosen. */
    FieldBlock RadioSet:blur > RadioButton.-selected > .toggle--label {
        background: transparent;
    }
    FieldBlock SelectionList:blur > .option-list--option-highlighted {
        background: transparent;
    }
    FieldBlock Checkbox { width: 1fr; }
    """

    def __init__(self, index: int, form_field: FormField, initial: Any) -> None:
        super().__init__(id=f"field-{index}")
        self.index = index
        self.field = form_field
        self.initial = initial
        #: Whether the error line is shown (then every change re-checks the field).
        self.showing_error = False

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        form_field = self.field
        mark = " *" if form_field.required else ""
        if form_field.kind != BOOLEAN:
            yield Static(
                Content.assemble(form_field.label, (mark, "not bold $text-warning")),
                classes="field-label",
            )
        yield self._editor()
        hint = self._hint()
        if hint:
            yield Static(Content(hint), classes="field-hint")
        yield Static("", classes="field-error", markup=False)

    def _editor(self) -> Widget:
        form_field, initial = self.field, self.initial
        name = f"input-{self.index}"
        if form_field.kind == BOOLEAN:
            mark = " *" if form_field.required else ""
            return Checkbox(form_field.label + mark, bool(initial), id=name, compact=True)
        if form_field.kind == CHOICE:
            return RadioSet(
                *(
                    RadioButton(_option_label(o.title, o.description), o.value == initial)
                    for o in form_field.options
                ),
                id=name,
                compact=True,
            )
        if form_field.kind == MULTI:
            chosen = set(initial or ())
            return SelectionList[str](
                *(
                    Selection(_option_label(o.title, o.description), o.value, o.value in chosen)
                    for o in form_field.options
                ),
                id=name,
                compact=True,
            )
        if form_field.kind in (STRING, NUMBER, INTEGER):
            kind = {NUMBER: "number", INTEGER: "integer"}.get(form_field.kind, "text")
            text = "" if initial is None else _text(initial)
            placeholder = FORMAT_EXAMPLES.get(form_field.format or "", "")
            # valid_empty: Textual's own check of a number type must not mark an
            # empty field invalid (whether it may be empty is the form's rule).
            return Input(
                text,
                placeholder=placeholder,
                type=kind,  # type: ignore[arg-type]
                id=name,
                compact=True,
                valid_empty=True,
            )
        return Static(
            Content.assemble(
                (f"acp-tui cannot show a field of type {form_field.raw_type!r}", "italic"),
                "; " if form_field.required else " (left out of the answer)",
                ("answering needs it, so decline or cancel" if form_field.required else ""),
            ),
            classes="field-unsupported",
        )

    def _hint(self) -> str:
        """``Your badge name (2–40 characters)``; ``Choose 1–2 choices · Space toggles``."""
        hint = self.field.description
        constraints = self.field.constraints()
        if constraints:
            hint = f"{hint} ({constraints})" if hint else constraints[0].upper() + constraints[1:]
        if self.field.kind == MULTI:
            hint = f"{hint} · Space toggles" if hint else "Space toggles"
        return hint

    # ------------------------------------------------------------------ value

    @property
    def editor(self) -> Widget:
        return self.query_one(f"#input-{self.index}")

    def value(self) -> tuple[Any, str | None]:
        """(the wire value, or None when not answered; a parse error or None)."""
        editor = self.editor
        if isinstance(editor, Checkbox):
            return editor.value, None
        if isinstance(editor, RadioSet):
            index = editor.pressed_index
            return (self.field.options[index].value if index >= 0 else None), None
        if isinstance(editor, SelectionList):
            chosen = set(editor.selected)
            return [o.value for o in self.field.options if o.value in chosen], None
        if isinstance(editor, Input):
            return self.field.parse_text(editor.value)
        return None, None

    def show_error(self, message: str | None) -> None:
        self.showing_error = message is not None
        self.set_class(message is not None, "-invalid")
        self.query_one(".field-error", Static).update(f"✗ {message}" if message else "")

    @property
    def error(self) -> str:
        text = self.query_one(".field-error", Static).content
        return str(text)[2:] if self.showing_error else ""


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _option_label(title: str, description: str) -> Content:
    if description:
        return Content.assemble(title, ("  " + description, "dim"))
    return Content(title)
