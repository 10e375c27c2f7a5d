"""Sparse tensors (``torch.sparse``): COO and CSR layouts, products in SciPy.

Construct with ``ember.sparse_coo_tensor`` / ``ember.sparse_csr_tensor`` or
``Tensor.to_sparse()``; multiply with ``ember.sparse.mm`` or ``@`` (either operand sparse). See
``_methods.py`` for the tensor class, ``_functions.py`` for the autograd steps (and the sparse
weight gradient of ``nn.Embedding(sparse=True)``), ``_ops.py`` for the products with a sparse
second operand, ``sampled_addmm``, ``spdiags``, selection and ``as_sparse_gradcheck``.
"""

from ember.sparse import _tensor  # noqa: F401  (attaches the sparse methods to Tensor)
from ember.sparse._methods import addmm, log_softmax, mm, softmax, sum
from ember.sparse._ops import (
    as_sparse_gradcheck,
    check_sparse_tensor_invariants,
    sampled_addmm,
    spdiags,
)

__all__ = ["addmm", "check_sparse_tensor_invariants", "log_softmax", "mm", "softmax", "sum"]
__all__ += ["as_sparse_gradcheck", "sampled_addmm", "spdiags"]

from ember import _unsupported  # noqa: E402


def __getattr__(name: str):
    # Runs only on a miss, so existing names cost nothing: a torch name ember deliberately
    # lacks answers with its reason (ember/_unsupported.py).
    return _unsupported.module_getattr(__name__, name)
