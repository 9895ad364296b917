"""``@`` mentions and pasted images → ACP content blocks, behind the path fence."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from acp_tui.core.capabilities.fs import MAX_TEXT_BYTES, PathFence
from acp_tui.core.prompting.mentions import (
    MAX_IMAGE_BYTES,
    PromptCapabilities,
    build_prompt,
    find_mentions,
    format_mention,
    image_block,
    image_label,
    mention_at,
    pasted_image_paths,
    sniff_image,
)

EMBED = PromptCapabilities(embedded_context=True)
LINKS = PromptCapabilities()
IMAGES = PromptCapabilities(image=True)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17)
JPEG = b"\xff\xd8\xff\xe0" + bytes(16)
GIF = b"GIF89a" + bytes(10)
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(8)


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "greet.py").write_text('print("hello")\n')
    (root / "src" / "app.py").write_text("app = 1\n")
    (root / "my file.txt").write_text("spaced\n")
    (root / "notes.md").write_text("# notes\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return root


def fence_for(root: Path, *extra: Path) -> PathFence:
    return PathFence([root, *extra])


def kinds(blocks: list[dict[str, object]]) -> list[str]:
    return [str(b["type"]) for b in blocks]


# ----------------------------------------------------------------- syntax


def test_find_mentions_syntax() -> None:
    text = '@a.py, see (@src/b.py) and @"my file.txt" but not me@example.com or @@x'
    found = [(m.path, m.quoted) for m in find_mentions(text)]
    assert found == [("a.py,", False), ("src/b.py)", False), ("my file.txt", True)]
    assert [m.path for m in find_mentions("line one\n@start.py")] == ["start.py"]


def test_format_mention_quotes_only_when_needed() -> None:
    assert format_mention("src/app.py") == "@src/app.py"
    assert format_mention("my file.txt") == '@"my file.txt"'


def test_mention_at_the_cursor() -> None:
    token = mention_at("fix @gre please", 8)
    assert token is not None and (token.start, token.end, token.query) == (4, 8, "gre")
    token = mention_at("fix @greet.py please", 7)  # inside the word: the query is what precedes
    assert token is not None and (token.end, token.query) == (13, "gr")
    token = mention_at('open @"my fi', 12)
    assert token is not None and token.quoted and token.query == "my fi"
    token = mention_at('open @"my fi" x', 12)
    assert token is not None and token.end == 13  # the closing quote belongs to the token
    assert mention_at("mail me@exa", 11) is None
    assert mention_at("@a b", 4) is None  # the cursor left the word
    assert mention_at('@"a" b', 6) is None
    token = mention_at("@", 1)
    assert token is not None and token.query == ""
    long_line = "x" * 100_000 + " @src"
    token = mention_at(long_line, len(long_line))
    assert token is not None and token.query == "src"
    assert mention_at("@" + "y" * 5000, 5001) is None  # too long to be a mention being typed


def test_prompt_capabilities_from_initialize() -> None:
    init = {
        "agentCapabilities": {
            "promptCapabilities": {"image": True, "embeddedContext": True, "audio": False}
        }
    }
    assert PromptCapabilities.from_init_result(init) == PromptCapabilities(
        image=True, embedded_context=True
    )
    assert PromptCapabilities.from_init_result({}) == PromptCapabilities()
    assert PromptCapabilities.from_init_result(None) == PromptCapabilities()
    odd = {"agentCapabilities": {"promptCapabilities": {"image": "yes"}}}
    assert PromptCapabilities.from_init_result(odd) == PromptCapabilities()


# ----------------------------------------------------------------- blocks


def test_embedded_resources_when_the_agent_accepts_them(cwd: Path) -> None:
    text = 'look at @greet.py and @"my file.txt", thanks'
    built = build_prompt(text, fence_for(cwd), EMBED)
    assert built.blocks[0] == {"type": "text", "text": text}
    assert built.blocks[1] == {
        "type": "resource",
        "resource": {
            "uri": (cwd / "greet.py").as_uri(),
            "text": 'print("hello")\n',
            "mimeType": "text/x-python",
        },
    }
    assert built.blocks[2]["resource"]["text"] == "spaced\n"  # type: ignore[index]
    assert built.notes == [] and built.attached == ["greet.py", "my file.txt"]


def test_links_when_the_agent_does_not_embed(cwd: Path) -> None:
    built = build_prompt("@src/app.py @notes.md", fence_for(cwd), LINKS)
    assert built.blocks[1:] == [
        {
            "type": "resource_link",
            "uri": (cwd / "src" / "app.py").as_uri(),
            "name": "src/app.py",
            "size": 8,
            "mimeType": "text/x-python",
        },
        {
            "type": "resource_link",
            "uri": (cwd / "notes.md").as_uri(),
            "name": "notes.md",
            "size": 8,
            "mimeType": "text/markdown",
        },
    ]


def test_directories_are_links(cwd: Path) -> None:
    built = build_prompt("what is in @src/ and @src", fence_for(cwd), EMBED)
    assert built.blocks[1:] == [
        {"type": "resource_link", "uri": (cwd / "src").as_uri(), "name": "src/"}
    ]  # the same folder twice is attached once


def test_unknown_words_stay_text(cwd: Path) -> None:
    text = "ping @someone about me@example.com and @nothing/here.py"
    built = build_prompt(text, fence_for(cwd), EMBED)
    assert built.blocks == [{"type": "text", "text": text}]
    assert built.notes == []


def test_trailing_punctuation_is_not_part_of_the_path(cwd: Path) -> None:
    built = build_prompt("see @greet.py. Also (@notes.md)", fence_for(cwd), EMBED)
    assert built.attached == ["greet.py", "notes.md"]


def test_outside_the_roots_is_refused_with_a_note(cwd: Path) -> None:
    outside = cwd.parent / "outside.txt"
    text = f"read @../outside.txt and @{outside}"
    built = build_prompt(text, fence_for(cwd), EMBED)
    assert built.blocks == [{"type": "text", "text": text}]  # still sent, as text
    assert len(built.notes) == 2
    for note in built.notes:
        assert "not attached" in note and "outside the allowed roots" in note
        assert str(cwd.parent) not in note  # no absolute path


def test_a_symlink_that_escapes_is_refused(cwd: Path) -> None:
    (cwd / "escape.txt").symlink_to(cwd.parent / "outside.txt")
    (cwd / "escape_dir").symlink_to(cwd.parent, target_is_directory=True)
    (cwd / "inside.txt").symlink_to(cwd / "greet.py")
    built = build_prompt("@escape.txt @escape_dir @inside.txt", fence_for(cwd), EMBED)
    assert kinds(built.blocks) == ["text", "resource"]
    assert built.blocks[1]["resource"]["uri"] == (cwd / "greet.py").as_uri()  # type: ignore[index]
    assert built.attached == ["inside.txt"]
    assert len(built.notes) == 2
    assert all("leads outside" in note for note in built.notes)


def test_extra_roots_are_allowed(cwd: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "lib.py").write_text("x = 2\n")
    built = build_prompt(f"@{extra / 'lib.py'}", fence_for(cwd, extra), EMBED)
    assert kinds(built.blocks) == ["text", "resource"]


def test_binary_files_are_linked(cwd: Path) -> None:
    (cwd / "blob.bin").write_bytes(b"\xff\xfe\x00garbage")
    (cwd / "nul.txt").write_bytes(b"text\x00with a nul")
    (cwd / "pic.png").write_bytes(PNG)
    built = build_prompt("@blob.bin @nul.txt @pic.png", fence_for(cwd), EMBED)
    assert kinds(built.blocks) == ["text", "resource_link", "resource_link", "resource_link"]
    assert built.blocks[3]["mimeType"] == "image/png"
    assert built.notes == []


def test_over_the_limit_is_linked_with_a_note(cwd: Path) -> None:
    big = cwd / "big.log"
    with open(big, "wb") as handle:
        handle.truncate(MAX_TEXT_BYTES + 1)
    built = build_prompt("@big.log", fence_for(cwd), EMBED)
    assert built.blocks[1] == {
        "type": "resource_link",
        "uri": big.as_uri(),
        "name": "big.log",
        "size": MAX_TEXT_BYTES + 1,
    }
    assert built.notes == ["@big.log is linked, not embedded: larger than 8 MiB"]


def test_the_embedded_budget_is_shared_by_the_prompt(cwd: Path) -> None:
    half = "x" * (MAX_TEXT_BYTES // 2 + 1)
    (cwd / "one.txt").write_text(half)
    (cwd / "two.txt").write_text(half)
    built = build_prompt("@one.txt @two.txt", fence_for(cwd), EMBED)
    assert kinds(built.blocks) == ["text", "resource", "resource_link"]
    assert built.notes == ["@two.txt is linked, not embedded: the prompt's 8 MiB is used up"]


def test_a_huge_prompt_full_of_at_words_is_cheap(cwd: Path) -> None:
    text = "\n".join(f"{i} @x{i % 1000} @greet.py" for i in range(20_000))
    built = build_prompt(text, fence_for(cwd), EMBED)
    assert built.blocks[0] == {"type": "text", "text": text}
    assert built.attached == ["greet.py"]  # once, though mentioned 20,000 times


def test_missing_and_unreadable_things_never_fail_the_send(cwd: Path) -> None:
    (cwd / "dangling").symlink_to(cwd / "gone.txt")
    fifo = cwd / "pipe"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
    built = build_prompt("@dangling @pipe", fence_for(cwd), EMBED)
    assert built.blocks[0]["type"] == "text"
    assert "resource" not in kinds(built.blocks)


# ----------------------------------------------------------------- images


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_sniff_image_by_content() -> None:
    assert sniff_image(PNG[:12]) == "image/png"
    assert sniff_image(JPEG[:12]) == "image/jpeg"
    assert sniff_image(GIF[:12]) == "image/gif"
    assert sniff_image(WEBP[:12]) == "image/webp"
    assert sniff_image(b"not an image") is None


def test_pasted_image_paths_as_terminals_paste_them(tmp_path: Path) -> None:
    shot = write(tmp_path / "shot.png", PNG)
    spaced = write(tmp_path / "my shot.jpg", JPEG)
    anim = write(tmp_path / "anim.GIF", GIF)
    assert pasted_image_paths(str(shot), tmp_path) == [shot]
    assert pasted_image_paths(f"  {shot}\n", tmp_path) == [shot]
    assert pasted_image_paths(f"'{spaced}'", tmp_path) == [spaced]
    assert pasted_image_paths(str(spaced).replace(" ", "\\ "), tmp_path) == [spaced]
    assert pasted_image_paths(spaced.as_uri(), tmp_path) == [spaced]  # file:///…my%20shot.jpg
    assert pasted_image_paths(f"{shot} {anim}", tmp_path) == [shot, anim]
    assert pasted_image_paths(f"{shot}\n{spaced.as_uri()}", tmp_path) == [shot, spaced]
    assert pasted_image_paths("shot.png", tmp_path) == [shot]  # relative to the cwd


def test_pastes_that_are_not_only_images_are_text(tmp_path: Path) -> None:
    shot = write(tmp_path / "shot.png", PNG)
    fake = write(tmp_path / "fake.png", b"just text, named .png")
    write(tmp_path / "notes.txt", b"hi")
    assert pasted_image_paths(f"look at {shot}", tmp_path) is None
    assert pasted_image_paths(str(fake), tmp_path) is None
    assert pasted_image_paths(f"{shot} {tmp_path / 'notes.txt'}", tmp_path) is None
    assert pasted_image_paths(str(tmp_path / "missing.png"), tmp_path) is None
    assert pasted_image_paths("'unbalanced", tmp_path) is None
    assert pasted_image_paths("", tmp_path) is None
    assert pasted_image_paths(f"{shot}\n" * 5000, tmp_path) is None  # too long to be paths
    big = tmp_path / "big.png"
    with open(big, "wb") as handle:
        handle.write(PNG)
        handle.truncate(MAX_IMAGE_BYTES + 1)
    assert pasted_image_paths(str(big), tmp_path) is None


def test_image_block_and_labels(tmp_path: Path) -> None:
    shot = write(tmp_path / "shot.webp", WEBP)
    block = image_block(shot)
    assert block["type"] == "image" and block["mimeType"] == "image/webp"
    assert base64.b64decode(block["data"]) == WEBP
    assert block["uri"] == shot.as_uri()
    with pytest.raises(ValueError, match="not a PNG"):
        image_block(write(tmp_path / "x.png", b"nope"))
    assert image_label(shot) == "[image: shot.webp]"
    assert image_label(shot, ["[image: shot.webp]"]) == "[image 2: shot.webp]"


def test_images_become_blocks_when_the_agent_accepts_them(cwd: Path, tmp_path: Path) -> None:
    shot = write(tmp_path / "shot.png", PNG)  # outside the roots: the user pasted it
    images = {"[image: shot.png]": shot, "[image: gone.png]": tmp_path / "gone.png"}
    text = "what is this? [image: shot.png] and @greet.py"
    built = build_prompt(text, fence_for(cwd), PromptCapabilities(image=True), images=images)
    assert kinds(built.blocks) == ["text", "image", "resource_link"]
    assert base64.b64decode(built.blocks[1]["data"]) == PNG  # type: ignore[arg-type]
    assert built.notes == []  # a label no longer in the text is simply not sent

    no_images = build_prompt(text, fence_for(cwd), LINKS, images=images)
    assert kinds(no_images.blocks) == ["text", "resource_link"]
    assert no_images.notes == [
        "[image: shot.png] was sent as text: the agent does not accept images"
    ]

    shot.unlink()
    vanished = build_prompt(text, fence_for(cwd), IMAGES, images=images)
    assert kinds(vanished.blocks) == ["text", "resource_link"]
    assert vanished.notes and "not attached" in vanished.notes[0]
    assert str(tmp_path) not in vanished.notes[0]
