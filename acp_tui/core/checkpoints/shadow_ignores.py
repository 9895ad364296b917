"""The ignore rules a shadow repository cannot see: those outside its root.

A shadow repository's work tree is the session's root, so git reads the
``.gitignore`` files inside it by itself. When the root is a folder inside a
project's git work tree, the project also ignores files through its
``info/exclude`` and the ``.gitignore`` files of the folders above the root;
:func:`project_excludes` rewrites those for the shadow's ``info/exclude``.
The project's files are only read, never written, and no git runs on them.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path


def project_excludes(root: Path) -> str:
    """The project's ignore rules that git would apply under ``root`` but the
    shadow cannot see, rewritten relative to ``root``.

    When ``root`` is in a git work tree, that is the project's ``info/exclude``
    (of the common dir, for a linked work tree) and the ``.gitignore`` files of
    the folders above ``root`` up to the work tree's top. ``.gitignore`` files
    inside ``root`` need nothing: git reads them itself. A pattern without a
    slash applies at any depth and is kept; an anchored one is kept when its
    leading segments match the path from its folder down to ``root`` (the rest
    becomes anchored at ``root``); one that cannot match under ``root`` is
    dropped. Returned in git's precedence order (later lines win)."""
    found = _project_top(root)
    if found is None:
        return ""
    top, common_dir = found
    sections: list[str] = []
    sources = [(common_dir / "info" / "exclude", top)]
    folder = root.parent
    parents: list[Path] = []
    while top != root and (folder == top or top in folder.parents):
        parents.append(folder)
        folder = folder.parent
    sources += [(folder / ".gitignore", folder) for folder in reversed(parents)]
    for path, base in sources:
        try:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            continue
        prefix = root.relative_to(base).parts
        lines = [_rebase(line, prefix) for line in text.splitlines()]
        kept = [line for line in lines if line]
        if kept:
            sections.append(f"# from {path}\n" + "\n".join(kept) + "\n")
    return "".join(sections)


def _project_top(root: Path) -> tuple[Path, Path] | None:
    """The top of the git work tree holding ``root`` and its common git dir."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder, dot_git
        if dot_git.is_file():
            try:
                line = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            git_dir = (folder / line[len("gitdir:") :].strip()).resolve()
            try:
                common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
            except OSError:
                return folder, git_dir
            return folder, (git_dir / common).resolve()
    return None


def _rebase(line: str, prefix: tuple[str, ...]) -> str:
    """One ignore line from a folder ``prefix`` segments above the root,
    rewritten for the root; ``""`` when it cannot apply there."""
    if not line.strip() or line.startswith("#"):
        return ""
    if not prefix:
        return line
    negate = line.startswith("!")
    body = line[1:] if negate else line
    dir_only = body.endswith("/")
    body = body.rstrip("/")
    if "/" not in body:  # matches at any depth
        return line
    segments = body.lstrip("/").split("/")
    for depth, part in enumerate(prefix):
        if depth >= len(segments):
            return ""  # it names a folder above or at the root itself
        if segments[depth] == "**":
            rest = "/".join(segments[depth:])
            return ("!" if negate else "") + rest + ("/" if dir_only else "")
        if not fnmatch.fnmatchcase(part, segments[depth]):
            return ""
    rest = "/".join(segments[len(prefix) :])
    if not rest:
        return ""
    return ("!" if negate else "") + "/" + rest + ("/" if dir_only else "")
