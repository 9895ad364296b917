"""Find or install the real Claude ACP adapters for the end-to-end tests.

Stdlib only, so CI can run it before any venv exists:

    python3 tests/e2e/provision.py        # install what is missing, print versions

Each adapter lives in its own folder of the cache
(``$ACP_TUI_E2E_CACHE``, default ``~/.cache/acp-tui-e2e``), installed with
``npm install --no-audit --no-fund <package>@<minor>``; an installed copy of
the same minor version is reused as it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

NPM_INSTALL_TIMEOUT = 900.0


class ProvisionError(Exception):
    """An adapter could not be found or installed (the message says why)."""


def cache_root() -> Path:
    configured = os.environ.get("ACP_TUI_E2E_CACHE")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "acp-tui-e2e"


@dataclass(frozen=True)
class Adapter:
    #: The minor version line, also the test id: "0.23", "0.16".
    minor: str
    #: The npm package.
    package: str

    @property
    def short_name(self) -> str:
        return self.package.rsplit("/", 1)[-1]

    @property
    def folder(self) -> Path:
        return cache_root() / f"{self.short_name}-{self.minor}"

    @property
    def package_dir(self) -> Path:
        return self.folder / "node_modules" / self.package

    @property
    def entry(self) -> Path:
        return self.package_dir / "dist" / "index.js"

    def installed_version(self) -> str | None:
        """The installed version if it is usable and of our minor line."""
        try:
            meta = json.loads((self.package_dir / "package.json").read_text())
        except (OSError, ValueError):
            return None
        version = meta.get("version") if isinstance(meta, dict) else None
        if not isinstance(version, str) or not version.startswith(self.minor + "."):
            return None
        return version if self.entry.is_file() else None

    def ensure(self) -> str:
        """The installed version, installing it first when needed."""
        version = self.installed_version()
        if version is not None:
            return version
        npm = shutil.which("npm")
        if npm is None:
            raise ProvisionError("npm is not installed")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProvisionError(f"cannot make the cache folder {self.folder}: {exc}") from None
        with _locked(self.folder / ".install.lock"):
            version = self.installed_version()  # another process may have done it
            if version is not None:
                return version
            command = [
                npm,
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
                str(self.folder),
                f"{self.package}@{self.minor}",
            ]
            try:
                done = subprocess.run(
                    command,
                    capture_output=True,
                    text=True,
                    timeout=NPM_INSTALL_TIMEOUT,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise ProvisionError(f"npm install {self.package}@{self.minor} timed out") from None
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip()[-2000:]
                raise ProvisionError(
                    f"npm install {self.package}@{self.minor} failed "
                    f"(exit {done.returncode}): {tail}"
                )
        version = self.installed_version()
        if version is None:
            raise ProvisionError(
                f"npm installed {self.package}@{self.minor} but {self.entry} is missing"
            )
        return version


ADAPTERS: dict[str, Adapter] = {
    "0.23": Adapter("0.23", "@zed-industries/claude-agent-acp"),
    "0.16": Adapter("0.16", "@zed-industries/claude-code-acp"),
}


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    import fcntl  # POSIX only, like the tests that need this

    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def main() -> int:
    node = shutil.which("node")
    if node is None:
        print("provision: node is not installed", file=sys.stderr)
        return 1
    node_version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"node {node_version} ({node})")
    failed = False
    for adapter in ADAPTERS.values():
        try:
            version = adapter.ensure()
        except ProvisionError as exc:
            print(f"provision: {exc}", file=sys.stderr)
            failed = True
            continue
        print(f"{adapter.package} {version} ({adapter.entry})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
