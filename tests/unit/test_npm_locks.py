"""A fresh clone stays clean after `make demo` and `make test`: npm keeps the committed lock files
as they are, and the committed widget build is what its sources and lock file build."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WIDGET = ROOT / "widget"
# docs_site_plugin/example is left out: its plugin is a `file:..` dependency, which a copy of its
# lock file elsewhere cannot resolve (`make` installs it with `npm ci`, which never writes the lock).
LOCKED = ["widget", "tests/support/site-generators"]


@pytest.mark.parametrize("folder", LOCKED)
def test_npm_leaves_the_lock_file_as_committed(folder: str, tmp_path: Path) -> None:
    for name in ("package.json", "package-lock.json"):
        shutil.copy(ROOT / folder / name, tmp_path / name)
    subprocess.run(["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=300)
    rewritten = (tmp_path / "package-lock.json").read_text()
    assert rewritten == (ROOT / folder / "package-lock.json").read_text(), f"npm rewrites {folder}/package-lock.json"


def test_the_committed_widget_build_is_its_sources_built(tmp_path: Path) -> None:
    if not (WIDGET / "node_modules").is_dir():
        pytest.fail("widget/node_modules is missing: `make widget` installs it")
    copy = tmp_path / "widget"
    shutil.copytree(WIDGET, copy, ignore=shutil.ignore_patterns("node_modules", "dist", ".test-build"))
    (copy / "node_modules").symlink_to(WIDGET / "node_modules")
    subprocess.run(["npm", "run", "build"], cwd=copy, check=True, capture_output=True, timeout=300)
    built = sorted(str(path.relative_to(copy)) for path in (copy / "dist").rglob("*") if path.is_file())
    listed = subprocess.run(["git", "ls-files", "dist"], cwd=WIDGET, capture_output=True, text=True, check=True)
    assert built == sorted(listed.stdout.split())

    def committed(path: str) -> bytes:  # as staged: what the next commit holds
        return subprocess.run(["git", "show", f":widget/{path}"], cwd=ROOT, capture_output=True, check=True).stdout

    stale = [path for path in built if (copy / path).read_bytes() != committed(path)]
    assert stale == [], "run `make widget` and commit widget/dist"
