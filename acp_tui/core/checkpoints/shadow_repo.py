"""A shadow git repository for one root folder: the plumbing under checkpoints.

Layout: ``<state>/<name>-<hash>/`` holds ``git/`` (the ``GIT_DIR``, with its
own ``index``), ``lock`` and ``root`` (the canonical root path, for people).
``<hash>`` is a digest of the canonical (``realpath``) root, so two sessions
on the same folder share one repository and one lock.

Every git process gets its own environment (:meth:`ShadowRepo.env`):

- ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_INDEX_FILE`` point at the shadow;
  every other inherited ``GIT_*`` variable is dropped (a ``GIT_DIR`` left by a
  hook, ``GIT_OBJECT_DIRECTORY``, ``GIT_CONFIG_PARAMETERS``…). The project's
  own ``.git`` is never opened by git: only its ``info/exclude`` is read, by
  Python (see :func:`project_excludes`).
- No system or global git config (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL``
  and, for git before 2.32, ``HOME``/``XDG_CONFIG_HOME`` pointing at an empty
  folder). The user's config could switch on hooks (``core.hooksPath``),
  ``core.fsmonitor`` (a daemon per work tree), ``core.autocrlf`` (bytes
  restored differently from what was recorded), ``filter.lfs`` (content
  replaced by pointers), ``commit.gpgSign`` (a pinentry prompt), ``gc.auto``
  (a repack in the middle of a turn). The shadow's own config (:data:`CONFIG`)
  says what we want instead.
- The one thing kept from the user's config is the global excludes file
  (``core.excludesFile``, default ``$XDG_CONFIG_HOME/git/ignore``), passed as
  ``-c core.excludesFile=…``: it holds editor swap files and the like, which a
  checkpoint must not record and a restore must not delete.
- ``$GIT_DIR/info/attributes`` unsets ``text``, ``eol``, ``filter``, ``ident``
  and ``working-tree-encoding`` for every path, whatever the project's
  ``.gitattributes`` say: a checkpoint records the bytes, and a restore writes
  the same bytes back.
- ``LC_ALL=C`` and ``GIT_LITERAL_PATHSPECS=1``: messages we can quote, and
  paths that are never globs.

All calls here are blocking; callers hold :meth:`ShadowRepo.lock` (a file
lock, :mod:`acp_tui.core.checkpoints.file_lock`) around any sequence that reads or writes
the index or the refs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.core.checkpoints.file_lock import LockTimeout, file_lock
from acp_tui.core.checkpoints.git_program import clean_environ, user_excludes_file
from acp_tui.core.checkpoints.shadow_ignores import project_excludes

GIT_TIMEOUT = 300.0
"""Seconds any one git process may take (the first checkpoint of a big tree
hashes every file)."""

LOCK_TIMEOUT = 120.0
"""Seconds a caller waits for another session's checkpoint on the same root."""

OBJECT_DIR_RACE = b"unable to create temporary file"
OBJECT_DIR_RACE_RETRIES = 3
"""git's words, and how many times a write is run again, when a concurrent
gc removed the objects folder it was writing into."""

REF_PREFIX = "refs/acp-tui/checkpoints/"

CONFIG = """\
[core]
\tautocrlf = false
\tsafecrlf = false
\tfsmonitor = false
\tuntrackedCache = true
\tpreloadIndex = true
\tlogAllRefUpdates = false
\tpackedRefsTimeout = 10000
\tsplitIndex = false
\tsparseCheckout = false
\tbare = false
[index]
\tversion = 4
[gc]
\tauto = 0
\tautoDetach = false
[commit]
\tgpgSign = false
[advice]
\tdetachedHead = false
[checkout]
\tworkers = 1
"""
"""Appended to the shadow's config at creation. ``untrackedCache`` (usable
with ``--untracked-files=all`` only when ``status.showUntrackedFiles`` says
``all`` too, since git 2.38: before, status walks every folder) and
``preloadIndex`` keep a checkpoint of an unchanged tree cheap; index version
4 makes the index smaller (path prefixes compressed); ``logAllRefUpdates``
off so a pruned checkpoint is not kept alive by a reflog; ``gc.auto`` off so
only :meth:`ShadowRepo.gc` packs, outside the turn."""

ATTRIBUTES = "* -text !eol -filter -ident -working-tree-encoding\n"


class GitError(Exception):
    """A git process failed, timed out, or could not be started."""


def default_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/acp-tui/checkpoints`` (default ``~/.local/state/…``)."""
    env = os.environ if env is None else env
    state_home = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "acp-tui" / "checkpoints"


def repo_dir_name(root: Path) -> str:
    """A readable, unique folder name for a canonical root path."""
    readable = re.sub(r"[^A-Za-z0-9._-]", "_", root.name)[:40].strip(".") or "root"
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:16]
    return f"{readable}-{digest}"


# -- the repository ----------------------------------------------------------------


@dataclass(frozen=True)
class RefRecord:
    """One checkpoint ref as listed: its id, commit, tree and message."""

    checkpoint_id: str
    commit: str
    tree: str
    message: str


@dataclass(frozen=True)
class RawChange:
    """One line of ``git diff-tree --raw``: a path and its two sides."""

    rel: str
    status: str
    """``A``, ``D``, ``M`` or ``T`` (type change), from old to new."""
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str


@dataclass(frozen=True)
class Status:
    """What ``git status`` found against the shadow's index."""

    changed: list[str]
    """Tracked paths whose work-tree side differs (modified, deleted, type)."""
    untracked: list[str]
    """Untracked, not ignored paths; a trailing ``/`` is a nested repository."""
    clean: bool
    """Nothing at all to report: the work tree, the index and ``HEAD`` agree."""


class ShadowRepo:
    """The shadow repository of one canonical root."""

    def __init__(self, root: Path, state_dir: Path, git: str) -> None:
        self.root = root
        self.dir = Path(os.path.abspath(state_dir)) / repo_dir_name(root)
        self.git_dir = self.dir / "git"
        self.index = self.git_dir / "index"
        self.gc_stamp = self.dir / "last-gc"  # its mtime: when gc last ran
        self.git = git
        self._env: dict[str, str] | None = None
        self._excludes_signature: str | None = None

    # -- environment and processes ----------------------------------------------

    def env(self) -> dict[str, str]:
        if self._env is None:
            home = self.dir / "home"
            self._env = {
                **clean_environ(),
                "GIT_DIR": str(self.git_dir),
                "GIT_WORK_TREE": str(self.root),
                "GIT_INDEX_FILE": str(self.index),
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull,
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "GIT_LITERAL_PATHSPECS": "1",
                "GIT_TERMINAL_PROMPT": "0",
                "GIT_AUTHOR_NAME": "acp-tui",
                "GIT_AUTHOR_EMAIL": "checkpoints@acp-tui.invalid",
                "GIT_COMMITTER_NAME": "acp-tui",
                "GIT_COMMITTER_EMAIL": "checkpoints@acp-tui.invalid",
                "LC_ALL": "C",
            }
        return self._env

    def run(
        self, *args: str, stdin: bytes | None = None, check: bool = True, cwd: Path | None = None
    ) -> bytes:
        """Run ``git ARGS`` in the shadow's environment; its stdout."""
        command = [self.git, "-c", f"core.hooksPath={self.dir / 'no-hooks'}"]
        excludes = user_excludes_file(self.git)
        if excludes is not None:
            command += ["-c", f"core.excludesFile={excludes}"]
        command += args
        for _attempt in range(OBJECT_DIR_RACE_RETRIES + 1):
            try:
                proc = subprocess.run(
                    command,
                    input=stdin,
                    capture_output=True,
                    env=self.env(),
                    cwd=cwd or self.root,
                    timeout=GIT_TIMEOUT,
                    stdin=None if stdin is not None else subprocess.DEVNULL,
                )
            except subprocess.TimeoutExpired as error:
                raise GitError(f"git {args[0]} took longer than {GIT_TIMEOUT:.0f} s") from error
            except OSError as error:
                raise GitError(f"git {args[0]} could not start: {error}") from error
            # A gc of another session (outside the lock, see gc) removes an empty
            # objects/xx folder just as this git makes it for a new object; the
            # write did nothing else, so it is run again.
            if proc.returncode == 0 or OBJECT_DIR_RACE not in proc.stderr:
                break
        if check and proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            tail = message[-1] if message else f"exit status {proc.returncode}"
            raise GitError(f"git {args[0]} failed: {tail}")
        return proc.stdout

    @contextlib.contextmanager
    def lock(self, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
        """Exclusive use of this shadow repository, across threads and processes.

        Inside the lock no other git process of ours runs on this repository,
        so an ``index.lock`` left by a killed git is stale and is removed."""
        self.dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.dir.mkdir(exist_ok=True, mode=0o700)  # copies of the user's files
        try:
            with file_lock(self.dir / "lock", timeout):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(str(self.index) + ".lock")
                yield
        except LockTimeout as error:
            raise GitError(
                f"another session's checkpoint of this folder still runs after {timeout:.0f} s"
            ) from error

    # -- creation -----------------------------------------------------------------

    def ensure(self) -> None:
        """Create the repository if needed (call inside the lock)."""
        if (self.dir / "ready").exists():
            return
        if self.git_dir.exists():  # a creation that did not finish: start again
            shutil.rmtree(self.git_dir)
        (self.dir / "home").mkdir(parents=True, exist_ok=True)
        (self.dir / "no-hooks").mkdir(exist_ok=True)
        self.run("init", "--quiet", "--template=", str(self.git_dir), cwd=self.dir)
        with open(self.git_dir / "config", "a", encoding="utf-8") as config:
            config.write(CONFIG)
        (self.git_dir / "info").mkdir(exist_ok=True)
        (self.git_dir / "info" / "attributes").write_text(ATTRIBUTES, encoding="utf-8")
        (self.git_dir / "info" / "exclude").write_text("", encoding="utf-8")
        (self.dir / "root").write_bytes(os.fsencode(self.root) + b"\n")
        self.gc_stamp.write_text(f"{time.time()}\n", encoding="utf-8")  # nothing to pack yet
        (self.dir / "ready").write_text("1\n", encoding="utf-8")

    def sync_excludes(self) -> bool:
        """Bring the shadow's ``info/exclude`` in line with the project's
        ignore rules that live outside the root; True when they changed."""
        text = project_excludes(self.root) + self._own_state_excluded()
        excludes = user_excludes_file(self.git)
        stamp = ""
        if excludes is not None:
            with contextlib.suppress(OSError):
                stat = os.stat(excludes)
                stamp = f"{excludes}:{stat.st_mtime_ns}:{stat.st_size}"
        data = (stamp + "\0" + text).encode("utf-8", "surrogateescape")
        signature = hashlib.sha256(data).hexdigest()
        stored = self.dir / "excludes-signature"
        if self._excludes_signature is None:
            with contextlib.suppress(OSError):
                self._excludes_signature = stored.read_text(encoding="utf-8").strip()
        if signature == self._excludes_signature:
            return False
        (self.git_dir / "info" / "exclude").write_bytes(text.encode("utf-8", "surrogateescape"))
        stored.write_text(signature + "\n", encoding="utf-8")
        self._excludes_signature = signature
        return True

    def _own_state_excluded(self) -> str:
        """An ignore rule for the checkpoints folder when it lies inside the
        root (a session in the home folder): it must never record itself."""
        state = Path(os.path.realpath(self.dir.parent))
        if self.root not in state.parents:
            return ""
        rel = state.relative_to(self.root).as_posix()
        return "# the checkpoints themselves\n/" + re.sub(r"([*?\[\\!#])", r"\\\1", rel) + "/\n"

    # -- reading the work tree ------------------------------------------------------

    def status(self) -> Status:
        """Tracked paths changed in the work tree and untracked ones, in one
        pass that also refreshes the index's stat cache (``git status`` writes
        the index when it can)."""
        out = self.run(
            "status",
            "--porcelain=v2",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=all",
        )
        changed: list[str] = []
        untracked: list[str] = []
        records = out.split(b"\0")
        for record in records:
            if not record:
                continue
            kind = record[:1]
            if kind == b"?":
                untracked.append(os.fsdecode(record[2:]))
            elif kind == b"1":
                fields = record.split(b" ", 8)
                if len(fields) == 9 and fields[1][1:2] != b".":
                    changed.append(os.fsdecode(fields[8]))
        return Status(changed, untracked, not any(records))

    def ignored_tracked(self) -> list[str]:
        """Paths in the index that the ignore rules now exclude."""
        out = self.run("ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
        return [os.fsdecode(path) for path in out.split(b"\0") if path]

    def update_index(self, paths: Sequence[str], *, force_remove: bool = False) -> None:
        """Add, update or (when missing from disk) drop ``paths`` in the index;
        with ``force_remove``, drop them whatever is on disk."""
        if not paths:
            return
        data = b"".join(os.fsencode(path) + b"\0" for path in paths)
        if force_remove:
            self.run("update-index", "-z", "--force-remove", "--stdin", stdin=data)
        else:
            self.run("update-index", "-z", "--add", "--remove", "--replace", "--stdin", stdin=data)

    def write_tree(self) -> str:
        return self.run("write-tree").decode().strip()

    # -- commits and refs ------------------------------------------------------------

    def commit(self, tree: str, message: str) -> str:
        return self.run("commit-tree", tree, stdin=message.encode("utf-8")).decode().strip()

    def set_ref(self, checkpoint_id: str, commit: str, tree: str) -> None:
        """Point the checkpoint's ref and the detached ``HEAD`` at ``commit``
        (``HEAD`` keeps ``git status``'s index-to-HEAD half short), and note
        ``HEAD``'s tree for :meth:`head_tree`."""
        data = f"update {REF_PREFIX}{checkpoint_id} {commit}\nupdate HEAD {commit}\n"
        self.run("update-ref", "--no-deref", "--stdin", stdin=data.encode())
        (self.dir / "head-tree").write_text(f"{commit} {tree}\n", encoding="ascii")

    def head_tree(self) -> str | None:
        """The tree of ``HEAD`` as :meth:`set_ref` noted it, if ``HEAD`` is still
        that commit (when :meth:`status` is clean, it is the index's tree too)."""
        try:
            commit, tree = (self.dir / "head-tree").read_text(encoding="ascii").split()
            head = (self.git_dir / "HEAD").read_text(encoding="ascii").strip()
        except (OSError, ValueError):
            return None
        return tree if head == commit else None

    def delete_refs(self, checkpoint_ids: Sequence[str]) -> None:
        if checkpoint_ids:
            data = "".join(f"delete {REF_PREFIX}{cid}\n" for cid in checkpoint_ids)
            self.run("update-ref", "--stdin", stdin=data.encode())

    def refs(self) -> list[RefRecord]:
        """Every checkpoint ref, oldest first (ids sort by creation time)."""
        if not (self.dir / "ready").exists():
            return []
        out = self.run(
            "for-each-ref",
            "--format=%(refname)%00%(objectname)%00%(tree)%00%(contents)%00",
            REF_PREFIX,
        )
        fields = out.split(b"\0")
        records: list[RefRecord] = []
        for start in range(0, len(fields) - 4, 4):
            name, commit, tree, message = fields[start : start + 4]
            records.append(
                RefRecord(
                    name.decode().strip()[len(REF_PREFIX) :],
                    commit.decode(),
                    tree.decode(),
                    message.decode("utf-8", "replace"),
                )
            )
        records.sort(key=lambda record: record.checkpoint_id)
        return records

    # -- comparing --------------------------------------------------------------------

    def diff(self, old: str, new: str, paths: Sequence[str] = ()) -> list[RawChange]:
        """The changes from tree-ish ``old`` to ``new``."""
        out = self.run("diff-tree", "-r", "-z", "--raw", "--no-renames", old, new, "--", *paths)
        return _parse_raw(out.split(b"\0"))[0]

    def numstat(self, old: str, new: str, paths: Sequence[str] = ()) -> dict[str, tuple[int, int]]:
        """Added and removed line counts per path; ``(-1, -1)`` for binary files."""
        out = self.run("diff-tree", "-r", "-z", "--numstat", "--no-renames", old, new, "--", *paths)
        counts: dict[str, tuple[int, int]] = {}
        for record in out.split(b"\0"):
            parts = record.split(b"\t", 2)
            if len(parts) == 3:
                added, removed, path = parts
                binary = added == b"-"
                counts[os.fsdecode(path)] = (-1, -1) if binary else (int(added), int(removed))
        return counts

    def diff_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[list[RawChange]]:
        """The changes for each ``(new_commit, old_commit)``, in one process."""
        if not pairs:
            return []
        data = "".join(f"{new} {old}\n" for new, old in pairs).encode()
        out = self.run("diff-tree", "--stdin", "-r", "-z", "--raw", "--no-renames", stdin=data)
        by_commit = _parse_raw(out.split(b"\0"))[1]
        return [by_commit.get(new, []) for new, _old in pairs]

    def patch(self, old: str, new: str, paths: Sequence[str], prefix: str) -> str:
        """A unified diff of ``old`` → ``new``, paths shown under ``prefix``."""
        out = self.run(
            "diff-tree",
            "-r",
            "-p",
            "--no-renames",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            f"--src-prefix=a/{prefix}",
            f"--dst-prefix=b/{prefix}",
            old,
            new,
            "--",
            *paths,
        )
        return out.decode("utf-8", "replace")

    def blobs(self, shas: Sequence[str]) -> dict[str, bytes]:
        """The contents of blobs, read in one ``git cat-file --batch``."""
        wanted = sorted(set(shas))
        if not wanted:
            return {}
        out = self.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in wanted).encode())
        contents: dict[str, bytes] = {}
        pos = 0
        while pos < len(out):
            end = out.index(b"\n", pos)
            header = out[pos:end].split(b" ")
            pos = end + 1
            if len(header) != 3:  # "<sha> missing"
                continue
            size = int(header[2])
            contents[header[0].decode()] = out[pos : pos + size]
            pos += size + 1
        return contents

    # -- writing the work tree -----------------------------------------------------------

    def checkout(self, commit: str, write: Sequence[str], remove: Sequence[str]) -> None:
        """Make the index and the work tree match ``commit`` at these paths:
        ``remove`` (absent there) first, then ``write``. Git does the writing:
        it never follows a symlink out of the work tree, replaces a symlinked
        folder by a real one, and drops the folders it empties. Two passes,
        because one checkout that turns a file into a folder (or back) trips on
        its own path list."""
        for paths, mode in ((remove, "--no-overlay"), (write, "--overlay")):
            if paths:
                data = b"".join(os.fsencode(path) + b"\0" for path in paths)
                self.run(
                    "checkout",
                    "--quiet",
                    mode,
                    commit,
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                    stdin=data,
                )

    # -- upkeep ---------------------------------------------------------------------------

    def gc(self, grace: str = "1.hour.ago") -> None:
        """Pack the objects and drop the unreachable ones older than ``grace``.

        Runs outside :meth:`lock` on purpose: objects a concurrent checkpoint is
        writing are newer than the grace period (git freshens an object it
        would have written again), the index and ``HEAD`` are reachability
        roots, and git's own lock files order the ref updates. The one thing it
        can break, an ``objects/xx`` folder removed as a write makes it, makes
        :meth:`run` run that write again."""
        try:
            self.run("gc", "--quiet", f"--prune={grace}")
        except GitError as error:
            if "gc is already running" not in str(error):  # another session's: it does the job
                raise


def _parse_raw(tokens: list[bytes]) -> tuple[list[RawChange], dict[str, list[RawChange]]]:
    """Parse ``--raw -z`` output; with ``--stdin``, grouped by commit header."""
    flat: list[RawChange] = []
    groups: dict[str, list[RawChange]] = {}
    current: list[RawChange] = flat
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.startswith(b":") and i + 1 < len(tokens):
            meta = token[1:].split(b" ")
            change = RawChange(
                os.fsdecode(tokens[i + 1]),
                meta[4].decode()[:1],
                meta[0].decode(),
                meta[1].decode(),
                meta[2].decode(),
                meta[3].decode(),
            )
            current.append(change)
            i += 2
            continue
        header = token.strip()
        if header:
            current = groups.setdefault(header.decode(), [])
        i += 1
    return flat, groups
