"""``ember.distributed``: answered as a torch build without distributed support.

ember runs in one process on one CPU: there are no process groups, collectives, DDP or RPC, so
``is_available()`` is False, and, as on such a torch build, it is the only name here (anything
else raises ``AttributeError`` saying why). Code that guards with
``if torch.distributed.is_available() and torch.distributed.is_initialized()`` runs unchanged.

Example:
    >>> ember.distributed.is_available()
    False
"""

__all__ = ["is_available"]

_REASON = (
    "torch.distributed (process groups, collectives, DDP, RPC) is not part of ember: one "
    "process on one CPU, so ember.distributed.is_available() is False"
)


def is_available() -> bool:
    """False: ember has no distributed package (check it before using any other name)."""
    return False


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}: {_REASON}")
