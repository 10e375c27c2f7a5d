"""``ember.utils.data.backward_compatibility`` (torch's file of the same name): the deprecated
``worker_init_fn`` that old DataPipe code passed to ``DataLoader``."""

import warnings

__all__ = ["worker_init_fn"]


def worker_init_fn(worker_id) -> None:
    """Does nothing but warn: ``DataLoader`` shards for its workers by itself.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True):
        ...     warnings.simplefilter("always")
        ...     worker_init_fn(0)
    """
    # NOTE: matches torch: deprecated with a FutureWarning, and a no-op
    warnings.warn(
        "Usage of `backward_compatibility.worker_init_fn` is deprecated as `DataLoader` "
        "automatically applies sharding in every worker",
        FutureWarning,
        stacklevel=2,
    )
