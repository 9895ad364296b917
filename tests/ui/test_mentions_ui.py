"""``@`` completion, big pastes and pasted images, from the keyboard.

The widget alone in a tiny app (real files in tmp dirs), then the real app
against real agent processes: tests/agents/echo_blocks_agent.py reports the
content blocks it received; the scripted agent provides a long turn.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType

from acp_tui.core.connection import AgentSpec
from acp_tui.core.model.entries import UserEntry
from acp_tui.core.prompting.mentions import PromptCapabilities
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.fake_agents import ECHO_AGENT, agent_spec
from tests.ui.helpers import idle, make_app, ready, screen_text, until

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17)


def echo(blocks_file: Path, **env: str) -> AgentSpec:
    return agent_spec(ECHO_AGENT, ECHO_BLOCKS_FILE=str(blocks_file), **env)


def project(root: Path) -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "greet.py").write_text('print("hello")\n')
    (root / "grapes.txt").write_text("grapes\n")
    (root / "src" / "app.py").write_text("app = 1\n")
    (root / "my file.txt").write_text("spaced\n")
    return root


class MentionApp(App[None]):
    CSS = "#prompt { dock: bottom; }"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "record('escape')", "Cancel")]

    def __init__(self, root: Path, capabilities: PromptCapabilities | None = None) -> None:
        super().__init__()
        self.root = root
        self.capabilities = capabilities or PromptCapabilities()
        self.submitted: list[str] = []
        self.calls: list[str] = []
        self.changes = 0

    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt")

    def on_mount(self) -> None:
        self.prompt.set_file_root(self.root)
        self.prompt.set_prompt_capabilities(self.capabilities)
        self.prompt.focus()

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)

    def on_text_area_changed(self) -> None:
        self.changes += 1

    def action_record(self, name: str) -> None:
        self.calls.append(name)


def menu_paths(prompt: PromptInput) -> list[str]:
    menu = prompt.menu
    if menu is None or not prompt.completion_open or menu.kind != "path":
        return []
    return [match.path for match in menu.paths]


def highlighted(prompt: PromptInput) -> str | None:
    menu = prompt.menu
    match = menu.highlighted_path if menu is not None else None
    return None if match is None else match.path


async def type_text(pilot: Any, text: str) -> None:
    await pilot.press(*["space" if ch == " " else ch for ch in text])
    await pilot.pause()


async def menu_shows(pilot: Any, prompt: PromptInput, path: str) -> None:
    await until(pilot, lambda: path in menu_paths(prompt))


# ----------------------------------------------------------------- the widget


async def test_typing_at_gre_offers_greet_and_tab_inserts_it(tmp_path: Path) -> None:
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "fix @gre")
        prompt = app.prompt
        await menu_shows(pilot, prompt, "greet.py")
        assert prompt.text == "fix @gre"  # the index arriving changed nothing typed
        assert menu_paths(prompt)[0] == "greet.py" and highlighted(prompt) == "greet.py"
        assert "grapes.txt" in menu_paths(prompt)  # fuzzy: g-r-…-e
        assert app.focused is prompt
        await pilot.press("tab")
        await pilot.pause()
        assert prompt.text == "fix @greet.py "
        assert prompt.cursor_location == (0, 14)
        assert not prompt.completion_open
        await type_text(pilot, "now")
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == ["fix @greet.py now"]


async def test_enter_inserts_while_the_menu_is_open_then_sends(tmp_path: Path) -> None:
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "@gr")
        await menu_shows(pilot, app.prompt, "greet.py")
        await pilot.press("down")
        chosen = highlighted(app.prompt)
        assert chosen == menu_paths(app.prompt)[1]
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == []
        assert app.prompt.text == f"@{chosen} "
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == [f"@{chosen}"]


async def test_escape_closes_the_menu_without_reaching_the_app(tmp_path: Path) -> None:
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "@gre")
        await menu_shows(pilot, app.prompt, "greet.py")
        await pilot.press("escape")
        await pilot.pause()
        assert not app.prompt.completion_open and app.calls == []
        assert app.prompt.text == "@gre"
        await pilot.press("escape")  # closed now: Esc is the app's again
        await pilot.pause()
        assert app.calls == ["escape"]
        await type_text(pilot, "e")  # typing again reopens it
        await menu_shows(pilot, app.prompt, "greet.py")


async def test_paths_with_spaces_are_quoted(tmp_path: Path) -> None:
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "@myfile")
        await menu_shows(pilot, app.prompt, "my file.txt")
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == '@"my file.txt" '


async def test_a_directory_keeps_the_menu_open_on_its_contents(tmp_path: Path) -> None:
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "@sr")
        await menu_shows(pilot, app.prompt, "src/")
        assert highlighted(app.prompt) == "src/"
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == "@src/"
        await menu_shows(pilot, app.prompt, "src/app.py")
        await pilot.press("down") if highlighted(app.prompt) != "src/app.py" else None
        assert highlighted(app.prompt) == "src/app.py"
        await pilot.press("enter")
        await pilot.pause()
        assert app.prompt.text == "@src/app.py " and app.submitted == []


async def test_a_path_typed_in_full_sends_on_enter(tmp_path: Path) -> None:
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "@gre")
        await menu_shows(pilot, app.prompt, "greet.py")
        await type_text(pilot, "et.py")
        assert not app.prompt.completion_open
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == ["@greet.py"]


async def test_no_menu_inside_words_or_without_a_root(tmp_path: Path) -> None:
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "@gre")
        await menu_shows(pilot, app.prompt, "greet.py")  # the index is ready
        await pilot.press("ctrl+u", "ctrl+k")
        await type_text(pilot, "mail me@gre")
        assert not app.prompt.completion_open
        app.prompt.set_file_root(None)
        await pilot.press("ctrl+u", "ctrl+k")
        await type_text(pilot, "@gre")
        assert not app.prompt.completion_open  # no session cwd in this app


async def test_a_big_paste_is_a_chip_and_is_sent_whole(tmp_path: Path) -> None:
    """A 20,000-line paste goes into the draft as one chip, in one edit; the
    prompt sent carries the whole text (issue 13: pastes)."""
    app = MentionApp(project(tmp_path))
    async with app.run_test() as pilot:
        await type_text(pilot, "@gre")
        await menu_shows(pilot, app.prompt, "greet.py")
        await pilot.press("escape", "ctrl+u", "ctrl+k")
        await pilot.pause()
        lines = [f"{i:05} {'lorem ipsum dolor sit amet ' * 2}@x" for i in range(20_000)]
        text = "\n".join(lines) + "\n@gre"
        assert len(text) > 1_000_000
        before = app.changes
        edits = sum(len(batch) for batch in app.prompt.history.undo_stack)
        app.post_message(events.Paste(text))  # as the terminal delivers it: to the App
        await until(pilot, lambda: app.prompt.text != "", timeout=60)
        await pilot.pause()
        prompt = app.prompt
        assert prompt.text == "[Pasted text #1 +20001 lines] "
        assert app.changes - before == 1  # one edit, one Changed: nothing ran per character
        assert sum(len(batch) for batch in prompt.history.undo_stack) == edits + 1
        assert app.submitted == []
        await type_text(pilot, "thanks")
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == [text + " thanks"]


async def test_pasting_image_paths_attaches_them(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    shot = tmp_path / "Screen Shot.png"
    shot.write_bytes(PNG)
    app = MentionApp(root, PromptCapabilities(image=True))
    async with app.run_test() as pilot:
        await type_text(pilot, "what is")
        app.post_message(events.Paste(f"'{shot}'"))
        await pilot.pause()
        assert app.prompt.text == "what is [image: Screen Shot.png] "
        assert app.prompt.image_attachments == {"[image: Screen Shot.png]": shot}
        app.post_message(events.Paste(shot.as_uri()))  # the same file again: the same label
        await pilot.pause()
        assert app.prompt.text == "what is [image: Screen Shot.png] [image: Screen Shot.png] "
        assert len(app.prompt.image_attachments) == 1


async def test_without_image_support_the_path_is_pasted_as_text(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(PNG)
    app = MentionApp(project(tmp_path / "p"))
    async with app.run_test() as pilot:
        app.post_message(events.Paste(str(shot)))
        await pilot.pause()
        assert app.prompt.text == str(shot)
        assert app.prompt.image_attachments == {}


# ----------------------------------------------------------------- the app


def received(blocks_file: Path) -> list[list[dict[str, Any]]]:
    if not blocks_file.exists():
        return []
    return [json.loads(line) for line in blocks_file.read_text().splitlines()]


async def test_the_agent_receives_the_mentioned_file(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    blocks_file = tmp_path / "blocks.jsonl"
    app = make_app(echo(blocks_file), root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_text(pilot, "explain @gre")
        await menu_shows(pilot, app.prompt, "greet.py")
        await pilot.press("tab")
        await type_text(pilot, "please")
        await pilot.press("enter")
        await until(pilot, lambda: len(received(blocks_file)) == 1 and idle(app))
        blocks = received(blocks_file)[0]
        assert blocks == [
            {"type": "text", "text": "explain @greet.py please"},
            {
                "type": "resource",
                "resource": {
                    "uri": (root.resolve() / "greet.py").as_uri(),
                    "text": 'print("hello")\n',
                    "mimeType": "text/x-python",
                },
            },
        ]
        assert app.session is not None
        user = next(e for e in app.session.thread.entries if isinstance(e, UserEntry))
        assert [b["type"] for b in user.content] == ["text", "resource"]
        await pilot.pause()
        assert "@greet.py" in screen_text(app)


async def test_links_for_an_agent_without_embedded_context(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    blocks_file = tmp_path / "blocks.jsonl"
    app = make_app(echo(blocks_file, ECHO_EMBEDDED="0"), root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_text(pilot, "@src/app.py")
        await pilot.press("enter")
        await until(pilot, lambda: len(received(blocks_file)) == 1 and idle(app))
        assert received(blocks_file)[0][1] == {
            "type": "resource_link",
            "uri": (root.resolve() / "src" / "app.py").as_uri(),
            "name": "src/app.py",
            "size": 8,
            "mimeType": "text/x-python",
        }


async def test_a_mention_outside_the_roots_is_sent_as_text_with_a_note(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    (tmp_path / "secret.txt").write_text("secret\n")
    blocks_file = tmp_path / "blocks.jsonl"
    app = make_app(echo(blocks_file), root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_text(pilot, "read @../secret.txt")
        await pilot.press("escape")  # no menu for it; Esc with nothing running does nothing
        await pilot.press("enter")
        await until(pilot, lambda: len(received(blocks_file)) == 1 and idle(app))
        assert received(blocks_file)[0] == [{"type": "text", "text": "read @../secret.txt"}]
        assert any("not attached" in str(n.message) for n in app._notifications)


async def test_a_pasted_image_reaches_the_agent(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    shot = tmp_path / "shot.png"
    shot.write_bytes(PNG)
    blocks_file = tmp_path / "blocks.jsonl"
    app = make_app(echo(blocks_file), root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_text(pilot, "look")
        app.post_message(events.Paste(str(shot)))
        await pilot.pause()
        assert app.prompt.text == "look [image: shot.png] "
        await pilot.press("enter")
        await until(pilot, lambda: len(received(blocks_file)) == 1 and idle(app))
        text, image = received(blocks_file)[0]
        assert text == {"type": "text", "text": "look [image: shot.png]"}
        assert image["type"] == "image" and image["mimeType"] == "image/png"
        assert base64.b64decode(image["data"]) == PNG


async def test_escape_with_the_menu_open_does_not_cancel_the_turn(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    app = make_app(agent_spec(), root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_text(pilot, "hang")  # a turn that runs until cancelled
        await pilot.press("enter")
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        await type_text(pilot, "@gre")
        await menu_shows(pilot, app.prompt, "greet.py")
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert not app.prompt.completion_open
        assert app.session is not None and app.session.status == "running"
        assert app.prompt.text == "@gre"
        await pilot.press("escape")  # now it cancels
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        assert app.session.last_stop_reason == "cancelled"
