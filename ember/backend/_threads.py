"""The BLAS thread pool behind ``ember.set_num_threads`` / ``get_num_threads``.

NumPy's (and SciPy's) GEMMs and LAPACK calls run in the BLAS library's own thread pool: that is
the only intra-op parallelism ember has, so the thread count torch reports is that pool's size.
threadpoolctl reads and sets it for every BLAS library loaded in the process; it is imported
inside the functions (not at ``import ember``: scanning the loaded libraries costs milliseconds).
"""

from __future__ import annotations


def blas_num_threads() -> int:
    """The thread count of the first loaded BLAS library (1 when none reports one)."""
    from threadpoolctl import threadpool_info

    counts = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    return counts[0] if counts else 1


# the count last set through ``set_num_threads`` (None: never set); the FFTs read it for their
# ``workers``
requested = None


def set_blas_num_threads(n: int) -> None:
    """Limit every BLAS library to ``n`` threads, from now on (not a context)."""
    global requested
    from threadpoolctl import threadpool_limits

    try:  # SciPy ships its own BLAS: load it now so that the limit reaches it too
        import scipy.linalg  # noqa: F401
    except ImportError:  # pragma: no cover - SciPy is a dependency
        pass
    # Calling threadpool_limits without ``with`` applies the limit and keeps it.
    threadpool_limits(limits=n, user_api="blas")
    requested = n


def blas_internal_apis() -> list[str]:
    """The implementations of the loaded BLAS libraries ('openblas', 'mkl', 'blis'...)."""
    from threadpoolctl import threadpool_info

    return [info["internal_api"] for info in threadpool_info() if info["user_api"] == "blas"]
