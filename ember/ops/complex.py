"""Complex numbers: ``real``, ``imag``, ``angle``, ``conj``, ``polar``, ``complex``,
``view_as_real``/``view_as_complex`` and the conjugate-bit queries.

Gradients follow PyTorch's convention: a complex tensor's gradient is the conjugate Wirtinger
derivative ``dL/dx + i dL/dy`` of the real loss (for ``z = x + iy``), so a holomorphic ``f``
passes ``g * conj(f'(z))`` back and a real input receives the real part of a complex gradient
(the engine's ``_fit``).

NOTE: deliberate difference from torch: ``conj`` is not a lazy view with a conjugate bit.
ember computes the conjugate into new memory, so ``is_conj()`` is always False,
``resolve_conj``/``resolve_neg`` return their input, and an in-place write to ``x.conj()``
does not reach ``x`` (in torch it does). Values, dtypes, gradients and node names are torch's.
``real``/``imag``/``view_as_real``/``view_as_complex`` are true views, as in torch.
"""

from __future__ import annotations

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import binary, unary, xp_of
from ember.ops.pointwise import _out, inplace
from ember.ops.shape import _view_op
from ember.tensor import Tensor, _wrap


def _check(x, op: str, arg: str = "input", pos: int = 1) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )
    return x


def _real_np(npd):
    """The real NumPy dtype of a complex one (complex64 -> float32)."""
    return _dtype.from_np(npd).to_real()._np


def _is_meta(a) -> bool:
    return xp_of(a).device_type == "meta"


# ---- views -------------------------------------------------------------------------------------
class Real(Function):
    _array_forward = True
    _node_name = "SelectBackward0"  # NOTE: matches torch: real is a select on view_as_real

    @staticmethod
    def forward(ctx, a):
        if _is_meta(a):
            return a.astype(_real_np(a.dtype))
        return a.real

    @staticmethod
    def backward(ctx, g):
        return g  # d Re(z): the real gradient itself (the engine casts it to complex)


class Imag(Function):
    _array_forward = True
    _node_name = "SelectBackward0"  # NOTE: matches torch (see Real)

    @staticmethod
    def forward(ctx, a):
        if _is_meta(a):
            return a.astype(_real_np(a.dtype))
        return a.imag

    @staticmethod
    def backward(ctx, g):
        return g * 1j  # d Im(z): dL/dy lands on the imaginary part


class ViewAsReal(Function):
    _array_forward = True
    _node_name = "ViewAsRealBackward0"

    @staticmethod
    def forward(ctx, a):
        rd = _real_np(a.dtype)
        if _is_meta(a):
            return xp_of(a).empty(a.shape + (2,), dtype=rd)
        # a size-1 trailing axis is contiguous whatever the strides: NumPy can split it
        return a[..., None].view(rd)

    @staticmethod
    def backward(ctx, g):
        return view_as_complex(g.contiguous())


class ViewAsComplex(Function):
    _array_forward = True
    _node_name = "ViewAsComplexBackward0"

    @staticmethod
    def forward(ctx, a):
        cd = _dtype.from_np(a.dtype).to_complex()._np
        if _is_meta(a):
            return xp_of(a).empty(a.shape[:-1], dtype=cd)
        return a.view(cd)[..., 0]

    @staticmethod
    def backward(ctx, g):
        return view_as_real(g)


def real(input: Tensor) -> Tensor:
    """The real part: a view of a complex tensor's memory (a real tensor is returned as is).

    Example:
        >>> ember.real(ember.tensor([1 + 2j, 3 - 1j]))
        tensor([1., 3.])
    """
    if not _check(input, "real")._data.dtype.kind == "c":
        return input
    return _view_op(Real, input)


def imag(input: Tensor) -> Tensor:
    """The imaginary part: a view of a complex tensor's memory.

    Example:
        >>> ember.imag(ember.tensor([1 + 2j, 3 - 1j]))
        tensor([ 2., -1.])
    """
    if not _check(input, "imag")._data.dtype.kind == "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _view_op(Imag, input)


def view_as_real(input: Tensor) -> Tensor:
    """A real view of a complex tensor with a trailing dimension of size 2 (real, imaginary).

    Example:
        >>> ember.view_as_real(ember.tensor([1 + 2j]))
        tensor([[1., 2.]])
    """
    if not _check(input, "view_as_real")._data.dtype.kind == "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _view_op(ViewAsReal, input)


def view_as_complex(input: Tensor) -> Tensor:
    """A complex view of a real tensor whose last dimension (size 2, stride 1) holds the real
    and imaginary parts.

    Example:
        >>> ember.view_as_complex(ember.tensor([[1.0, 2.0]]))
        tensor([1.+2.j])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(view_as_complex, input)
    d = _check(input, "view_as_complex")._data
    if d.dtype.kind not in "f" or d.dtype.itemsize < 4:
        name = _dtype.SCALAR_NAMES[_dtype.from_np(d.dtype).name]
        if d.dtype.itemsize == 2 and d.dtype.kind == "f":
            raise NotImplementedError(
                "view_as_complex of a float16 tensor would be complex32, which ember does not "
                "support (NumPy has no complex32 type)"
            )
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {name}"
        )
    if d.ndim == 0 or d.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if not _is_meta(d):
        strides = input.stride()
        if strides[-1] != 1:
            raise RuntimeError("Tensor must have a last dimension with stride 1")
        if any(s % 2 for s in strides[:-1]):
            raise RuntimeError(
                "Tensor must have a stride divisible by 2 for all but last dimension"
            )
        if input.storage_offset() % 2:
            raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _view_op(ViewAsComplex, input)


# ---- conjugation -------------------------------------------------------------------------------
class Conj(Function):
    _array_forward = True
    _node_name = "ConjBackward0"

    @staticmethod
    def forward(ctx, a):
        return xp_of(a).conj(a)

    @staticmethod
    def backward(ctx, g):
        return conj(g)


class ConjPhysical(Conj):
    _node_name = "ConjPhysicalBackward0"

    @staticmethod
    def backward(ctx, g):
        return conj_physical(g)


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (a real tensor is returned as is).

    NOTE: ember computes the conjugate into new memory instead of setting torch's lazy
    conjugate bit (see the module docstring): ``is_conj()`` stays False.

    Example:
        >>> ember.conj(ember.tensor([1 + 2j]))
        tensor([1.-2.j])
    """
    if _check(input, "conj")._data.dtype.kind != "c":
        return input
    return unary(Conj, input)


def conj_physical(input: Tensor, *, out=None) -> Tensor:
    """The complex conjugate, computed into new memory (a copy for real tensors).

    Example:
        >>> ember.conj_physical(ember.tensor([1 - 1j]))
        tensor([1.+1.j])
    """
    if _check(input, "conj_physical")._data.dtype.kind != "c":
        # NOTE: matches torch: real input passes through (out= still receives a copy)
        return input if out is None else _out(input, out)
    return _out(unary(ConjPhysical, input), out)


def resolve_conj(input: Tensor) -> Tensor:
    """``input`` with its conjugate bit materialized; ember never sets the bit, so this is
    ``input`` itself.

    Example:
        >>> x = ember.tensor([1 + 2j])
        >>> ember.resolve_conj(x) is x
        True
    """
    return _check(input, "resolve_conj")


def resolve_neg(input: Tensor) -> Tensor:
    """``input`` with its negative bit materialized; ember never sets it: ``input`` itself.

    Example:
        >>> x = ember.tensor([1.0])
        >>> ember.resolve_neg(x) is x
        True
    """
    return _check(input, "resolve_neg")


def is_conj(input: Tensor) -> bool:
    """Whether ``input`` carries a lazy conjugate bit: always False in ember (see ``conj``).

    Example:
        >>> ember.is_conj(ember.tensor([1 + 2j]).conj())
        False
    """
    _check(input, "is_conj")
    return False


def is_neg(input: Tensor) -> bool:
    """Whether ``input`` carries a lazy negative bit: always False in ember.

    Example:
        >>> ember.is_neg(ember.tensor([1.0]))
        False
    """
    _check(input, "is_neg")
    return False


def is_complex(input: Tensor) -> bool:
    """Whether ``input``'s dtype is complex.

    Example:
        >>> ember.is_complex(ember.tensor([1j])), ember.is_complex(ember.tensor([1.0]))
        (True, False)
    """
    return _check(input, "is_complex")._data.dtype.kind == "c"


# ---- angle, polar, complex ---------------------------------------------------------------------
class Angle(Function):
    _array_forward = True
    _node_name = "AngleBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        ctx.save_for_backward(a)
        if a.dtype.kind == "c":
            if xp.device_type == "meta":
                return a.astype(_real_np(a.dtype))
            return xp.angle(a)
        # NOTE: matches torch: pi for negatives, 0 otherwise, nan stays nan
        return xp.where(a < 0, xp.pi, xp.where(a != a, a, 0.0)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (z,) = ctx.saved_tensors
        if not z.is_complex():
            return g * 0  # piecewise constant
        # d angle: i z / |z|^2 (zero at z = 0, as torch)
        a2 = z.real * z.real + z.imag * z.imag
        return (g * (z * 1j) / a2).masked_fill(a2 == 0, 0)


def angle(input: Tensor, *, out=None) -> Tensor:
    """The argument (phase) of each element, in radians; real inputs give 0 or pi.

    Example:
        >>> ember.angle(ember.tensor([1j, -1 + 0j]))
        tensor([1.5708, 3.1416])
    """
    d = _check(input, "angle")._data
    if d.dtype.kind in "biu":
        input = _wrap(d.astype(_dtype.get_default_dtype()._np))
    return _out(unary(Angle, input), out)


class Polar(Function):
    _array_forward = True
    _node_name = "PolarBackward0"

    @staticmethod
    def forward(ctx, r, theta):
        xp = xp_of(r)
        c = xp.cos(theta) + 1j * xp.sin(theta)
        ctx.save_for_backward(r, c.astype(_dtype.from_np(r.dtype).to_complex()._np))
        return (r * c).astype(_dtype.from_np(r.dtype).to_complex()._np, copy=False)

    @staticmethod
    def backward(ctx, g):
        r, c = ctx.saved_tensors
        need_r, need_t = ctx.needs_input_grad
        # z = r e^(i theta): a real input x gets Re(g * conj(dz/dx))
        gr = (g * c.conj()).real if need_r else None
        gt = (g * (c * r * 1j).conj()).real if need_t else None
        return gr, gt


def _pair_check(a, b, op: str):
    _check(a, op, "abs" if op == "polar" else "real", 1)
    _check(b, op, "angle" if op == "polar" else "imag", 2)
    da, db = a._data.dtype, b._data.dtype
    if da.kind != "f" or db.kind != "f":
        na = _dtype.SCALAR_NAMES[_dtype.from_np(da).name]
        nb = _dtype.SCALAR_NAMES[_dtype.from_np(db).name]
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got {na} and {nb}"
        )
    if da != db:
        na = _dtype.SCALAR_NAMES[_dtype.from_np(da).name]
        nb = _dtype.SCALAR_NAMES[_dtype.from_np(db).name]
        raise RuntimeError(
            f"Expected object of scalar type {na} but got scalar type {nb} for second argument"
        )
    if da.itemsize == 2:
        raise NotImplementedError(
            f"{op}() of float16 tensors would give complex32, which ember does not support "
            "(NumPy has no complex32 type); convert the inputs with .float() first"
        )


def polar(abs: Tensor, angle: Tensor, *, out=None) -> Tensor:  # noqa: A002  (torch's names)
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``.

    Example:
        >>> ember.polar(ember.tensor([2.0]), ember.tensor([0.0]))
        tensor([2.+0.j])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(polar, abs, angle)
    _pair_check(abs, angle, "polar")
    return _out(binary(Polar, abs, angle), out)


class Complex(Function):
    _array_forward = True
    _node_name = "ComplexBackward0"

    @staticmethod
    def forward(ctx, re, im):
        cd = _dtype.from_np(re.dtype).to_complex()._np
        xp = xp_of(re)
        if xp.device_type == "meta":
            return (re + im).astype(cd)
        out = xp.empty(xp.broadcast_shapes(re.shape, im.shape), dtype=cd)
        out.real = re
        out.imag = im
        return out

    @staticmethod
    def backward(ctx, g):
        need_re, need_im = ctx.needs_input_grad
        return (g.real if need_re else None), (g.imag if need_im else None)


def complex(real: Tensor, imag: Tensor, *, out=None) -> Tensor:  # noqa: A001  (torch's name)
    """The complex tensor ``real + i imag`` (broadcast; both float32 or both float64).

    Example:
        >>> ember.complex(ember.tensor([1.0]), ember.tensor([2.0]))
        tensor([1.+2.j])
    """
    _pair_check(real, imag, "complex")
    return _out(binary(Complex, real, imag), out)


# ---- Tensor methods ----------------------------------------------------------------------------
def _chalf(self, memory_format=None):
    raise NotImplementedError(
        "Tensor.chalf() (complex32) is not supported: NumPy has no complex32 type; use "
        ".cfloat() instead"
    )


def _set_part(name):
    def setter(self, value):
        part = getattr(self, name)
        part.copy_(value if isinstance(value, Tensor) else part.new_tensor(value).expand_as(part))

    return setter


Tensor.real = property(real, _set_part("real"))
Tensor.imag = property(imag, _set_part("imag"))
Tensor.angle = angle
Tensor.conj = conj
Tensor.conj_physical = conj_physical
Tensor.conj_physical_ = inplace(conj_physical)
Tensor.resolve_conj = resolve_conj
Tensor.resolve_neg = resolve_neg
Tensor.is_conj = is_conj
Tensor.is_neg = is_neg
Tensor.chalf = _chalf


__all__ = [
    "real",
    "imag",
    "angle",
    "conj",
    "conj_physical",
    "resolve_conj",
    "resolve_neg",
    "is_conj",
    "is_neg",
    "is_complex",
    "polar",
    "complex",
    "view_as_real",
    "view_as_complex",
]
