"""Ingest benchmark: cold ingest, unchanged re-ingest, one-page edit; wall time and peak RSS.

    python benchmarks/ingest_bench.py ../shared/corpora/physical-ai-book

Each phase runs `lectern ingest` in a fresh process (as a maintainer would), so model loading
is included; peak memory is the child's maximum resident set size.
"""

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_ingest(book_dir: Path, data_dir: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "backend", "ingest", str(book_dir), "--book", "bench",
         "--data-dir", str(data_dir), "--json"],
        check=True, capture_output=True, text=True,
    )
    return time.perf_counter() - started, json.loads(out.stdout)


def main(source: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / "book"
        shutil.copytree(source, book)  # a scratch copy, so the edit phase never touches the source
        data = Path(tmp) / "data"
        rows = []
        wall, report = run_ingest(book, data)
        rows.append(("cold ingest", wall, report))
        wall, report = run_ingest(book, data)
        rows.append(("re-ingest, unchanged", wall, report))
        page = next(p for p in sorted(book.rglob("*.md")) if p.stat().st_size > 5000)
        page.write_text(page.read_text() + "\n\n## Benchmark edit\n\nOne new paragraph.\n")
        wall, report = run_ingest(book, data)
        rows.append(("re-ingest, one page edited", wall, report))
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{'phase':28} {'wall s':>7} {'in-run s':>8} {'chunks':>6} {'embedded':>8}")
    for name, wall, report in rows:
        print(f"{name:28} {wall:7.1f} {report['seconds']:8.1f} {report['chunks']:6} {report['embedded']:8}")
    print(f"peak memory (largest child): {peak_mb:.0f} MB")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/corpora/physical-ai-book")
