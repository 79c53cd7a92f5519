"""Handing the memory of freed arrays back to the operating system."""

MALLOC_TRIM = []


def release_freed_memory():
    """Hand the heap memory freed so far back to the operating system (glibc's ``malloc_trim``; elsewhere a no-op).

    glibc keeps the memory of freed arrays for reuse, so without it the resident
    memory of a process stays at the high-water mark of the forests it has
    grown and dropped, even though they are on disk.
    """
    if not MALLOC_TRIM:
        try:
            import ctypes

            MALLOC_TRIM.append(ctypes.CDLL("libc.so.6").malloc_trim)
        except (OSError, AttributeError):
            MALLOC_TRIM.append(None)
    if MALLOC_TRIM[0] is not None:
        MALLOC_TRIM[0](0)
