"""The UI-free elicitation form model: a requestedSchema read into fields, and an
answer's content checked with the rules every surface shares."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.core.model.elicitation_form import (
    BOOLEAN,
    CHOICE,
    INTEGER,
    MULTI,
    NUMBER,
    STRING,
    UNSUPPORTED,
    ElicitationForm,
    FormSchemaError,
    Option,
)

#: Every field type the SDK's ElicitationSchema allows (acp.schema, 0.12.1).
EVERY_TYPE: dict[str, Any] = {
    "type": "object",
    "title": "Deployment",
    "description": "What the deploy needs",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 5},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "day": {"type": "string", "format": "date", "default": "2026-12-24"},
        "at": {"type": "string", "format": "date-time"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.25},
        "notify": {"type": "boolean", "default": True},
        "size": {"type": "string", "enum": ["s", "m", "l"], "default": "m"},
        "region": {
            "type": "string",
            "oneOf": [
                {"const": "eu", "title": "Europe", "description": "Frankfurt"},
                {"const": "us", "title": "United States"},
            ],
        },
        "checks": {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {"anyOf": [{"const": "lint", "title": "Lint"},
                                {"const": "unit", "title": "Unit"},
                                {"const": "e2e", "title": "E2E"}]},
            "default": ["unit", "nope"],
        },
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
    },
    "required": ["name", "email", "region", "checks"],
}  # fmt: skip


def form() -> ElicitationForm:
    return ElicitationForm.parse(EVERY_TYPE)


def test_every_field_type_is_read_with_its_rules_and_defaults() -> None:
    parsed = form()
    assert parsed.title == "Deployment" and parsed.description == "What the deploy needs"
    kinds = {f.name: f.kind for f in parsed.fields}
    assert kinds == {
        "name": STRING, "email": STRING, "site": STRING, "day": STRING, "at": STRING,
        "code": STRING, "replicas": INTEGER, "ratio": NUMBER, "notify": BOOLEAN,
        "size": CHOICE, "region": CHOICE, "checks": MULTI, "tags": MULTI,
    }  # fmt: skip
    name = parsed.get("name")
    assert name is not None and name.label == "Your name" and name.required
    assert (name.min_length, name.max_length) == (2, 5)
    assert parsed.get("email").label == "email"  # type: ignore[union-attr]
    region = parsed.get("region")
    assert region is not None
    assert region.options == (Option("eu", "Europe", "Frankfurt"), Option("us", "United States"))
    assert [o.title for o in parsed.get("size").options] == ["s", "m", "l"]  # type: ignore[union-attr]
    # Defaults of the right type; a multi-select default keeps only real options.
    assert parsed.defaults() == {
        "day": "2026-12-24", "replicas": 3, "ratio": 0.25, "notify": True, "size": "m",
        "checks": ["unit"],
    }  # fmt: skip
    assert parsed.problems == ()
    assert parsed.answerable


def test_constraint_hints() -> None:
    hints = {f.name: f.constraints() for f in form().fields}
    assert hints["name"] == "2–5 characters"
    assert hints["email"] == "an email address"
    assert hints["replicas"] == "a whole number from 1 to 10"
    assert hints["ratio"] == "a number from 0 to 1"
    assert hints["checks"] == "choose 1–2 choices"
    assert hints["tags"] == "choose any"
    assert hints["notify"] == ""


GOOD: dict[str, Any] = {
    "name": "Ada",
    "email": "ada@example.com",
    "site": "https://example.com/x?y=1",
    "day": "2026-02-28",
    "at": "2026-12-02T14:30:00Z",
    "code": "ABC",
    "replicas": 10,
    "ratio": 1,
    "notify": False,
    "size": "l",
    "region": "us",
    "checks": ["lint", "unit"],
    "tags": [],
}


def test_a_good_answer_passes() -> None:
    assert form().validate(GOOD) == {}
    assert form().validate({**GOOD, "replicas": 3.0}) == {}  # a JSON 3.0 is a whole number
    minimal = {k: GOOD[k] for k in ("name", "email", "region", "checks")}
    assert form().validate(minimal) == {}


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("name", "A", "Must be 2–5 characters."),
        ("name", "Adalbert", "Must be 2–5 characters."),
        ("name", 5, "Must be text."),
        ("email", "ada@", "Must be an email address, like name@example.com."),
        ("email", "ada example.com", "Must be an email address, like name@example.com."),
        ("site", "example.com", "Must be a URL, like https://example.com."),
        ("day", "2026-02-30", "Must be a date, like 2026-12-02."),
        ("day", "02/03/2026", "Must be a date, like 2026-12-02."),
        ("at", "2026-12-02 14:30", "Must be a date and time, like 2026-12-02T14:30:00Z."),
        ("at", "2026-12-02T25:00:00Z", "Must be a date and time, like 2026-12-02T14:30:00Z."),
        ("code", "abc", "Must match the pattern ^[A-Z]{3}$"),
        ("replicas", 0, "Must be from 1 to 10."),
        ("replicas", 11, "Must be from 1 to 10."),
        ("replicas", 2.5, "Must be a whole number."),
        ("replicas", True, "Must be a whole number."),
        ("replicas", "3", "Must be a whole number."),
        ("ratio", 1.5, "Must be from 0 to 1."),
        ("ratio", float("nan"), "Must be a number."),
        ("notify", "yes", "Must be true or false."),
        ("size", "xl", "Choose one of the options."),
        ("region", "Europe", "Choose one of the options."),  # the title is not the value
        ("checks", [], "Choose at least 1."),
        ("checks", ["lint", "unit", "e2e"], "Choose at most 2."),
        ("checks", ["lint", "lint"], "Choose among the options, each once."),
        ("checks", ["other"], "Choose among the options, each once."),
        ("checks", "lint", "Must be a list of choices."),
    ],
)
def test_each_rule_has_its_message(name: str, value: Any, message: str) -> None:
    assert form().validate({**GOOD, name: value}) == {name: message}


def test_required_missing_and_unknown_keys() -> None:
    errors = form().validate({"name": "Ada", "checks": None, "extra": 1})
    assert errors == {
        "email": "Required.",
        "region": "Required.",
        "checks": "Required.",
        "extra": "Not a field of this form.",
    }
    assert form().validate(["not", "an", "object"]) == {"": "content must be an object"}


def test_text_typed_into_a_field_becomes_a_wire_value() -> None:
    parsed = form()
    replicas, ratio, name = parsed.get("replicas"), parsed.get("ratio"), parsed.get("name")
    assert replicas is not None and ratio is not None and name is not None
    assert replicas.parse_text(" 7 ") == (7, None)
    assert replicas.parse_text("7.5") == (None, "Must be a whole number.")
    assert replicas.parse_text("") == (None, None)
    assert ratio.parse_text("0.5") == (0.5, None)
    assert ratio.parse_text("1") == (1, None)
    assert ratio.parse_text("1e400") == (None, "Must be a number.")
    assert ratio.parse_text("abc") == (None, "Must be a number.")
    assert name.parse_text("") == (None, None)
    assert name.parse_text("  ") == ("  ", None)


def test_a_schema_no_form_can_come_from_is_an_error() -> None:
    for bad in (None, [], "x", {"type": "array"}, {"properties": []}):
        with pytest.raises(FormSchemaError):
            ElicitationForm.parse(bad)
    assert ElicitationForm.parse({}).fields == ()  # no properties: nothing to ask


def test_hostile_and_unknown_properties_never_break_the_form() -> None:
    parsed = ElicitationForm.parse(
        {
            "properties": {
                "weird": {"type": "_vendor.color"},
                "notdict": 3,
                "badenum": {"type": "string", "enum": [1, 2]},
                "badarray": {"type": "array", "items": {"type": "number"}},
                "badpattern": {"type": "string", "pattern": "(unclosed"},
                "slow": {"type": "string", "pattern": "^(a+)+$"},
                "esc": {"type": "string", "title": "Na\x1b[31mme\x07", "minLength": -1},
                "num": {"type": "number", "minimum": "1", "default": "x"},
                "named": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
            },
            "required": ["weird", "ghost"],
        }
    )
    kinds = {f.name: f.kind for f in parsed.fields}
    assert kinds["weird"] == kinds["notdict"] == kinds["badenum"] == UNSUPPORTED
    assert kinds["badarray"] == UNSUPPORTED
    assert parsed.get("weird").raw_type == "_vendor.color"  # type: ignore[union-attr]
    assert not parsed.answerable  # a required field no surface can show
    esc = parsed.get("esc")
    assert esc is not None and esc.title == "Na [31mme" and esc.min_length is None
    num = parsed.get("num")
    assert num is not None and num.minimum is None and num.default is None
    assert parsed.get("badpattern").pattern is None  # type: ignore[union-attr]
    assert parsed.get("slow").pattern is None  # type: ignore[union-attr]
    assert [o.title for o in parsed.get("named").options] == ["Alpha", "Beta"]  # type: ignore[union-attr]
    assert any("ghost" in p for p in parsed.problems)
    assert any(p.startswith("slow: its pattern repeats a group") for p in parsed.problems)
    # An unsupported field takes any primitive value; the others keep their rules.
    assert parsed.validate({"weird": "#ff0000"}) == {}
    assert parsed.validate({"weird": {"r": 1}}) == {
        "weird": "Must be text, a number, true or false, or a list of text."
    }


def test_patterns_that_could_hang_a_check_are_left_to_the_agent() -> None:
    """``re`` has no timeout: a repeated group is not checked, nor is text past
    200 characters (pytest-timeout would fail this test if a check hung)."""
    parsed = ElicitationForm.parse(
        {
            "properties": {
                "alt": {"type": "string", "pattern": "^(a|aa)+$"},
                "poly": {"type": "string", "pattern": "^a*a*a*a*a*$"},
                "plain": {"type": "string", "pattern": "^[a-z]+$"},
                "literal": {"type": "string", "pattern": "^x\\)+$"},
            }
        }
    )
    assert parsed.get("alt").pattern is None  # type: ignore[union-attr]
    assert parsed.get("literal").pattern == "^x\\)+$"  # type: ignore[union-attr]
    assert parsed.validate({"alt": "a" * 60 + "b", "poly": "a" * 5000 + "b"}) == {}
    assert parsed.validate({"plain": "abc1"}) == {"plain": "Must match the pattern ^[a-z]+$"}
    assert parsed.validate({"literal": "x))"}) == {}
