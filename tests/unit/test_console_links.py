"""The console's links: its own safeUrl, run by Node as the browser runs it."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

CONSOLE = Path(__file__).resolve().parents[2] / "backend" / "api" / "console.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_the_console_links_only_to_the_web_and_its_own_site() -> None:
    function = re.search(r"^function safeUrl\(url\).*$", CONSOLE.read_text(encoding="utf-8"), re.MULTILINE)
    assert function is not None
    cases = {"/docs/a#s": "/docs/a#s", "https://docs.example.com/x": "https://docs.example.com/x",
             "//evil.example": "#", "/\\evil.example": "#", "/\t/evil.example": "#",
             "javascript:alert(1)": "#", "data:text/html,x": "#"}
    script = f"{function.group(0)}\nconsole.log(JSON.stringify({json.dumps(list(cases))}.map(safeUrl)))"
    shown = json.loads(subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout)
    assert dict(zip(cases, shown, strict=True)) == cases
