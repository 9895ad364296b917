"""Property: whatever the symlinks and the path, the fence holds and errors leak no path.

Each example builds a fresh tree (``tempfile.TemporaryDirectory`` — hypothesis
reuses function-scoped fixtures such as ``tmp_path`` across examples)::

    base/root/   f0.txt f1.txt d/ d/g.txt  + links l0 l1 d/l2   (the only allow-root)
    base/out/    s.txt od/ od/t.txt        + links o0 o1
    base/rootx/  z.txt                     (a sibling: "root" is a string prefix of it)

Links point at files, directories, missing names, other links (chains, loops,
themselves), inside or outside, by relative or absolute target.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from hypothesis import event, given, settings
from hypothesis import strategies as st

from acp_tui.core.capabilities.fs import PathFence, read_text_file, write_text_file

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks")

# Where each link lives, relative to base.
LINKS = ["root/l0", "root/l1", "root/d/l2", "out/o0", "out/o1"]
# What a link may point at, relative to base ("" is base itself).
PLACES = [
    "",
    "root",
    "out",
    "root/f0.txt",
    "root/d",
    "root/d/g.txt",
    "root/missing.txt",
    "root/nodir/x.txt",
    "root/l0/x",
    "out/s.txt",
    "out/od",
    "out/od/t.txt",
    "out/gone.txt",
    "out/nodir/y.txt",
    "rootx",
    "rootx/z.txt",
    *LINKS,
]
COMPONENTS = [
    "..",
    ".",
    "",
    "root",
    "out",
    "f0.txt",
    "f1.txt",
    "d",
    "g.txt",
    "l0",
    "l1",
    "l2",
    "o0",
    "o1",
    "s.txt",
    "od",
    "t.txt",
    "missing.txt",
    "new.txt",
    "rootx",
    "z.txt",
]
PREFIXES = ["relative", "relative", "root", "root", "out", "base", "filesystem"]
ERROR_CODES = {-32002, -32602, -32603}

link_target = st.none() | st.tuples(st.sampled_from(PLACES), st.booleans())
links_strategy = st.fixed_dictionaries({link: link_target for link in LINKS})
# Random walks over the components, and every place (each link included) with a short tail.
random_path = st.tuples(
    st.sampled_from(PREFIXES), st.lists(st.sampled_from(COMPONENTS), max_size=5)
)
direct_path = st.tuples(
    st.just("base"),
    st.builds(
        lambda place, tail: [*place.split("/"), *tail],
        st.sampled_from(PLACES),
        st.lists(st.sampled_from(["..", "g.txt", "s.txt", "new.txt", "x"]), max_size=2),
    ),
)
path_strategy = direct_path | random_path


def build_tree(base: Path, links: dict[str, tuple[str, bool] | None]) -> None:
    for directory in ("root/d", "out/od", "rootx"):
        (base / directory).mkdir(parents=True)
    for name, text in {
        "root/f0.txt": "zero\n",
        "root/f1.txt": "one\r\ntwo\n",
        "root/d/g.txt": "gee",
        "out/s.txt": "secret\n",
        "out/od/t.txt": "tee\n",
        "rootx/z.txt": "sibling with the root's name as a string prefix\n",
    }.items():
        (base / name).write_text(text)
    for link, target in links.items():
        if target is None:
            continue
        place, absolute = target
        target_path = base / place
        where = base / link
        spelled = str(target_path) if absolute else os.path.relpath(target_path, where.parent)
        where.symlink_to(spelled)


def spell(base: Path, prefix: str, components: list[str]) -> str:
    tail = "/".join(components)
    heads = {"root": base / "root", "out": base / "out", "base": base}
    if prefix == "relative":
        return tail
    if prefix == "filesystem":
        return "/" + tail
    return f"{heads[prefix]}/{tail}"


def snapshot_outside(base: Path) -> dict[str, bytes | str]:
    """Every entry under ``base`` except the root's subtree (links by target, not followed)."""
    result: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(base):
        if Path(dirpath) == base:
            dirnames.remove("root")
            filenames = [*filenames, "root"]  # record the root entry itself, not its content
        for entry in dirnames + filenames:
            full = Path(dirpath, entry)
            key = str(full.relative_to(base))
            if full.is_symlink():
                result[key] = "-> " + os.readlink(full)
            elif full.is_file():
                result[key] = full.read_bytes()
            else:
                result[key] = "<dir>"
    return result


def inside(path: str | Path, root: Path) -> bool:
    parts = Path(os.path.realpath(path)).parts
    return parts[: len(root.parts)] == root.parts


def check_error(exc: RequestError, base: Path) -> None:
    assert exc.code in ERROR_CODES, (exc.code, str(exc))
    text = f"{exc} {exc.data!r}"
    for absolute in {str(base), os.path.realpath(base), str(base / "root"), str(base / "out")}:
        assert absolute not in text, text
    for candidate in {base, Path(os.path.realpath(base))}:
        prefix = re.escape("/" + candidate.parts[1])
        assert not re.search(rf"(^|[\s'\"(:=]){prefix}(/|$|[\s'\")])", text), text


_FAILED = object()


def attempt(label: str, fn: Callable[..., Any], *args: Any, base: Path) -> Any:
    """``fn(*args)``, or ``_FAILED`` after checking the RequestError it raised."""
    try:
        result = fn(*args)
    except RequestError as exc:
        check_error(exc, base)
        event(f"{label}: {exc.code}")
        return _FAILED
    event(f"{label}: ok")
    return result


@settings(derandomize=True, max_examples=300, deadline=None)
@given(links=links_strategy, paths=st.lists(path_strategy, min_size=1, max_size=4))
def test_fence_holds_for_any_links_and_paths(
    links: dict[str, tuple[str, bool] | None], paths: list[tuple[str, list[str]]]
) -> None:
    with tempfile.TemporaryDirectory() as temp:
        base = Path(os.path.realpath(temp))
        build_tree(base, links)
        root = base / "root"
        fence = PathFence([root])
        assert fence.roots == (root,)
        before = snapshot_outside(base)

        for prefix, components in paths:
            path = spell(base, prefix, components)

            resolved = attempt("resolve_read", fence.resolve_read, path, base=base)
            if resolved is not _FAILED:
                assert inside(resolved, root), path
                assert resolved.is_file(), path

            resolved = attempt("resolve_write", fence.resolve_write, path, base=base)
            if resolved is not _FAILED:
                assert inside(resolved, root), path
                assert inside(resolved.parent, root), path

            resolved = attempt("resolve_dir", fence.resolve_dir, path, base=base)
            if resolved is not _FAILED:
                assert inside(resolved, root), path
                assert resolved.is_dir(), path

            if attempt("read", read_text_file, fence, path, base=base) is not _FAILED:
                assert inside(fence.resolve_read(path), root), path

            if prefix == "filesystem":
                continue  # never risk writing outside the temp dir if the fence were broken
            payload = f"written via {path!r}\n"
            if attempt("write", write_text_file, fence, path, payload, base=base) is _FAILED:
                continue
            target = fence.resolve_write(path)
            assert inside(target, root), path
            assert target.read_text() == payload

        assert snapshot_outside(base) == before
        leftovers = [p for p in root.rglob("*.tmp") if p.name.startswith(".")]
        assert leftovers == []
