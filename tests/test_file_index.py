"""The ``@`` file index: listing (git and walked trees, .gitignore) and fuzzy ranking."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.core.prompting.file_index import FileIndex, score_path
from acp_tui.core.prompting.file_listing import SKIP_DIRS, is_ignored, list_paths, parse_gitignore
from tests.checkpoint_helpers import project_git

HAS_GIT = shutil.which("git") is not None
needs_git = pytest.mark.skipif(not HAS_GIT, reason="git is not installed")


def make_tree(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


def built(root: Path, **kwargs: float) -> FileIndex:
    index = FileIndex(root, **kwargs)  # type: ignore[arg-type]
    index.build()
    return index


def ranked(index: FileIndex, query: str) -> list[str]:
    return [match.path for match in index.search(query)]


# ----------------------------------------------------------------- walked trees


IGNORE_TREE = {
    ".gitignore": "\n".join(
        [
            "# comment",
            "*.log",
            "!keep.log",
            "build/",
            "/top_only.txt",
            "**/gen",
            "docs/**/draft.md",
            "secret",
            "",
        ]
    ),
    "keep.log": "",
    "app.log": "",
    "top_only.txt": "",
    "src/top_only.txt": "",
    "src/main.py": "",
    "src/deep/x.log": "",
    "build/out.bin": "",
    "src/build/out.bin": "",
    "src/build.py": "",
    "a/b/gen/file.c": "",
    "docs/draft.md": "",
    "docs/v1/old/draft.md": "",
    "docs/readme.md": "",
    "secret": "",
    "src/secret/x.txt": "",
    "sub/.gitignore": "local.txt\n/only_here.txt\n!app.log\n",
    "sub/local.txt": "",
    "sub/only_here.txt": "",
    "sub/inner/only_here.txt": "",
    "sub/inner/local.txt": "",
    "sub/app.log": "",
    "node_modules/pkg/index.js": "",
    ".venv/lib/site.py": "",
    "src/__pycache__/main.cpython.pyc": "",
    ".hidden/config": "",
}


def test_walk_honours_gitignore_files_and_skips_heavy_dirs(tmp_path: Path) -> None:
    make_tree(tmp_path, IGNORE_TREE)
    listing = list_paths(tmp_path)
    assert listing.source == "walk" and not listing.truncated
    assert sorted(listing.paths) == sorted(
        [
            ".gitignore",
            ".hidden/",
            ".hidden/config",
            "a/",
            "a/b/",
            "docs/",
            "docs/readme.md",
            "docs/v1/",
            "docs/v1/old/",
            "keep.log",  # re-included by !keep.log
            "src/",
            "src/build.py",  # build/ matches directories only
            "src/deep/",
            "src/main.py",
            "src/top_only.txt",  # /top_only.txt is anchored to the top
            "sub/",
            "sub/.gitignore",
            "sub/app.log",  # re-included by the nested .gitignore
            "sub/inner/",
            "sub/inner/only_here.txt",  # /only_here.txt is anchored to sub/
        ]
    )


def test_the_walk_does_not_follow_symlinked_directories(tmp_path: Path) -> None:
    make_tree(tmp_path, {"real/file.txt": ""})
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "link.txt").symlink_to(tmp_path / "real" / "file.txt")
    assert sorted(list_paths(tmp_path).paths) == ["link.txt", "loop", "real/", "real/file.txt"]


def test_undecodable_names_are_left_out(tmp_path: Path) -> None:
    make_tree(tmp_path, {"good.txt": ""})
    try:
        with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.txt"), "wb"):
            pass
    except (OSError, ValueError):
        pytest.skip("this file system refuses non-UTF-8 names")
    assert list_paths(tmp_path).paths == ["good.txt"]


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "ignored"),
    [
        ("*.py", "a/b/c.py", False, True),
        ("*.py", "a/b/c.pyc", False, False),
        ("c?.txt", "x/c1.txt", False, True),
        ("[ab].txt", "b.txt", False, True),
        ("[!ab].txt", "b.txt", False, False),
        ("out/", "x/out", True, True),
        ("out/", "x/out", False, False),
        ("/out", "out", False, True),
        ("/out", "x/out", False, False),
        ("a/b", "a/b", False, True),
        ("a/b", "x/a/b", False, False),
        ("**/lib", "x/y/lib", True, True),
        ("lib/**", "lib/x/y.c", False, True),
        ("a/**/z", "a/z", False, True),
        ("a/**/z", "a/b/c/z", False, True),
        ("\\#hash", "#hash", False, True),
        ("\\!bang", "!bang", False, True),
    ],
)
def test_gitignore_patterns(pattern: str, path: str, is_dir: bool, ignored: bool) -> None:
    levels = (("", tuple(parse_gitignore(pattern))),)
    assert is_ignored(levels, path, is_dir) is ignored


def test_last_matching_line_wins_and_deeper_files_override() -> None:
    top = tuple(parse_gitignore("*.txt\n!keep.txt\n"))
    assert is_ignored((("", top),), "x.txt", False)
    assert not is_ignored((("", top),), "keep.txt", False)
    nested = tuple(parse_gitignore("!x.txt\n"))
    assert not is_ignored((("", top), ("sub", nested)), "sub/x.txt", False)
    assert is_ignored((("", top), ("sub", nested)), "other/x.txt", False)
    assert parse_gitignore("# only a comment\n\n   \n") == []


def test_the_cap_truncates_the_listing(tmp_path: Path) -> None:
    make_tree(tmp_path, {f"f{i:02}.txt": "" for i in range(30)})
    index = built(tmp_path, cap=10)
    assert len(index) == 10 and index.truncated


def test_skip_dirs_are_the_documented_ones() -> None:
    assert {".git", "node_modules", ".venv", "__pycache__"} <= SKIP_DIRS


# ----------------------------------------------------------------- git trees


@needs_git
def test_git_tree_uses_ls_files(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n",
            "tracked.py": "",
            "src/app.py": "",
            "src/gone.py": "",
            "untracked.txt": "",
            "debug.log": "",
            "build/out.bin": "",
            "sub/.gitignore": "private.txt\n",
            "sub/private.txt": "",
            "sub/public.txt": "",
        },
    )
    project_git(tmp_path, "init", "-q")
    project_git(tmp_path, "add", ".gitignore", "tracked.py", "src")
    project_git(tmp_path, "commit", "-q", "-m", "init")
    (tmp_path / "src" / "gone.py").unlink()  # deleted from the work tree, still in the index
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("untracked.txt\n")
    listing = list_paths(tmp_path)
    assert listing.source == "git"
    assert sorted(listing.paths) == [
        ".gitignore",
        "src/",
        "src/app.py",
        "sub/",
        "sub/.gitignore",
        "sub/public.txt",
        "tracked.py",
    ]


@needs_git
def test_a_subfolder_of_a_repository_lists_relative_to_itself(tmp_path: Path) -> None:
    make_tree(tmp_path, {"top.txt": "", "pkg/mod.py": "", "pkg/inner/x.py": ""})
    project_git(tmp_path, "init", "-q")
    listing = list_paths(tmp_path / "pkg")
    assert listing.source == "git"
    assert sorted(listing.paths) == ["inner/", "inner/x.py", "mod.py"]


def test_without_git_a_repository_is_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tree(tmp_path, {".gitignore": "*.log\n", "a.py": "", "b.log": ""})
    (tmp_path / ".git").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    listing = list_paths(tmp_path)
    assert listing.source == "walk"
    assert sorted(listing.paths) == [".gitignore", "a.py"]


# ----------------------------------------------------------------- ranking


RANK_TREE = [
    "greet.py",
    "tests/test_greet.py",
    "src/greeting/util.py",
    "src/agreement.md",
    "g/r/e/x.txt",
    "app.py",
    "src/app/main.py",
    "src/mapping.py",
    "lib/application/config.py",
    "src/widgets/PromptInput.py",
    "src/widgets/prompt_input_test.py",
    "docs/promptinfo.md",
]


@pytest.fixture
def rank_index(tmp_path: Path) -> FileIndex:
    make_tree(tmp_path, dict.fromkeys(RANK_TREE, ""))
    return built(tmp_path)


def test_basename_and_consecutive_matches_rank_first(rank_index: FileIndex) -> None:
    got = ranked(rank_index, "gre")
    assert got[0] == "greet.py"  # basename prefix, shortest
    # a word start in the name beats the middle of a word
    assert got.index("tests/test_greet.py") < got.index("src/agreement.md")
    # consecutive letters beat scattered ones, even at segment starts
    assert got.index("src/greeting/util.py") < got.index("g/r/e/x.txt")


def test_segment_starts_beat_the_middle_of_a_word(rank_index: FileIndex) -> None:
    got = ranked(rank_index, "app")
    assert got[:2] == ["app.py", "src/app/"]
    assert got.index("src/app/main.py") < got.index("src/mapping.py")
    assert got.index("lib/application/config.py") < got.index("src/mapping.py")


def test_camel_case_and_word_boundaries(rank_index: FileIndex) -> None:
    got = ranked(rank_index, "pi")
    # P(rompt)I(nput) and prompt_i(nput) start words; "promptinfo" does not.
    assert set(got[:2]) == {"src/widgets/PromptInput.py", "src/widgets/prompt_input_test.py"}


def test_shorter_paths_win_ties_and_case_is_ignored(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a/readme.md": "", "readme.md": "", "b/c/readme.md": ""})
    index = built(tmp_path)
    assert ranked(index, "README")[:3] == ["readme.md", "a/readme.md", "b/c/readme.md"]


def test_non_matches_and_the_empty_query(rank_index: FileIndex) -> None:
    assert rank_index.search("zzz") == []
    assert score_path("xyz", "src/app.py") is None
    first = [m.path for m in rank_index.search("")][:4]
    assert first == ["g/", "g/r/", "lib/", "src/"]  # shortest first, then alphabetical


def test_match_positions_point_at_the_matched_characters(rank_index: FileIndex) -> None:
    match = rank_index.search("sam")[0]
    letters = "".join(match.path[p] for p in match.positions).lower()
    assert letters == "sam"
    scored = score_path("main", "src/app/main.py")
    assert scored is not None and scored.positions == (8, 9, 10, 11)


def test_directories_are_marked(rank_index: FileIndex) -> None:
    match = next(m for m in rank_index.search("src/app") if m.path == "src/app/")
    assert match.is_dir
    assert rank_index.contains("SRC/APP/MAIN.PY") and not rank_index.contains("nope.py")


def test_staleness_and_rebuild_pick_up_new_files(tmp_path: Path) -> None:
    make_tree(tmp_path, {"one.txt": ""})
    index = FileIndex(tmp_path, max_age=60)
    assert not index.ready and index.stale() and index.search("one") == []
    index.build()
    assert index.ready and not index.stale() and index.stale(now=10**9)
    (tmp_path / "two.txt").write_text("")
    assert ranked(index, "two") == []
    index.build()
    assert ranked(index, "two") == ["two.txt"]


def test_a_cancelled_index_never_builds(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.txt": ""})
    index = FileIndex(tmp_path)
    index.cancel()
    index.build()
    assert not index.ready and index.search("a") == []


def test_a_50k_file_tree_indexes_and_answers(tmp_path: Path) -> None:
    """Correctness at scale (timing is in bench/file_index.py)."""
    for d in range(100):
        folder = tmp_path / f"pkg{d:03}" / "module"
        folder.mkdir(parents=True)
        for f in range(500):
            (folder / f"file_{f:03}.py").touch()
    (tmp_path / "pkg042" / "module" / "needle_here.py").touch()
    index = built(tmp_path)
    assert len(index) == 50_000 + 1 + 200  # files, the needle, 100 pkg + 100 module dirs
    assert not index.truncated
    assert ranked(index, "needle")[0] == "pkg042/module/needle_here.py"
    assert ranked(index, "pkg099modfile499")[0] == "pkg099/module/file_499.py"
    assert len(index.search("file", limit=50)) == 50


def test_typing_a_query_gives_the_same_answers_as_asking_afresh(tmp_path: Path) -> None:
    """Each keystroke resumes the previous scan; the answers must not depend on it."""
    names = [
        f"{a}/{b}/{c}.py"
        for a in "abcdefghij"
        for b in ("core", "ui", "util")
        for c in ("render_widget", "token_view", "main", "widget_render", "view")
    ]
    make_tree(tmp_path, dict.fromkeys(names, ""))
    typed = built(tmp_path)
    for word in ("render", "a/core/tok", "wdgtrndr", "zz", "view"):
        for end in [*range(1, len(word) + 1), *range(len(word) - 1, 0, -1)]:
            fresh = FileIndex(tmp_path)
            fresh.build()
            assert typed.search(word[:end], 10) == fresh.search(word[:end], 10), word[:end]


def test_the_new_core_modules_load_no_ui() -> None:
    script = (
        "import sys\n"
        "import acp_tui.core.prompting.file_index, acp_tui.core.prompting.file_listing\n"
        "import acp_tui.core.prompting.mentions\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')"
        " or m.startswith('acp_tui.ui')))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
