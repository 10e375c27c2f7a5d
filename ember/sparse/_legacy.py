"""The legacy sparse tensor types: ``torch.sparse.FloatTensor`` and its siblings.

As in PyTorch, they are constructors and ``isinstance`` checks, not subclasses of
``Tensor``: ``ember.sparse.FloatTensor(2, 3)`` is an empty sparse COO tensor of that size,
``ember.sparse.FloatTensor(indices, values, size)`` a COO tensor (unchecked, with the values'
dtype), and ``isinstance(t, ember.sparse.FloatTensor)`` asks for a float32 COO tensor.
"""

from __future__ import annotations

from ember import _dtype
from ember._layout import sparse_coo
from ember.ops.legacy import _TensorType
from ember.tensor import Tensor

_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    " * (Tensor indices, Tensor values, *, torch.device device = None)\n"
    " * (Tensor indices, Tensor values, tuple of ints size, *, torch.device device = None)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
)


def _bad_args(args) -> TypeError:
    got = ", ".join(type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in args)
    return TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{_SIGNATURES}"
    )


def _is_int(a) -> bool:
    return isinstance(a, int) and not isinstance(a, bool)


def _new_sparse(dt, args, size, device):
    from ember.ops.creation import empty, zeros
    from ember.sparse._tensor import sparse_coo_tensor

    if size is not None:
        if args:
            raise _bad_args(args)
        args = (tuple(size),)
    if len(args) == 1 and isinstance(args[0], (tuple, list)) and all(map(_is_int, args[0])):
        args = tuple(args[0])  # a size given as one tuple (or ember.Size)
    if all(_is_int(a) for a in args):
        shape = tuple(args) if args else (0,)
        if any(n < 0 for n in shape):
            raise RuntimeError(f"sparse tensor size must be non-negative, got {list(shape)}")
        idx = zeros((len(shape), 0), dtype=_dtype.int64)
        return sparse_coo_tensor(idx, empty(0, dtype=dt), shape, device=device)
    if len(args) in (2, 3) and all(isinstance(a, Tensor) for a in args[:2]):
        indices, values = args[0], args[1]
        if indices.dtype is not _dtype.int64:
            raise RuntimeError("indices must be an int64 tensor")
        size = args[2] if len(args) == 3 else None
        if size is not None and not (isinstance(size, (tuple, list)) and all(map(_is_int, size))):
            raise _bad_args(args)
        # NOTE: matches torch: unchecked, and the values keep their own dtype
        return sparse_coo_tensor(indices, values, size, device=device, check_invariants=False)
    raise _bad_args(args)


class _SparseTensorType(_TensorType):
    """Metaclass of the legacy sparse types: calling one builds a sparse COO tensor;
    ``isinstance`` accepts CPU sparse COO tensors of its dtype. (A ``_TensorType`` so that
    ``Tensor.type(ember.sparse.DoubleTensor)`` converts the dtype, as torch's does.)"""

    @property
    def is_sparse(cls) -> bool:
        return True

    def __call__(cls, *args, device=None, size=None):
        return _new_sparse(cls.dtype, args, size, device)

    def __instancecheck__(cls, obj) -> bool:
        return (
            isinstance(obj, Tensor)
            and obj.layout is sparse_coo
            and obj.dtype is cls.dtype
            and obj.device.type == "cpu"
        )


def _typed(name: str, dt) -> type:
    ns = {
        "dtype": dt,
        "layout": sparse_coo,
        "__module__": "ember.sparse",
        "__slots__": (),
        "__doc__": f"Legacy constructor of sparse COO ``{dt}`` tensors "
        f"(PyTorch's ``torch.sparse.{name}``).",
    }
    return _SparseTensorType(name, (), ns)


ByteTensor = _typed("ByteTensor", _dtype.uint8)
CharTensor = _typed("CharTensor", _dtype.int8)
ShortTensor = _typed("ShortTensor", _dtype.int16)
IntTensor = _typed("IntTensor", _dtype.int32)
LongTensor = _typed("LongTensor", _dtype.int64)
HalfTensor = _typed("HalfTensor", _dtype.float16)
FloatTensor = _typed("FloatTensor", _dtype.float32)
DoubleTensor = _typed("DoubleTensor", _dtype.float64)
BFloat16Tensor = _typed("BFloat16Tensor", _dtype.bfloat16)

TYPES = (
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
