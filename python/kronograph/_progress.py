"""The optional progress bar: ``progress=True`` (tqdm when installed, else a
line on standard error) or a callable ``f(done, total)``."""

import sys


def callback(progress, desc="pairs"):
    """A ``(done, total)`` callable for the native code, and a closer; ``(None, None)`` when off."""
    if not progress:
        return None, None
    if callable(progress):
        return progress, None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    state = {"bar": None, "last": 0}

    def update(done, total):
        if tqdm is not None:
            if state["bar"] is None:
                state["bar"] = tqdm(total=total, desc=desc)
            state["bar"].update(done - state["last"])
            state["last"] = done
        else:
            sys.stderr.write(f"\r{desc}: {done}/{total} ({100.0 * done / max(total, 1):.0f}%)")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    def close():
        if state["bar"] is not None:
            state["bar"].close()

    return update, close
