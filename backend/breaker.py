"""A circuit breaker for a service Lectern depends on (a Qdrant server, the database).

A dependency that hangs costs every caller the full timeout; after one failure the breaker is
open and callers fail at once for `cooldown_s`, then a single caller probes the dependency while
the others keep failing fast, and its success closes the breaker again.
"""

import threading
import time

COOLDOWN_S = 5.0  # long enough to spare readers repeated timeouts, short enough to notice recovery


class Breaker:
    def __init__(self, cooldown_s: float = COOLDOWN_S):
        self.cooldown_s = cooldown_s
        self._opened_at: float | None = None
        self._lock = threading.Lock()  # callers come from the event loop and from worker threads

    @property
    def is_open(self) -> bool:
        return self._opened_at is not None

    def allow(self) -> bool:
        """Whether a call may go to the dependency now (the one probe, when the cooldown is over)."""
        with self._lock:
            if self._opened_at is None:
                return True
            if time.monotonic() - self._opened_at >= self.cooldown_s:
                self._opened_at = time.monotonic()  # this caller probes; the rest keep failing fast
                return True
            return False

    def failed(self) -> None:
        with self._lock:
            self._opened_at = time.monotonic()

    def succeeded(self) -> None:
        with self._lock:
            self._opened_at = None

    def retry_in(self) -> int:
        """Whole seconds until the next probe (for Retry-After)."""
        with self._lock:
            if self._opened_at is None:
                return 0
            return max(1, round(self.cooldown_s - (time.monotonic() - self._opened_at)))
