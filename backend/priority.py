"""Threads that give way: a serving process's ingest work (its thread, the embedder's threads)
runs at a lower scheduling priority than the threads answering readers."""

import os
import threading

NICENESS = 10  # what `nice` gives by default: the scheduler prefers every normal thread


def lower_priority() -> None:
    """The calling thread gives way to the rest of the process. Linux schedules each thread on
    its own; elsewhere this would lower the whole process, so it is left alone."""
    if os.uname().sysname == "Linux":
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)
