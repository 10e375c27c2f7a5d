"""``MaskedTensor``: a tensor and a same-shaped bool mask; masked-out elements take part in no
computation (PyTorch's prototype ``torch.masked.MaskedTensor``).

torch's MaskedTensor is a ``torch.Tensor`` subclass that intercepts every op through
``__torch_dispatch__``. ember has no dispatch protocol, so this one is a plain class (not an
``ember.Tensor``: ``isinstance(mt, ember.Tensor)`` is False and ``ember.exp(mt)`` is refused):
its methods and operators cover torch's core (construction, ``get_data``/``get_mask``,
``to_tensor``, the element-wise unary and binary ops, the reductions, softmax, the shape
pass-throughs, autograd through ``requires_grad``/``backward``/``grad``). Dense (strided) data
only.
"""

from __future__ import annotations

import warnings

import ember
from ember.tensor import Tensor

__all__ = ["MaskedTensor", "is_masked_tensor"]

_DTYPES = ("float16", "float32", "float64", "bool", "int8", "int16", "int32", "int64")

_PROTOTYPE = (
    "The PyTorch API of MaskedTensors is in prototype stage and will change in the near "
    "future. Please open a Github issue for features requests and see our documentation on "
    "the torch.masked module for further information about the project."
)


def is_masked_tensor(obj, /) -> bool:
    """True when ``obj`` is a MaskedTensor.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     mt = ember.masked.masked_tensor(ember.ones(2), ember.tensor([True, False]))
        >>> ember.masked.is_masked_tensor(mt), ember.masked.is_masked_tensor(ember.ones(2))
        (True, False)
    """
    return isinstance(obj, MaskedTensor)


def _fmt(t: Tensor, mask: Tensor) -> str:
    """torch's layout: nested brackets, each element ``{:8.4f}`` (floats) or ``--``."""
    if t.ndim == 1:
        vals = t.tolist()
        ok = mask.tolist()
        items = [f"{v:8.4f}" if isinstance(v, float) else str(v) for v in vals]
        width = max((8 if not m else len(e) for e, m in zip(items, ok, strict=True)), default=0)
        return (
            "["
            + ", ".join(e if m else "--".rjust(width) for e, m in zip(items, ok, strict=True))
            + "]"
        )
    subs = [_fmt(d, m) for d, m in zip(t, mask, strict=True)]
    subs = ["\n".join("  " + line for line in s.split("\n")) for s in subs]
    return "[\n" + ",\n".join(subs) + "\n]"


class MaskedTensor:
    """A tensor whose elements where ``mask`` is False are "masked out": unspecified, shown as
    ``--`` and ignored by reductions.

    Args:
        data: a dense tensor of float16/32/64, bool or int8/16/32/64.
        mask: a bool tensor of ``data``'s shape; True = the element is specified.
        requires_grad: make the (copied) data a leaf that records gradients; ``.grad`` is then
            a MaskedTensor with the same mask.

    Like torch's prototype, constructing one warns (``UserWarning``).

    Example:
        >>> import warnings
        >>> warnings.simplefilter("ignore", UserWarning)
        >>> mt = ember.masked.MaskedTensor(ember.tensor([1.0, 2.0, 3.0]),
        ...                                ember.tensor([True, False, True]))
        >>> mt.sum()
        MaskedTensor(  4.0000, True)
        >>> (mt * 2).to_tensor(0)
        tensor([2., 0., 6.])
    """

    __slots__ = ("_masked_data", "_masked_mask")

    def __init__(self, data, mask, requires_grad: bool = False):
        _check_members(data, mask)
        warnings.warn(_PROTOTYPE, UserWarning, stacklevel=2)
        if data.requires_grad:
            warnings.warn(
                "It is not recommended to create a MaskedTensor with a tensor that "
                "requires_grad. To avoid this, you can use data.detach().clone()",
                UserWarning,
                stacklevel=2,
            )
        data = data.detach().clone()
        if requires_grad:
            data.requires_grad_(True)
        self._masked_data = data
        self._masked_mask = mask.clone()

    @classmethod
    def _from_values(cls, data: Tensor, mask: Tensor) -> MaskedTensor:
        """Wrap without copying: gradients flow back into ``data`` (as_masked_tensor)."""
        _check_members(data, mask)
        self = object.__new__(cls)
        self._masked_data = data
        self._masked_mask = mask
        return self

    # ---- members --------------------------------------------------------------------------
    def get_data(self) -> Tensor:
        """The underlying data, masked-out elements included (differentiable)."""
        return self._masked_data

    def get_mask(self) -> Tensor:
        """The bool mask (True = specified)."""
        return self._masked_mask

    def to_tensor(self, value) -> Tensor:
        """A plain tensor with the masked-out elements set to ``value``."""
        return self._masked_data.masked_fill(~self._masked_mask, value)

    shape = property(lambda self: self._masked_data.shape)
    dtype = property(lambda self: self._masked_data.dtype)
    device = property(lambda self: self._masked_data.device)
    layout = property(lambda self: self._masked_data.layout)
    ndim = property(lambda self: self._masked_data.ndim)
    is_sparse = property(lambda self: False)

    def dim(self) -> int:
        return self._masked_data.ndim

    def size(self, dim=None):
        return self._masked_data.size() if dim is None else self._masked_data.size(dim)

    def numel(self) -> int:
        return self._masked_data.numel()

    def is_sparse_coo(self) -> bool:
        return False

    def is_sparse_csr(self) -> bool:
        return False

    def __len__(self) -> int:
        return len(self._masked_data)

    # ---- autograd -------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._masked_data.requires_grad

    def requires_grad_(self, requires_grad: bool = True) -> MaskedTensor:
        self._masked_data.requires_grad_(requires_grad)
        return self

    @property
    def grad(self):
        g = self._masked_data.grad
        return None if g is None else MaskedTensor._from_values(g, self._masked_mask)

    @property
    def grad_fn(self):
        return self._masked_data.grad_fn

    def backward(self, gradient=None, retain_graph=None, create_graph=False) -> None:
        """Backpropagate from this MaskedTensor (0-d, or with a ``gradient``)."""
        if is_masked_tensor(gradient):
            gradient = gradient.get_data()
        self._masked_data.backward(gradient, retain_graph=retain_graph, create_graph=create_graph)

    def detach(self) -> MaskedTensor:
        return MaskedTensor._from_values(self._masked_data.detach(), self._masked_mask)

    def clone(self) -> MaskedTensor:
        return MaskedTensor._from_values(self._masked_data.clone(), self._masked_mask.clone())

    # ---- printing -------------------------------------------------------------------------
    def __repr__(self) -> str:
        if self.ndim == 0:
            v = self._masked_data.item()
            shown = f"{v:8.4f}" if isinstance(v, float) else str(v)
            m = bool(self._masked_mask.item())
            return f"MaskedTensor({shown if m else '--'}, {m})"
        s = _fmt(self._masked_data.detach(), self._masked_mask)
        return "MaskedTensor(\n" + "\n".join("  " + line for line in s.split("\n")) + "\n)"

    __str__ = __repr__

    def __bool__(self):
        raise RuntimeError(
            "Boolean value of a MaskedTensor is ambiguous; use .to_tensor(value) first"
        )

    # ---- pass-throughs: the same op on data and mask --------------------------------------
    def _both(self, name: str, *args) -> MaskedTensor:
        return MaskedTensor._from_values(
            getattr(self._masked_data, name)(*args), getattr(self._masked_mask, name)(*args)
        )

    def __getitem__(self, index) -> MaskedTensor:
        return self._both("__getitem__", index)

    def select(self, dim, index):
        return self._both("select", dim, index)

    def transpose(self, dim0, dim1):
        return self._both("transpose", dim0, dim1)

    def t(self):
        return self._both("t")

    def view(self, *shape):
        return self._both("view", *shape)

    def reshape(self, *shape):
        return self._both("reshape", *shape)

    def unsqueeze(self, dim):
        return self._both("unsqueeze", dim)

    def expand(self, *sizes):
        return self._both("expand", *sizes)

    def split(self, split_size, dim=0):
        data = self._masked_data.split(split_size, dim)
        mask = self._masked_mask.split(split_size, dim)
        return tuple(MaskedTensor._from_values(d, m) for d, m in zip(data, mask, strict=True))

    # ---- softmax family (normalizations over the masked-in elements) -----------------------
    def softmax(self, dim):
        return self._normalization("softmax", dim)

    def log_softmax(self, dim):
        return self._normalization("log_softmax", dim)

    def softmin(self, dim):
        return self._normalization("softmin", dim)

    def _normalization(self, name, dim):
        out = getattr(ember.masked, name)(self._masked_data, dim, mask=self._masked_mask)
        return MaskedTensor._from_values(out, self._masked_mask)

    def where(self, condition, other):
        """``where(condition, self, other)`` on the data; the mask is kept."""
        other = other.get_data() if is_masked_tensor(other) else other
        data = ember.where(condition, self._masked_data, other)
        return MaskedTensor._from_values(data, self._masked_mask)


def _check_members(data, mask) -> None:
    if is_masked_tensor(data) or not isinstance(data, Tensor):
        raise TypeError("data must be a Tensor")
    if is_masked_tensor(mask) or not isinstance(mask, Tensor):
        raise TypeError("mask must be a Tensor")
    if data.layout != mask.layout:
        raise TypeError("data and mask must have the same layout.")
    if data.layout != ember.strided:
        raise TypeError(
            f"data layout of {data.layout} is not supported by ember's MaskedTensor (torch "
            "also takes sparse COO/CSR data); use dense data"
        )
    if mask.dtype != ember.bool:
        raise TypeError("mask must have dtype bool.")
    if str(data.dtype).rsplit(".", 1)[-1] not in _DTYPES:
        raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
    if data.dim() != mask.dim():
        raise ValueError("data.dim() must equal mask.dim()")
    if data.size() != mask.size():
        raise ValueError("data.size() must equal mask.size()")


# ---- element-wise ops: the op on the data, the mask kept ----------------------------------------
_UNARY = (
    "abs absolute acos arccos acosh arccosh angle asin arcsin asinh arcsinh atan arctan atanh "
    "arctanh bitwise_not ceil clamp clip conj_physical cos cosh deg2rad digamma erf erfc erfinv "
    "exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 logit i0 isnan nan_to_num neg "
    "negative positive pow rad2deg reciprocal round rsqrt sigmoid sgn sign signbit sin sinc sinh "
    "sqrt square tan tanh trunc relu"
).split()

_BINARY = (
    "add atan2 arctan2 bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift "
    "div divide floor_divide fmod logaddexp logaddexp2 mul multiply nextafter remainder sub "
    "subtract true_divide eq ne le ge greater greater_equal gt less_equal lt less maximum "
    "minimum fmax fmin not_equal"
).split()


def _unary(name):
    def method(self, *args, **kwargs):
        out = getattr(self._masked_data, name)(*args, **kwargs)
        return MaskedTensor._from_values(out, self._masked_mask)

    method.__name__ = name
    method.__doc__ = f"``{name}`` of the data; the mask is kept."
    return method


def _masks_match(a, b) -> bool:
    if is_masked_tensor(a) and is_masked_tensor(b):
        ma, mb = a.get_mask(), b.get_mask()
        return ma.dim() == mb.dim() and bool(ember.eq(ma, mb).all())
    return True


def _binary_apply(fn, a, b):
    if not _masks_match(a, b):
        raise ValueError(
            "Input masks must match. If you need support for this, please open an issue on Github."
        )
    mask = a.get_mask() if is_masked_tensor(a) else b.get_mask()
    da = a.get_data() if is_masked_tensor(a) else a
    db = b.get_data() if is_masked_tensor(b) else b
    data = fn(da, db)
    return MaskedTensor._from_values(data, mask.expand_as(data))


def _binary(name, fn=None):
    fn = getattr(ember, name) if fn is None else fn

    def method(self, other):
        return _binary_apply(fn, self, other)

    method.__name__ = name
    method.__doc__ = f"``{name}`` of the data (masks must match); the mask is kept."
    return method


def _inplace_binary(name):
    fn = getattr(ember, name)

    def method(self, other):
        if not _masks_match(self, other):
            raise ValueError(
                "Input masks must match. If you need support for this, please open an issue "
                "on Github."
            )
        db = other.get_data() if is_masked_tensor(other) else other
        self._masked_data = fn(self._masked_data, db)
        return self

    method.__name__ = name + "_"
    return method


for _n in _UNARY:
    setattr(MaskedTensor, _n, _unary(_n))
for _n in _BINARY:
    setattr(MaskedTensor, _n, _binary(_n))
for _n in ("add", "sub", "mul", "div"):
    setattr(MaskedTensor, _n + "_", _inplace_binary(_n))


def _reflected(fn):
    return lambda self, other: _binary_apply(fn, other, self)


for _dunder, _fn in {
    "add": ember.add,
    "sub": ember.sub,
    "mul": ember.mul,
    "truediv": ember.true_divide,
    "floordiv": ember.floor_divide,
    "mod": ember.remainder,
    "pow": ember.pow,
    "and": ember.bitwise_and,
    "or": ember.bitwise_or,
    "xor": ember.bitwise_xor,
}.items():
    setattr(MaskedTensor, f"__{_dunder}__", _binary(_dunder, _fn))
    setattr(MaskedTensor, f"__r{_dunder}__", _reflected(_fn))
for _n in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(MaskedTensor, f"__{_n}__", _binary(_n))
MaskedTensor.__neg__ = _unary("neg")
MaskedTensor.__abs__ = _unary("abs")
MaskedTensor.__invert__ = _unary("bitwise_not")
MaskedTensor.__hash__ = object.__hash__


# ---- reductions: masked reductions of the data; the result's mask says "any element" -------------
def _reduction(name):
    def method(self, dim=None, keepdim=False, dtype=None):
        data, mask = self._masked_data, self._masked_mask
        if dim is None:
            # NOTE: matches torch: a full reduction is a 0-d MaskedTensor masked by any(mask)
            if name == "all":
                out = data.masked_fill(~mask, True).all()
            else:
                out = getattr(ember.masked, name)(data, mask=mask)
            return MaskedTensor._from_values(out, mask.any())
        if name == "all":
            out = ember.all(data.masked_fill(~mask, True), dim=dim, keepdim=keepdim)
        else:
            fn = getattr(ember.masked, name)
            out = fn(data, dim=dim, keepdim=keepdim, dtype=dtype, mask=mask)
        dims = (dim,) if isinstance(dim, int) else dim
        out_mask = mask
        for d in sorted(dims, reverse=True):
            out_mask = out_mask.any(dim=d, keepdim=keepdim)
        return MaskedTensor._from_values(out, out_mask)

    method.__name__ = name
    method.__doc__ = f"Masked ``{name}`` (see ``ember.masked.{name}``) as a MaskedTensor."
    return method


for _n in ("sum", "mean", "amin", "amax", "argmin", "argmax", "prod", "all", "norm", "var", "std"):
    setattr(MaskedTensor, _n, _reduction(_n))
