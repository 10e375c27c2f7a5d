"""Sparse tensors (``torch.sparse``): COO, CSR, CSC, BSR and BSC layouts, products in SciPy.

Construct with ``ember.sparse_coo_tensor`` / ``ember.sparse_csr_tensor`` or
``Tensor.to_sparse()``; multiply with ``ember.sparse.mm`` or ``@`` (either operand sparse). See
``_methods.py`` for the tensor class, ``_blocked.py`` for BSR/BSC, ``_extras.py`` for
``sspaddmm``, the ``*_copy`` accessors and ``spsolve``, ``_legacy.py`` for the legacy types
(``ember.sparse.FloatTensor``), ``_functions.py`` for the autograd steps (and the sparse
weight gradient of ``nn.Embedding(sparse=True)``), ``_ops.py`` for the products with a sparse
second operand, ``sampled_addmm``, ``spdiags``, selection and ``as_sparse_gradcheck``.
"""

# (importing _tensor, _blocked and _extras attaches the sparse methods to Tensor)
from ember.sparse import _blocked, _extras, _tensor  # noqa: F401
from ember.sparse._methods import addmm, log_softmax, mm, softmax, sum
from ember.sparse._ops import (
    as_sparse_gradcheck,
    check_sparse_tensor_invariants,
    sampled_addmm,
    spdiags,
)

__all__ = ["addmm", "check_sparse_tensor_invariants", "log_softmax", "mm", "softmax", "sum"]
__all__ += ["as_sparse_gradcheck", "sampled_addmm", "spdiags"]
# NOTE: matches torch: spsolve and the legacy types are public but not in torch.sparse.__all__
from ember import _unsupported  # noqa: E402
from ember.sparse._extras import spsolve  # noqa: E402, F401
from ember.sparse._legacy import (  # noqa: E402, F401
    BFloat16Tensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)


def __getattr__(name: str):
    # Runs only on a miss, so existing names cost nothing: a torch name ember deliberately
    # lacks answers with its reason (ember/_unsupported.py).
    return _unsupported.module_getattr(__name__, name)
