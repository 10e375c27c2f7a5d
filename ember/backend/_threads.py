"""The BLAS thread pool behind ``ember.set_num_threads`` / ``get_num_threads``.

NumPy's (and SciPy's) GEMMs and LAPACK calls run in the BLAS library's own thread pool: that is
the only intra-op parallelism ember has, so the thread count torch reports is that pool's size.
threadpoolctl reads and sets it for every BLAS library loaded in the process; it is imported
inside the functions (not at ``import ember``: scanning the loaded libraries costs milliseconds).
"""

from __future__ import annotations

import os


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


# torch runs its own loops (FFTs, conversions) on its intra-op pool, one thread per usable core;
# ember's counterpart for the loops it hands out itself (SciPy's FFT ``workers``)
_DEFAULT_WORKERS = max(1, min(_usable_cores(), 16))


def workers() -> int:
    """Threads for ember's own parallel loops: the count ``set_num_threads`` set, else one per
    usable core (at most 16)."""
    return requested or _DEFAULT_WORKERS


def _is_scipys_own(filepath: str) -> bool:
    """Whether the BLAS library at ``filepath`` is the one SciPy's wheel ships for itself,
    apart from NumPy's."""
    return "scipy.libs" in filepath.replace("\\", "/")


def blas_num_threads() -> int:
    """The thread count of NumPy's BLAS library (the first one else; 1 when none reports)."""
    from threadpoolctl import threadpool_info

    infos = [info for info in threadpool_info() if info["user_api"] == "blas"]
    main = [info for info in infos if not _is_scipys_own(info["filepath"])] or infos
    return main[0]["num_threads"] if main else 1


_scipy_blas_done = False


def scipy_blas_single_threaded() -> None:
    """Keep SciPy's own copy of OpenBLAS (its wheels ship one beside NumPy's) at one thread.

    ember's SciPy BLAS/LAPACK calls are per-matrix and small (a trsm or getrf per batch entry);
    the large products run in NumPy's BLAS. Two OpenBLAS pools on the same cores each keep
    their threads spinning after a call, and a step that alternates them runs several times
    slower (the bench ``linalg`` step: 162 ms with both at 2 threads, 93 ms with SciPy's at
    one). Called on SciPy's first linear-algebra use; a no-op when SciPy shares NumPy's BLAS.
    """
    global _scipy_blas_done
    if _scipy_blas_done:
        return
    _scipy_blas_done = True
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS)
    from threadpoolctl import ThreadpoolController

    for lib in ThreadpoolController().lib_controllers:
        if lib.user_api == "blas" and _is_scipys_own(lib.filepath):
            lib.set_num_threads(1)


# the count last set through ``set_num_threads`` (None: never set); the FFTs read it for their
# ``workers``
requested = None


def set_blas_num_threads(n: int) -> None:
    """Limit every BLAS library to ``n`` threads, from now on (not a context)."""
    global requested
    from threadpoolctl import threadpool_limits

    # Calling threadpool_limits without ``with`` applies the limit and keeps it; SciPy's own
    # BLAS copy stays at one thread (see ``scipy_blas_single_threaded``)
    threadpool_limits(limits=n, user_api="blas")
    global _scipy_blas_done
    _scipy_blas_done = False
    scipy_blas_single_threaded()
    requested = n


def blas_internal_apis() -> list[str]:
    """The implementations of the loaded BLAS libraries ('openblas', 'mkl', 'blis'...)."""
    from threadpoolctl import threadpool_info

    return [info["internal_api"] for info in threadpool_info() if info["user_api"] == "blas"]
