"""The permalink manifest written by the Docusaurus plugin (`lectern-manifest.json`).

With it, citation links use the site's real permalinks and heading anchors instead of the ones
Lectern derives from file names, so custom slugs, plugins and i18n setups still link right.
"""

import json
from pathlib import Path

from pydantic import BaseModel, TypeAdapter, ValidationError

from backend.retrieval.models import Chunk


class ManifestHeading(BaseModel):
    text: str
    anchor: str


class ManifestEntry(BaseModel):
    id: str
    source: str  # relative to the docs folder
    permalink: str
    title: str = ""
    headings: list[ManifestHeading] = []

    def apply_anchor(self, chunk: Chunk) -> Chunk:
        """Uses the published anchor of the chunk's heading, matched by heading text."""
        for heading in self.headings:
            if heading.text.strip() == chunk.heading and chunk.heading:
                base = chunk.url.split("#", 1)[0]
                return chunk.model_copy(
                    update={"anchor": heading.anchor, "url": f"{base}#{heading.anchor}"}
                )
        return chunk


class Manifest:
    def __init__(self, entries: list[ManifestEntry]):
        self._by_source = {e.source.removeprefix("./"): e for e in entries}

    @classmethod
    def load(cls, path: Path) -> "Manifest":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(TypeAdapter(list[ManifestEntry]).validate_python(raw))
        except OSError as exc:
            raise ValueError(f"{path}: cannot read manifest ({exc.strerror})") from exc
        except (json.JSONDecodeError, ValidationError) as exc:
            raise ValueError(f"{path}: not a Lectern manifest: {exc}") from exc

    def entry(self, source_path: str) -> ManifestEntry | None:
        return self._by_source.get(source_path)
