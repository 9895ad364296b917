"""The fs/* capability behind the path fence: real files and symlinks, no mocks."""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from acp_tui.core.capabilities.fs import MAX_TEXT_BYTES, PathFence, read_text_file, write_text_file

NOT_FOUND = -32002
INVALID = -32602
INTERNAL = -32603

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks and modes")


def assert_no_absolute_path(exc: RequestError, tmp_path: Path, fence: PathFence) -> None:
    """Neither the message nor the data may name an absolute path of this machine."""
    text = f"{exc} {exc.data!r}"
    forbidden = {str(tmp_path), os.path.realpath(tmp_path), *(str(r) for r in fence.roots)}
    for absolute in forbidden:
        assert absolute not in text, text
    for base in {tmp_path, Path(os.path.realpath(tmp_path))}:
        prefix = re.escape("/" + base.parts[1])
        assert not re.search(rf"(^|[\s'\"(:=]){prefix}(/|$|[\s'\")])", text), text


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere"
    path.mkdir()
    (path / "secret.txt").write_text("top secret\n")
    return path


@pytest.fixture
def fence(root: Path) -> PathFence:
    return PathFence([root])


@pytest.fixture
def expect_error(tmp_path: Path, fence: PathFence) -> Callable[..., RequestError]:
    """Call ``fn(*args)``, expect a RequestError with ``code``, check it leaks no path."""

    def check(code: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> RequestError:
        with pytest.raises(RequestError) as info:
            fn(*args, **kwargs)
        exc = info.value
        assert exc.code == code, (exc.code, str(exc), exc.data)
        assert_no_absolute_path(exc, tmp_path, fence)
        return exc

    return check


ExpectError = Callable[..., RequestError]


def snapshot(directory: Path) -> dict[str, bytes | str]:
    """Every entry under ``directory``: file bytes, or a symlink's target."""
    result: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(directory):
        for entry in dirnames + filenames:
            full = Path(dirpath, entry)
            key = str(full.relative_to(directory))
            if full.is_symlink():
                result[key] = "-> " + os.readlink(full)
            elif full.is_file():
                result[key] = full.read_bytes()
            else:
                result[key] = "<dir>"
    return result


# -- fs/read_text_file: lines ------------------------------------------------


@pytest.mark.parametrize("line", [None, 0, 1])
def test_read_line_absent_zero_and_one_mean_the_first_line(
    fence: PathFence, root: Path, line: int | None
) -> None:
    (root / "notes.txt").write_text("one\ntwo\nthree\n")
    assert read_text_file(fence, str(root / "notes.txt"), line=line) == "one\ntwo\nthree\n"
    assert read_text_file(fence, str(root / "notes.txt"), line=line, limit=1) == "one\n"


@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (2, 2, "two\nthree\n"),
        (2, None, "two\nthree\nfour"),
        (3, 100, "three\nfour"),
        (4, 1, "four"),
        (1, 0, ""),
        (2, 0, ""),
    ],
)
def test_read_limit_counts_lines(
    fence: PathFence, root: Path, line: int, limit: int | None, expected: str
) -> None:
    (root / "notes.txt").write_text("one\ntwo\nthree\nfour")
    assert read_text_file(fence, str(root / "notes.txt"), line=line, limit=limit) == expected


@pytest.mark.parametrize(
    ("raw", "line", "limit", "expected"),
    [
        (b"a\r\nb\r\nc\r\n", 2, 1, "b\r\n"),
        (b"a\r\nb\r\nc\r\n", None, None, "a\r\nb\r\nc\r\n"),
        (b"a\nb\r\nc\n\r\nd", 2, 3, "b\r\nc\n\r\n"),
        # A lone "\r" does not end a line: it stays inside its line.
        (b"a\rb\nc", 1, 1, "a\rb\n"),
        (b"a\rb\nc", 2, None, "c"),
        (b"x\r", 1, None, "x\r"),
    ],
)
def test_read_keeps_line_endings_exactly(
    fence: PathFence, root: Path, raw: bytes, line: int | None, limit: int | None, expected: str
) -> None:
    (root / "mixed.txt").write_bytes(raw)
    assert read_text_file(fence, str(root / "mixed.txt"), line=line, limit=limit) == expected


def test_read_start_past_the_end_names_the_line_and_the_count(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    (root / "notes.txt").write_text("one\ntwo\nthree\n")
    exc = expect_error(INVALID, read_text_file, fence, str(root / "notes.txt"), line=12)
    assert str(exc) == "line 12 is past the end of notes.txt (3 lines)"
    assert exc.data == {"path": "notes.txt", "line": 12, "lineCount": 3}
    exc = expect_error(INVALID, read_text_file, fence, str(root / "notes.txt"), line=4)
    assert "line 4" in str(exc)
    assert read_text_file(fence, str(root / "notes.txt"), line=3) == "three\n"


def test_read_empty_file(fence: PathFence, root: Path, expect_error: ExpectError) -> None:
    (root / "empty.txt").write_bytes(b"")
    assert read_text_file(fence, str(root / "empty.txt")) == ""
    assert read_text_file(fence, str(root / "empty.txt"), line=1, limit=5) == ""
    exc = expect_error(INVALID, read_text_file, fence, str(root / "empty.txt"), line=2)
    assert str(exc) == "line 2 is past the end of empty.txt (0 lines)"


def test_read_one_line_file_uses_singular(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    (root / "one.txt").write_text("only")
    exc = expect_error(INVALID, read_text_file, fence, str(root / "one.txt"), line=2)
    assert str(exc) == "line 2 is past the end of one.txt (1 line)"


@pytest.mark.parametrize(("line", "limit"), [(-1, None), (1, -1)])
def test_read_negative_line_or_limit_is_invalid(
    fence: PathFence, root: Path, expect_error: ExpectError, line: int, limit: int | None
) -> None:
    (root / "notes.txt").write_text("one\n")
    expect_error(INVALID, read_text_file, fence, str(root / "notes.txt"), line=line, limit=limit)


# -- sizes, encodings, kinds of file -----------------------------------------


def test_read_exactly_8_mib_is_allowed_and_one_more_byte_is_refused(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    assert MAX_TEXT_BYTES == 8 * 1024 * 1024
    (root / "big.txt").write_bytes(b"x" * MAX_TEXT_BYTES)
    assert len(read_text_file(fence, str(root / "big.txt"))) == MAX_TEXT_BYTES
    (root / "bigger.txt").write_bytes(b"x" * (MAX_TEXT_BYTES + 1))
    exc = expect_error(INVALID, read_text_file, fence, str(root / "bigger.txt"), line=1, limit=1)
    assert str(exc) == "file is larger than 8 MiB"
    assert exc.data == {"path": "bigger.txt", "size": MAX_TEXT_BYTES + 1, "limit": MAX_TEXT_BYTES}


def test_write_exactly_8_mib_is_allowed_and_one_more_byte_is_refused(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    write_text_file(fence, str(root / "big.txt"), "é" * (MAX_TEXT_BYTES // 2))
    assert (root / "big.txt").stat().st_size == MAX_TEXT_BYTES
    too_big = "é" * (MAX_TEXT_BYTES // 2) + "x"
    exc = expect_error(INVALID, write_text_file, fence, str(root / "bigger.txt"), too_big)
    assert str(exc) == "content is larger than 8 MiB"
    assert not (root / "bigger.txt").exists()
    assert sorted(p.name for p in root.iterdir()) == ["big.txt"]


def test_read_non_utf8_is_a_clear_error(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    (root / "notes.bin").write_bytes(b"ok\n\xff\xfe\x00")
    exc = expect_error(INVALID, read_text_file, fence, str(root / "notes.bin"))
    assert str(exc) == "notes.bin is not valid UTF-8 text"
    assert exc.data == {"path": "notes.bin", "offset": 3}


def test_write_lone_surrogate_is_invalid(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    expect_error(INVALID, write_text_file, fence, str(root / "x.txt"), "bad \ud800")
    assert not (root / "x.txt").exists()


def test_write_bytes_equal_the_utf8_encoding(fence: PathFence, root: Path) -> None:
    content = "\ufeffa\r\nb\nc\rd — ünïcödé 🎉\n\n"
    write_text_file(fence, str(root / "out.txt"), content)
    assert (root / "out.txt").read_bytes() == content.encode("utf-8")
    assert read_text_file(fence, str(root / "out.txt")) == content
    write_text_file(fence, str(root / "out.txt"), "")
    assert (root / "out.txt").read_bytes() == b""


def test_directory_as_path_is_invalid(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    (root / "src").mkdir()
    exc = expect_error(INVALID, read_text_file, fence, str(root / "src"))
    assert str(exc) == "src is a directory"
    exc = expect_error(INVALID, write_text_file, fence, str(root / "src"), "x")
    assert str(exc) == "src is a directory"
    assert (root / "src").is_dir()
    expect_error(INVALID, read_text_file, fence, str(root))
    expect_error(INVALID, write_text_file, fence, str(root), "x")


@posix_only
def test_fifo_is_refused_without_blocking(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    os.mkfifo(root / "pipe")
    exc = expect_error(INVALID, read_text_file, fence, str(root / "pipe"))
    assert str(exc) == "pipe is not a regular file"
    expect_error(INVALID, write_text_file, fence, str(root / "pipe"), "x")
    assert stat.S_ISFIFO((root / "pipe").lstat().st_mode)


def test_missing_file_is_not_found(fence: PathFence, root: Path, expect_error: ExpectError) -> None:
    exc = expect_error(NOT_FOUND, read_text_file, fence, str(root / "nope.txt"))
    assert str(exc) == "file not found: nope.txt"
    expect_error(NOT_FOUND, read_text_file, fence, str(root / "nope" / "deeper.txt"))
    (root / "file.txt").write_text("x")
    expect_error(NOT_FOUND, read_text_file, fence, str(root / "file.txt" / "below"))


def test_nul_in_path_is_invalid(fence: PathFence, root: Path, expect_error: ExpectError) -> None:
    expect_error(INVALID, read_text_file, fence, str(root / "a\0b"))
    expect_error(INVALID, write_text_file, fence, str(root / "a\0b"), "x")


# -- the fence ---------------------------------------------------------------


def test_absolute_path_outside_is_refused(
    fence: PathFence, outside: Path, expect_error: ExpectError
) -> None:
    before = snapshot(outside)
    exc = expect_error(INVALID, read_text_file, fence, str(outside / "secret.txt"))
    assert str(exc) == "path is outside the allowed roots"
    assert exc.data == {"path": "secret.txt"}
    expect_error(INVALID, write_text_file, fence, str(outside / "secret.txt"), "pwned")
    expect_error(INVALID, write_text_file, fence, str(outside / "new.txt"), "pwned")
    expect_error(INVALID, read_text_file, fence, "/")
    # Outside and missing looks the same as outside and present.
    expect_error(INVALID, read_text_file, fence, str(outside / "missing.txt"))
    assert snapshot(outside) == before


@pytest.mark.parametrize(
    "relative",
    ["../elsewhere/secret.txt", "sub/../../elsewhere/secret.txt", "./../elsewhere/new.txt"],
)
def test_dotdot_escape_is_refused(
    fence: PathFence, root: Path, outside: Path, expect_error: ExpectError, relative: str
) -> None:
    (root / "sub").mkdir()
    before = snapshot(outside)
    for path in (relative, str(root) + "/" + relative):
        expect_error(INVALID, read_text_file, fence, path)
        expect_error(INVALID, write_text_file, fence, path, "pwned")
        expect_error(INVALID, fence.resolve_dir, path.rsplit("/", 1)[0])
    assert snapshot(outside) == before


def test_dotdot_that_stays_inside_is_fine(fence: PathFence, root: Path) -> None:
    (root / "sub").mkdir()
    (root / "notes.txt").write_text("hi\n")
    assert read_text_file(fence, str(root / "sub" / ".." / "notes.txt")) == "hi\n"
    assert read_text_file(fence, "sub/../notes.txt") == "hi\n"


def test_sibling_with_common_string_prefix_is_outside(
    tmp_path: Path, expect_error: ExpectError
) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "bc").mkdir()
    (tmp_path / "a" / "bc" / "x.txt").write_text("sibling\n")
    fence = PathFence([tmp_path / "a" / "b"])
    with pytest.raises(RequestError) as info:
        read_text_file(fence, str(tmp_path / "a" / "bc" / "x.txt"))
    assert info.value.code == INVALID
    assert_no_absolute_path(info.value, tmp_path, fence)
    with pytest.raises(RequestError):
        write_text_file(fence, str(tmp_path / "a" / "bc" / "y.txt"), "x")
    with pytest.raises(RequestError):
        read_text_file(fence, "../bc/x.txt")
    assert not (tmp_path / "a" / "bc" / "y.txt").exists()


def test_relative_paths_hang_off_the_first_root(fence: PathFence, root: Path) -> None:
    (root / "src").mkdir()
    write_text_file(fence, "src/new.txt", "made\n")
    assert (root / "src" / "new.txt").read_text() == "made\n"
    assert read_text_file(fence, "src/new.txt") == "made\n"
    assert fence.resolve_read("./src/new.txt") == root.resolve() / "src" / "new.txt"


@posix_only
def test_symlink_inside_to_outside_file_is_refused(
    fence: PathFence, root: Path, outside: Path, expect_error: ExpectError
) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    before = snapshot(outside)
    exc = expect_error(INVALID, read_text_file, fence, str(root / "link.txt"))
    assert str(exc) == "path is outside the allowed roots"
    assert exc.data == {"path": "link.txt"}
    expect_error(INVALID, write_text_file, fence, str(root / "link.txt"), "pwned")
    assert snapshot(outside) == before
    assert (root / "link.txt").is_symlink()


@posix_only
def test_symlinked_parent_directory_pointing_outside_is_refused(
    fence: PathFence, root: Path, outside: Path, expect_error: ExpectError
) -> None:
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    expect_error(INVALID, read_text_file, fence, str(root / "linkdir" / "secret.txt"))
    expect_error(INVALID, write_text_file, fence, str(root / "linkdir" / "secret.txt"), "x")
    expect_error(INVALID, write_text_file, fence, str(root / "linkdir" / "new.txt"), "x")
    expect_error(INVALID, fence.resolve_dir, str(root / "linkdir"))
    assert snapshot(outside) == before


@posix_only
def test_symlink_inside_to_inside_write_lands_on_the_target(fence: PathFence, root: Path) -> None:
    (root / "real").mkdir()
    (root / "real" / "target.txt").write_text("old\n")
    (root / "alias.txt").symlink_to(Path("real") / "target.txt")
    (root / "aliasdir").symlink_to(root / "real", target_is_directory=True)
    assert read_text_file(fence, str(root / "alias.txt")) == "old\n"
    write_text_file(fence, str(root / "alias.txt"), "new\n")
    assert (root / "alias.txt").is_symlink()
    assert (root / "real" / "target.txt").read_text() == "new\n"
    write_text_file(fence, str(root / "aliasdir" / "other.txt"), "via dir\n")
    assert (root / "real" / "other.txt").read_text() == "via dir\n"
    assert fence.resolve_write(str(root / "alias.txt")) == root.resolve() / "real" / "target.txt"


@posix_only
def test_dangling_symlinks(
    fence: PathFence, root: Path, outside: Path, expect_error: ExpectError
) -> None:
    (root / "out.txt").symlink_to(outside / "created-by-agent.txt")
    before = snapshot(outside)
    expect_error(INVALID, write_text_file, fence, str(root / "out.txt"), "pwned")
    expect_error(INVALID, read_text_file, fence, str(root / "out.txt"))
    assert snapshot(outside) == before
    # A dangling link that stays inside creates its target.
    (root / "in.txt").symlink_to("later.txt")
    expect_error(NOT_FOUND, read_text_file, fence, str(root / "in.txt"))
    write_text_file(fence, str(root / "in.txt"), "now\n")
    assert (root / "in.txt").is_symlink()
    assert (root / "later.txt").read_text() == "now\n"


@posix_only
def test_symlink_loop_is_a_clean_error(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    (root / "self").symlink_to("self")
    for name in ("loop1", "self", "loop1/below.txt"):
        exc = expect_error(INVALID, read_text_file, fence, str(root / name))
        assert "symlink loop" in str(exc)
        expect_error(INVALID, write_text_file, fence, str(root / name), "x")
        expect_error(INVALID, fence.resolve_dir, str(root / name))
    expect_error(INVALID, write_text_file, fence, str(root / "missing" / ".." / "self"), "x")
    assert (root / "self").is_symlink()
    assert sorted(p.name for p in root.iterdir()) == ["loop1", "loop2", "self"]


def test_parent_directory_must_exist(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    (root / "src").mkdir()
    exc = expect_error(INVALID, write_text_file, fence, str(root / "src/missing/x.txt"), "x")
    assert str(exc) == "parent directory does not exist: src/missing"
    assert not (root / "src" / "missing").exists()
    (root / "file.txt").write_text("x")
    exc = expect_error(INVALID, write_text_file, fence, str(root / "file.txt/x.txt"), "x")
    assert str(exc) == "parent is not a directory: file.txt"


# -- atomic writes -----------------------------------------------------------


@posix_only
def test_write_keeps_the_existing_mode(fence: PathFence, root: Path) -> None:
    target = root / "script.sh"
    target.write_text("old\n")
    target.chmod(0o640)
    write_text_file(fence, str(target), "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    target.chmod(0o755)
    write_text_file(fence, str(target), "newer\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert target.read_text() == "newer\n"


@posix_only
def test_new_file_gets_the_default_mode(fence: PathFence, root: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    write_text_file(fence, str(root / "new.txt"), "x")
    assert stat.S_IMODE((root / "new.txt").stat().st_mode) == 0o666 & ~umask


@posix_only
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write anyway")
def test_read_only_file_is_not_replaced(
    fence: PathFence, root: Path, expect_error: ExpectError
) -> None:
    target = root / "locked.txt"
    target.write_text("keep\n")
    target.chmod(0o444)
    expect_error(INTERNAL, write_text_file, fence, str(target), "x")
    assert target.read_text() == "keep\n"


def test_no_temp_files_left_behind(fence: PathFence, root: Path, expect_error: ExpectError) -> None:
    (root / "src").mkdir()
    for i in range(5):
        write_text_file(fence, str(root / "src" / "a.txt"), f"version {i}\n")
    write_text_file(fence, str(root / "src" / "b.txt"), "b")
    expect_error(INVALID, write_text_file, fence, str(root / "src"), "x")
    expect_error(
        INVALID, write_text_file, fence, str(root / "src/b.txt"), "x" * (MAX_TEXT_BYTES + 1)
    )
    assert sorted(p.name for p in (root / "src").iterdir()) == ["a.txt", "b.txt"]
    assert sorted(p.name for p in root.iterdir()) == ["src"]
    assert (root / "src" / "a.txt").read_text() == "version 4\n"
    assert (root / "src" / "b.txt").read_text() == "b"


# -- roots, resolve_dir, describe --------------------------------------------


def test_multiple_roots(tmp_path: Path, root: Path, outside: Path) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    (extra / "mod.py").write_text("x = 1\n")
    fence = PathFence([root, extra])
    assert list(fence.roots) == [root.resolve(), extra.resolve()]
    assert read_text_file(fence, str(extra / "mod.py")) == "x = 1\n"
    write_text_file(fence, str(extra / "new.py"), "y = 2\n")
    assert (extra / "new.py").read_text() == "y = 2\n"
    assert fence.describe(extra / "mod.py") == "mod.py"
    with pytest.raises(RequestError) as info:
        read_text_file(fence, str(outside / "secret.txt"))
    assert_no_absolute_path(info.value, tmp_path, fence)
    fence.add_root(outside)
    fence.add_root(str(outside))  # no duplicates
    assert list(fence.roots) == [root.resolve(), extra.resolve(), outside.resolve()]
    assert read_text_file(fence, str(outside / "secret.txt")) == "top secret\n"


def test_a_fence_needs_a_root() -> None:
    with pytest.raises(ValueError):
        PathFence([])


@posix_only
def test_roots_are_real_paths(tmp_path: Path, root: Path) -> None:
    (tmp_path / "rootlink").symlink_to(root, target_is_directory=True)
    fence = PathFence([tmp_path / "rootlink"])
    assert fence.roots == (root.resolve(),)
    (root / "a.txt").write_text("a")
    assert read_text_file(fence, str(tmp_path / "rootlink" / "a.txt")) == "a"
    assert read_text_file(fence, str(root / "a.txt")) == "a"
    assert fence.describe(tmp_path / "rootlink" / "a.txt") == "a.txt"


def test_resolve_dir(
    fence: PathFence, root: Path, outside: Path, expect_error: ExpectError
) -> None:
    (root / "src").mkdir()
    (root / "file.txt").write_text("x")
    assert fence.resolve_dir(None) == root.resolve()
    assert fence.resolve_dir(str(root / "src")) == root.resolve() / "src"
    assert fence.resolve_dir("src") == root.resolve() / "src"
    assert fence.resolve_dir(".") == root.resolve()
    exc = expect_error(INVALID, fence.resolve_dir, str(root / "file.txt"))
    assert str(exc) == "file.txt is not a directory"
    exc = expect_error(NOT_FOUND, fence.resolve_dir, str(root / "gone"))
    assert str(exc) == "directory not found: gone"
    expect_error(INVALID, fence.resolve_dir, str(outside))
    expect_error(INVALID, fence.resolve_dir, "..")


def test_vanished_first_root(tmp_path: Path, expect_error: ExpectError) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    fence = PathFence([gone])
    gone.rmdir()
    with pytest.raises(RequestError) as info:
        fence.resolve_dir(None)
    assert info.value.code == NOT_FOUND
    assert str(info.value) == "directory not found: ."
    with pytest.raises(RequestError) as info:
        write_text_file(fence, str(gone), "x")
    assert info.value.code == INVALID
    assert not gone.exists()


def test_describe_never_gives_an_absolute_path(fence: PathFence, root: Path, outside: Path) -> None:
    assert fence.describe(root / "src" / "a.py") == "src/a.py"
    assert fence.describe(str(root / "src" / "a.py")) == "src/a.py"
    assert fence.describe("src/a.py") == "src/a.py"
    assert fence.describe(root) == "."
    assert fence.describe(outside / "secret.txt") == "secret.txt"
    assert fence.describe("../elsewhere/secret.txt") == "../elsewhere/secret.txt"
    assert not os.path.isabs(fence.describe("/"))
