"""Lectern is configured by the variables .env.example documents, and by no other."""

from pathlib import Path

import pytest

from backend.config import Settings


def test_a_variable_named_like_a_setting_but_not_documented_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    for name in ("MODEL", "BOOK", "JUDGE", "DATA_DIR", "RERANK", "EMBEDDINGS"):
        monkeypatch.setenv(name, "set by another program")
    settings = Settings()
    assert (settings.model, settings.book, settings.judge) == ("offline", "lectern-guide", None)
    assert (settings.data_dir, settings.rerank, settings.embeddings) == (Path("data"), "auto", "local")
    monkeypatch.setenv("LECTERN_BOOK", "redux")
    monkeypatch.setenv("LECTERN_JUDGE", str(tmp_path / "judge.json"))
    assert (Settings().book, Settings().judge) == ("redux", tmp_path / "judge.json")
