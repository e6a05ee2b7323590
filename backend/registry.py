"""Several books on one server, each with its own readers and maintainers (LECTERN_BOOKS).

The registry is a TOML file, one table per book:

    [books.handbook]
    origins = ["https://handbook.example.com"]           # sites whose pages may ask it
    rate_limit = "30/hour"                               # questions per reader, this book only
    maintainer_token_sha256 = "9f86d0…"                  # sha256 of the book's console token
    reader_secret_env = "HANDBOOK_READER_SECRET"         # set: a private book (see below)

With a registry, the server answers only the books it lists. A browser may ask a book only
from one of its origins (else the server-wide LECTERN_CORS_ORIGINS). A book's maintainer token
opens the console for that book alone; LECTERN_ADMIN_TOKEN opens every book. A private book
answers only requests that carry a reader token its host site signed with the book's secret:

    token = f"{expires}.{hmac_sha256(secret, f'{book}.{expires}').hexdigest()}"

with `expires` a Unix time at most a day ahead (a page signs one when it is served: a token
that lives for years is a password that leaked), sent as the `X-Reader-Token` header (the
widget's `data-reader-token`). Secrets stay in the environment; the file holds only names and
hashes.
"""

import hashlib
import hmac
import os
import re
import time
import tomllib
from pathlib import Path

from limits import parse_many
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from backend.retrieval.index import BOOK_ID


class RegistryError(ValueError):
    """The registry file cannot be used (the server does not start; the message says why)."""


class BookPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    origins: list[str] = Field(default_factory=list)
    rate_limit: str | None = None  # questions per reader address on this book (chat and MCP alike)
    maintainer_token_sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    reader_secret_env: str | None = None

    @field_validator("rate_limit")
    @classmethod
    def a_rate(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_many(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a rate limit (e.g. '30/hour')") from None
        return value

    @property
    def private(self) -> bool:
        return self.reader_secret_env is not None

    def reader_secret(self) -> bytes:
        secret = os.environ.get(self.reader_secret_env or "", "")
        if not secret:
            raise RegistryError(f"the environment variable {self.reader_secret_env} (a reader secret) is not set")
        return secret.encode()

    def opened_by(self, token: str) -> bool:
        if self.maintainer_token_sha256 is None:
            return False
        return hmac.compare_digest(hashlib.sha256(token.encode()).hexdigest(), self.maintainer_token_sha256)


class Registry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    books: dict[str, BookPolicy]

    @field_validator("books")
    @classmethod
    def ids_are_book_ids(cls, books: dict[str, BookPolicy]) -> dict[str, BookPolicy]:
        for book in books:
            if not BOOK_ID.match(book):
                raise ValueError(f"{book!r} is not a book id (lower-case letters, digits, '-' or '_')")
        return books

    @classmethod
    def load(cls, path: Path) -> "Registry":
        try:
            registry = cls.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
        except OSError as exc:
            raise RegistryError(f"{path}: cannot read ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise RegistryError(f"{path}: not UTF-8 text") from None
        except tomllib.TOMLDecodeError as exc:
            raise RegistryError(f"{path}: not TOML ({exc})") from None
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise RegistryError(f"{path}: {where}: {error['msg']}") from None
        for book, policy in registry.books.items():
            if policy.private:  # a private book without its secret would refuse everyone
                try:
                    policy.reader_secret()
                except RegistryError as exc:
                    raise RegistryError(f"{path}: books.{book}: {exc}") from None
        return registry

    def origins(self) -> list[str]:
        return sorted({origin for policy in self.books.values() for origin in policy.origins})


_TOKEN = re.compile(r"[0-9]{1,12}\.[0-9a-f]{64}", re.ASCII)
READER_TOKEN_LIFETIME_S = 24 * 3600


def reader_token(secret: bytes, book: str, expires: int) -> str:
    """What a host site sends for a private book (see the module docstring)."""
    return f"{expires}.{hmac.new(secret, f'{book}.{expires}'.encode(), hashlib.sha256).hexdigest()}"


def reader_token_problem(token: str | None, secret: bytes, book: str) -> str | None:
    """Why `token` does not let a reader ask `book`, or None when it does."""
    if not token:
        return "This book is private: the site must send a reader token (X-Reader-Token)."
    if not _TOKEN.fullmatch(token):
        return "The reader token is not valid for this book."
    expires = token.partition(".")[0]
    if not hmac.compare_digest(token.encode(), reader_token(secret, book, int(expires)).encode()):
        return "The reader token is not valid for this book."
    if int(expires) < time.time():
        return "The reader token has expired: reload the page."
    if int(expires) > time.time() + READER_TOKEN_LIFETIME_S:
        return "The reader token expires more than a day ahead: the site must sign short-lived tokens."
    return None
