"""What can go wrong with the answer model, apart from the model itself: light to import, so
that commands which never answer (`lectern ingest`) need not load the agents SDK to name them."""


class ModelUnavailable(RuntimeError):
    """The answer model is rate-limited, down or too slow; `retry_after` is in seconds."""

    def __init__(self, message: str, *, rate_limited: bool = False, retry_after: int = 30):
        super().__init__(message)
        self.rate_limited = rate_limited
        self.retry_after = retry_after


class ConfigError(ValueError):
    """A model setting is missing or contradictory; the message says which."""
