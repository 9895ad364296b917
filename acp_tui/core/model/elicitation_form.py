"""Form-mode elicitation: an agent's ``requestedSchema`` as a list of fields, and
the rules an answer must meet.

ACP's ``elicitation/create`` in form mode carries a restricted JSON Schema (the
SDK's ``ElicitationSchema``): an object whose properties are primitives —

- ``string`` with ``minLength``/``maxLength``, ``pattern``, ``format`` (``email``,
  ``uri``, ``date``, ``date-time``) and ``default``; with ``enum`` (untitled) or
  ``oneOf: [{const, title}]`` (titled) it is a single choice;
- ``number`` and ``integer`` with inclusive ``minimum``/``maximum``;
- ``boolean``;
- ``array`` of ``items: {type: "string", enum}`` or ``items: {anyOf: [{const,
  title}]}``: a multiple choice with ``minItems``/``maxItems``;

plus ``required`` and per-field ``title``/``description``/``default``. This
module reads the wire dict (never raises on a hostile one: what it cannot use
becomes an ``unsupported`` field or a noted problem) and checks an answer's
``content`` with the same rules for every surface: the TUI's form
(ui/screens/elicitation.py) and the headless ``elicitation.respond``.

Nothing here imports the SDK or a front end.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BOOLEAN",
    "CHOICE",
    "INTEGER",
    "MULTI",
    "NUMBER",
    "STRING",
    "UNSUPPORTED",
    "ElicitationForm",
    "FormField",
    "FormSchemaError",
    "Option",
]

STRING, NUMBER, INTEGER, BOOLEAN, CHOICE, MULTI, UNSUPPORTED = (
    "string",
    "number",
    "integer",
    "boolean",
    "choice",
    "multi",
    "unsupported",
)
#: Placeholder text for a string format (what a valid answer looks like).
FORMAT_EXAMPLES = {
    "email": "name@example.com",
    "uri": "https://example.com",
    "date": "2026-12-02",
    "date-time": "2026-12-02T14:30:00Z",
}
_FORMAT_NAMES = {
    "email": "an email address",
    "uri": "a URL",
    "date": "a date",
    "date-time": "a date and time",
}
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
#: Python's ``re`` has no timeout, and an agent's pattern meets the user's text:
#: a repeated group (``(a+)+``, ``(a|aa)+``) can take exponential time, so such a
#: pattern is not checked, and text longer than this is not matched (both are
#: left to the agent, which checks its answer anyway).
_PATTERN_INPUT_LIMIT = 200
_REPEATED_GROUP = re.compile(r"(?<!\\)\)[+*{]")


class FormSchemaError(ValueError):
    """A ``requestedSchema`` no form can be built from (the message says why)."""


@dataclass(frozen=True)
class Option:
    value: str
    title: str
    description: str = ""


@dataclass(frozen=True)
class FormField:
    name: str
    kind: str
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    """The schema's default, when it has the right type (else None)."""
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    options: tuple[Option, ...] = ()
    min_items: int | None = None
    max_items: int | None = None
    raw_type: str = ""
    """The property's ``type`` as sent, for an unsupported field."""

    @property
    def label(self) -> str:
        return self.title or self.name

    def constraints(self) -> str:
        """A short hint of what is accepted: ``3–20 characters``, ``1 to 10``, ``an email``."""
        parts = []
        if self.kind == STRING:
            if self.format in _FORMAT_NAMES:
                parts.append(_FORMAT_NAMES[self.format])
            span = _span(self.min_length, self.max_length, "character")
            if span:
                parts.append(span)
        elif self.kind in (NUMBER, INTEGER):
            kind = "a whole number" if self.kind == INTEGER else "a number"
            bounds = _bounds(self.minimum, self.maximum)
            parts.append(f"{kind} {bounds}" if bounds else kind)
        elif self.kind == MULTI:
            span = _span(self.min_items, self.max_items, "choice")
            parts.append(f"choose {span}" if span else "choose any")
        return ", ".join(parts)

    def check(self, value: Any) -> str | None:
        """Why ``value`` (a wire value, present) is not acceptable, or None."""
        if self.kind == STRING:
            if not isinstance(value, str):
                return "Must be text."
            return _check_string(self, value)
        if self.kind in (NUMBER, INTEGER):
            if isinstance(value, bool) or not isinstance(value, int | float):
                return "Must be a whole number." if self.kind == INTEGER else "Must be a number."
            if isinstance(value, float) and not math.isfinite(value):
                return "Must be a number."
            if self.kind == INTEGER and isinstance(value, float) and not value.is_integer():
                return "Must be a whole number."
            return _check_bounds(self.minimum, self.maximum, value)
        if self.kind == BOOLEAN:
            return None if isinstance(value, bool) else "Must be true or false."
        if self.kind == CHOICE:
            if value not in [o.value for o in self.options]:
                return "Choose one of the options."
            return None
        if self.kind == MULTI:
            allowed = {o.value for o in self.options}
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return "Must be a list of choices."
            if len(set(value)) != len(value) or not set(value) <= allowed:
                return "Choose among the options, each once."
            return _check_count(self.min_items, self.max_items, len(value))
        return _check_unsupported(value)

    def parse_text(self, text: str) -> tuple[Any, str | None]:
        """A text field's value: (the wire value or None when empty, an error or None)."""
        if text.strip() == "" and self.kind != STRING:
            return None, None
        if self.kind == INTEGER:
            if not re.fullmatch(r"\s*[+-]?\d+\s*", text):
                return None, "Must be a whole number."
            return int(text), None
        if self.kind == NUMBER:
            try:
                number = float(text)
            except ValueError:
                return None, "Must be a number."
            if not math.isfinite(number):
                return None, "Must be a number."
            return (int(number) if number.is_integer() and "." not in text else number), None
        return (text if text != "" else None), None


@dataclass(frozen=True)
class ElicitationForm:
    fields: tuple[FormField, ...]
    title: str = ""
    description: str = ""
    #: What the schema got wrong that the form works around (one line each).
    problems: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def parse(cls, schema: Any) -> ElicitationForm:
        """The form for a wire ``requestedSchema``; raises FormSchemaError when
        it is not an object schema with a properties object."""
        return _parse(schema)

    def get(self, name: str) -> FormField | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def answerable(self) -> bool:
        """False when a required field is of a type no surface can show."""
        return not any(f.required and f.kind == UNSUPPORTED for f in self.fields)

    def defaults(self) -> dict[str, Any]:
        """The initial values: each field's usable default."""
        return {f.name: f.default for f in self.fields if f.default is not None}

    def validate(self, content: Any) -> dict[str, str]:
        """``{field name: message}`` for what is wrong with an ``accept``'s
        ``content``; empty when it is acceptable. A key that is no field is
        reported under its own name."""
        if not isinstance(content, Mapping):
            return {"": "content must be an object"}
        errors: dict[str, str] = {}
        for name in content:
            if not isinstance(name, str) or self.get(name) is None:
                errors[str(name)] = "Not a field of this form."
        for form_field in self.fields:
            if form_field.name not in content or content[form_field.name] is None:
                if form_field.required:
                    errors[form_field.name] = "Required."
                continue
            problem = form_field.check(content[form_field.name])
            if problem is not None:
                errors[form_field.name] = problem
        return errors


# -- checks -------------------------------------------------------------------------------------


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"from {_number_text(low)} to {_number_text(high)}"
    if low is not None:
        return f"of at least {_number_text(low)}"
    if high is not None:
        return f"of at most {_number_text(high)}"
    return ""


def _span(low: int | None, high: int | None, unit: str) -> str:
    plural = f"{unit}s"
    if low is not None and high is not None:
        if low == high:
            return f"exactly {low} {plural if low != 1 else unit}"
        return f"{low}–{high} {plural}"
    if low is not None and low > 0:
        return f"at least {low} {plural if low != 1 else unit}"
    if high is not None:
        return f"at most {high} {plural if high != 1 else unit}"
    return ""


def _check_bounds(low: float | None, high: float | None, value: float) -> str | None:
    if (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            return f"Must be from {_number_text(low)} to {_number_text(high)}."
        if low is not None:
            return f"Must be at least {_number_text(low)}."
        assert high is not None
        return f"Must be at most {_number_text(high)}."
    return None


def _check_count(low: int | None, high: int | None, count: int) -> str | None:
    if low is not None and count < low:
        return f"Choose at least {low}."
    if high is not None and count > high:
        return f"Choose at most {high}."
    return None


def _check_string(form_field: FormField, value: str) -> str | None:
    low, high = form_field.min_length, form_field.max_length
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        span = _span(low, high, "character")
        return f"Must be {span}."
    fmt = form_field.format
    if fmt == "email" and not _EMAIL.fullmatch(value):
        return f"Must be an email address, like {FORMAT_EXAMPLES['email']}."
    if fmt == "uri" and not _URI.fullmatch(value):
        return f"Must be a URL, like {FORMAT_EXAMPLES['uri']}."
    if fmt == "date" and not _valid_date(value):
        return f"Must be a date, like {FORMAT_EXAMPLES['date']}."
    if fmt == "date-time" and not _valid_date_time(value):
        return f"Must be a date and time, like {FORMAT_EXAMPLES['date-time']}."
    pattern = form_field.pattern
    checkable = pattern is not None and len(value) <= _PATTERN_INPUT_LIMIT
    if checkable and re.search(pattern or "", value) is None:
        return f"Must match the pattern {pattern}"
    return None


def _valid_date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _valid_date_time(value: str) -> bool:
    if not _DATE_TIME.fullmatch(value):
        return False
    try:
        dt.datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def _check_unsupported(value: Any) -> str | None:
    if isinstance(value, str | bool | int | float):
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return None
    return "Must be text, a number, true or false, or a list of text."


# -- parsing the wire schema --------------------------------------------------------------------


def _str(value: Any) -> str:
    """A display string from an agent: one line of its printable characters."""
    if not isinstance(value, str):
        return ""
    return " ".join("".join(c if c.isprintable() else " " for c in value).split())


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _options(raw: Any, titled: bool) -> tuple[Option, ...] | None:
    """``enum: [...]`` (titled=False) or ``oneOf``/``anyOf: [{const, title}]``."""
    if not isinstance(raw, list) or not raw:
        return None
    options: list[Option] = []
    for item in raw:
        if titled:
            if not isinstance(item, dict) or not isinstance(item.get("const"), str):
                return None
            value = item["const"]
            option = Option(value, _str(item.get("title")) or value, _str(item.get("description")))
        elif isinstance(item, str):
            option = Option(item, _str(item) or item)
        else:
            return None
        if any(o.value == option.value for o in options):
            continue
        options.append(option)
    return tuple(options)


def _parse(schema: Any) -> ElicitationForm:
    if not isinstance(schema, dict):
        raise FormSchemaError("requestedSchema must be an object")
    if schema.get("type", "object") != "object":
        raise FormSchemaError('requestedSchema must be of type "object"')
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise FormSchemaError("requestedSchema.properties must be an object")
    problems: list[str] = []
    required_raw = schema.get("required") or []
    if not isinstance(required_raw, list):
        problems.append("required is not a list; no field is required")
        required_raw = []
    required = {name for name in required_raw if isinstance(name, str)}
    for name in sorted(required - set(properties)):
        problems.append(f"required names {name!r}, which is no property")
    fields = []
    for name, prop in properties.items():
        if not isinstance(name, str):
            continue
        form_field, problem = _field(name, prop, name in required)
        fields.append(form_field)
        if problem:
            problems.append(f"{name}: {problem}")
    return ElicitationForm(
        tuple(fields), _str(schema.get("title")), _str(schema.get("description")), tuple(problems)
    )


def _field(name: str, prop: Any, required: bool) -> tuple[FormField, str]:
    if not isinstance(prop, dict):
        return FormField(name, UNSUPPORTED, name, required=required, raw_type="?"), "not an object"
    kind = prop.get("type")
    common: dict[str, Any] = {
        "name": name,
        "title": _str(prop.get("title")) or name,
        "description": _str(prop.get("description")),
        "required": required,
    }
    default = prop.get("default")
    if kind == "string":
        if "enum" in prop or "oneOf" in prop:
            titled = "oneOf" in prop
            options = _options(prop.get("oneOf") if titled else prop.get("enum"), titled)
            if options is None:
                return _unsupported(common, "string"), "its enum is not a list of strings"
            names = prop.get("enumNames")  # the older MCP way of giving titles
            if not titled and isinstance(names, list) and len(names) == len(options):
                pairs = zip(options, names, strict=True)
                options = tuple(Option(o.value, _str(title) or o.value) for o, title in pairs)
            chosen = default if default in [o.value for o in options] else None
            return FormField(kind=CHOICE, options=options, default=chosen, **common), ""
        pattern, problem = prop.get("pattern"), ""
        if pattern is not None:
            try:
                re.compile(pattern)
            except (re.error, TypeError):
                pattern, problem = None, "its pattern is not a valid regular expression; ignored"
            else:
                if _REPEATED_GROUP.search(pattern):
                    pattern, problem = None, "its pattern repeats a group; not checked here"
        fmt = prop.get("format")
        return (
            FormField(
                kind=STRING,
                min_length=_count(prop.get("minLength")),
                max_length=_count(prop.get("maxLength")),
                pattern=pattern,
                format=fmt if isinstance(fmt, str) else None,
                default=default if isinstance(default, str) else None,
                **common,
            ),
            problem,
        )
    if kind in ("number", "integer"):
        usable = _number(default)
        if kind == "integer" and usable is not None and not float(usable).is_integer():
            usable = None
        return (
            FormField(
                kind=NUMBER if kind == "number" else INTEGER,
                minimum=_number(prop.get("minimum")),
                maximum=_number(prop.get("maximum")),
                default=usable,
                **common,
            ),
            "",
        )
    if kind == "boolean":
        return FormField(
            kind=BOOLEAN, default=default if isinstance(default, bool) else None, **common
        ), ""
    if kind == "array":
        items = prop.get("items")
        options = None
        if isinstance(items, dict):
            if "anyOf" in items:
                options = _options(items.get("anyOf"), True)
            elif items.get("type", "string") == "string":
                options = _options(items.get("enum"), False)
        if options is None:
            return _unsupported(common, "array"), "its items are not a list of string choices"
        values = [o.value for o in options]
        chosen = (
            [v for v in default if v in values]
            if isinstance(default, list) and all(isinstance(v, str) for v in default)
            else None
        )
        return (
            FormField(
                kind=MULTI,
                options=options,
                min_items=_count(prop.get("minItems")),
                max_items=_count(prop.get("maxItems")),
                default=chosen,
                **common,
            ),
            "",
        )
    raw_type = kind if isinstance(kind, str) else "?"
    return _unsupported(common, raw_type), f"type {raw_type!r} is not supported"


def _unsupported(common: dict[str, Any], raw_type: str) -> FormField:
    return FormField(kind=UNSUPPORTED, raw_type=_str(raw_type) or "?", **common)
