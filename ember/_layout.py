"""Memory layouts (``torch.layout``): how a tensor's elements are stored.

``ember.strided`` is every dense tensor's layout; the sparse layouts name the formats of
``ember.sparse`` (COO, CSR, CSC, BSR and BSC, all implemented); ``jagged`` exists so that code
which compares or prints layouts runs.
"""

from __future__ import annotations

__all__ = [
    "layout",
    "strided",
    "sparse_coo",
    "sparse_csr",
    "sparse_csc",
    "sparse_bsr",
    "sparse_bsc",
    "jagged",
]


class layout:
    """A tensor layout; one instance per layout, compared by identity (``torch.layout``).

    Example:
        >>> ember.zeros(2).layout
        ember.strided
    """

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        # as ember's dtypes print (``ember.float32``): torch's name under ember's namespace
        return f"ember.{self._name}"

    def __reduce__(self):
        return self._name  # pickles as the module-level singleton of that name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")
