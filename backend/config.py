"""Every setting Lectern reads, from the environment or a `.env` file (documented in .env.example)."""

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    # Only the documented names: `populate_by_name` would also read a variable named like a field
    # (`MODEL`, `BOOK`, `JUDGE`), which other programs set for their own ends.
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    data_dir: Path = Field(Path("data"), alias="LECTERN_DATA_DIR")
    book: str = Field("lectern-guide", alias="LECTERN_BOOK")

    embeddings: Literal["local", "cohere", "gemini"] = Field("local", alias="LECTERN_EMBEDDINGS")
    embedding_model_name: str | None = Field(None, alias="LECTERN_EMBEDDING_MODEL")
    cohere_base_url: str | None = Field(None, alias="COHERE_BASE_URL")
    gemini_base_url: str | None = Field(None, alias="GEMINI_BASE_URL")

    # Cohere Rerank orders the search's candidate windows: `auto` uses it when COHERE_API_KEY is set.
    rerank: Literal["auto", "cohere", "none"] = Field("auto", alias="LECTERN_RERANK")
    rerank_model: str | None = Field(None, alias="LECTERN_RERANK_MODEL")

    model: Literal["offline", "gemini", "openai", "openai-compatible"] = Field(
        "offline", alias="LECTERN_MODEL"
    )
    model_name: str | None = Field(None, alias="LECTERN_MODEL_NAME")
    llm_base_url: str | None = Field(None, alias="LECTERN_LLM_BASE_URL")
    llm_timeout_s: float = Field(30.0, alias="LECTERN_LLM_TIMEOUT")

    gemini_api_key: SecretStr | None = Field(None, alias="GEMINI_API_KEY")
    openai_api_key: SecretStr | None = Field(None, alias="OPENAI_API_KEY")
    cohere_api_key: SecretStr | None = Field(None, alias="COHERE_API_KEY")

    qdrant_url: str | None = Field(None, alias="QDRANT_URL")
    qdrant_api_key: SecretStr | None = Field(None, alias="QDRANT_API_KEY")

    database_url: str | None = Field(None, alias="DATABASE_URL")
    redis_url: str | None = Field(None, alias="REDIS_URL")
    # A Qdrant server or database that has not answered after this long counts as down: the
    # request gets its 503 (or the write is spooled) instead of waiting.
    dependency_timeout: float = Field(3.0, gt=0, alias="LECTERN_DEPENDENCY_TIMEOUT")
    # Redis answers rate-limit checks in about a millisecond when healthy; after this long the
    # limits fall back to this instance's memory until it answers again.
    redis_timeout: float = Field(0.25, gt=0, alias="LECTERN_REDIS_TIMEOUT")

    rate_limit: str = Field("100/hour", alias="LECTERN_RATE_LIMIT")
    rate_limit_per_address: str = Field("300/hour", alias="LECTERN_RATE_LIMIT_PER_ADDRESS")
    rate_limit_feedback: str = Field("60/hour", alias="LECTERN_RATE_LIMIT_FEEDBACK")
    rate_limit_search: str = Field("600/hour", alias="LECTERN_RATE_LIMIT_SEARCH")
    # Wrong maintainer tokens an address may send before the console refuses it for a while:
    # enough for a mistyped token, far too few to guess one.
    rate_limit_wrong_tokens: str = Field("10/minute", alias="LECTERN_RATE_LIMIT_WRONG_TOKENS")
    # Reverse proxies in front of the service that append the client's address to
    # X-Forwarded-For (1 on Railway, Fly or behind one nginx); 0 trusts no forwarded header.
    proxy_hops: int = Field(0, ge=0, le=10, alias="LECTERN_PROXY_HOPS")
    # The largest valid chat request (every field at its maximum, UTF-8) is under 0.75 MiB.
    max_body_bytes: int = Field(1024 * 1024, gt=0, alias="LECTERN_MAX_BODY_BYTES")
    # A source uploaded from the console (markdown, text, a PDF book).
    max_upload_bytes: int = Field(64 * 1024 * 1024, gt=0, alias="LECTERN_MAX_UPLOAD_BYTES")
    cors_origins: list[str] = Field(
        ["http://localhost:3000", "http://127.0.0.1:3000", "http://localhost:8000"],
        alias="LECTERN_CORS_ORIGINS",
    )
    top_k: int = Field(6, alias="LECTERN_TOP_K")
    # The answer judge (backend/grounding/judge.py): the packaged one, or one learned on your own
    # labelled questions with eval/train_judge.py.
    judge: Path | None = Field(None, alias="LECTERN_JUDGE")
    # `lectern serve --watch`: the book's folder, re-ingested in the serving process on change.
    watch: Path | None = Field(None, alias="LECTERN_WATCH")
    base_url: str = Field("", alias="LECTERN_BASE_URL")  # citation links' origin when watching
    layout: Literal["docusaurus", "mkdocs", "mdbook", "plain", "html"] | None = Field(
        None, alias="LECTERN_LAYOUT"
    )
    # Several books with their own origins, maintainer tokens and reader tokens (backend/registry.py).
    books_file: Path | None = Field(None, alias="LECTERN_BOOKS")
    # Opens the maintainer console (/admin) and its API (/api/admin/...); unset, both are off.
    admin_token: SecretStr | None = Field(None, alias="LECTERN_ADMIN_TOKEN")
    log_user_text: bool = Field(False, alias="LECTERN_LOG_USER_TEXT")

    @property
    def qdrant_path(self) -> Path:
        return self.data_dir / "qdrant"

    def sources_dir(self, book: str) -> Path:
        """Where the sources a maintainer uploads for a book live (backend/sources.py)."""
        return self.data_dir / "sources" / book

    def pdf_cache_dir(self, book: str) -> Path:
        """What reading the book's PDFs gave, kept so each document is read once."""
        return self.data_dir / "cache" / "pdf" / book

    def files_dir(self, book: str) -> Path:
        """Where a book's files served as they are (its PDFs) live."""
        return self.data_dir / "files" / book


@lru_cache
def get_settings() -> Settings:
    return Settings()
