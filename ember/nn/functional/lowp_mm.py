"""Grouped and scaled low-precision matrix products: ``grouped_mm`` (the mixture-of-experts
GEMM: one product per group of rows, columns or contraction slices, the groups given by
cumulative ``offs``), ``scaled_mm`` (float8 operands times float32 scales, tensor- or
row-wise) and ``scaled_grouped_mm``, with torch's ``ScalingType``/``SwizzleType`` enums.

Products accumulate in float32 (the operands are float8, bfloat16, float16 or float32) and
are cast to the output dtype once, as torch's CPU kernels do. They are composed from ember's
matmul, so they are differentiable (torch differentiates ``grouped_mm``; float8 operands are
not differentiable in either).

NOTE: deliberate difference: torch's kernels also demand 16-byte-aligned strides (a CUDA
requirement they carry over); ember accepts any layout. Rows (or columns) past the last offset
are zeros here; torch leaves them uninitialized.
"""

from __future__ import annotations

import enum

from ember import _dtype
from ember.ops.creation import zeros
from ember.ops.joining import cat, stack
from ember.tensor import Tensor

__all__ = ["ScalingType", "SwizzleType", "grouped_mm", "scaled_mm", "scaled_grouped_mm"]


class _ScalingType(enum.Enum):
    """How a scale applies to a float8 operand (torch's ``F.ScalingType``)."""

    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5

    def __int__(self) -> int:
        return self.value

    __index__ = __int__


class _SwizzleType(enum.Enum):
    """The memory layout of block scales (torch's ``F.SwizzleType``)."""

    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1

    def __int__(self) -> int:
        return self.value

    __index__ = __int__


ScalingType = _ScalingType
SwizzleType = _SwizzleType

_LOW = ("float32", "bfloat16", "float16")
_CPP = {"float32": "Float32", "bfloat16": "BFloat16", "float16": "Float16", "float64": "Double"}


def _name(t: Tensor) -> str:
    return t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype).split(".")[-1]


def _groups(offs: Tensor) -> list:
    ends = [int(v) for v in offs.tolist()]
    return list(zip([0] + ends[:-1], ends, strict=True))


def _f32(t: Tensor) -> Tensor:
    return t if t.dtype == _dtype.float32 else t.to(_dtype.float32)


def grouped_mm(
    mat_a: Tensor,
    mat_b: Tensor,
    *,
    offs: Tensor | None = None,
    bias: Tensor | None = None,
    out_dtype=None,
) -> Tensor:
    """Grouped matrix products. With ``offs`` (int32 cumulative group ends):
    2-D ``a`` (M, K) x 3-D ``b`` (G, K, N): rows of group ``g`` times ``b[g]`` -> (M, N);
    3-D ``a`` (G, M, K) x 2-D ``b`` (K, N): ``a[g]`` times the columns of group ``g`` -> (M, N);
    2-D x 2-D: the contraction slices of each group -> (G, M, N). Without ``offs``, 3-D x 3-D
    is a batched product.

    Example:
        >>> a, b = ember.ones(4, 2), ember.ones(2, 2, 3)
        >>> ember.nn.functional.grouped_mm(a, b, offs=ember.tensor([1, 4], dtype=ember.int32))
        tensor([[2., 2., 2.],
                [2., 2., 2.],
                [2., 2., 2.],
                [2., 2., 2.]])
    """
    for name, t in (("mat_a", mat_a), ("mat_b", mat_b)):
        if _name(t) not in _LOW:
            got = _CPP.get(_name(t), _name(t))
            raise RuntimeError(
                f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got {got}"
            )
    if mat_a.dim() not in (2, 3) or mat_b.dim() not in (2, 3):
        raise RuntimeError(
            f"mat_a and mat_b must be 2-D or 3-D, got {mat_a.dim()}-D and {mat_b.dim()}-D"
        )
    both3 = mat_a.dim() == 3 and mat_b.dim() == 3
    if (offs is None) != both3:
        raise RuntimeError(
            "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d"
        )
    if offs is not None and offs.dtype != _dtype.int32:
        raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError(
            f"contraction dimension of mat_a and mat_b must match, got {mat_a.shape[-1]} and "
            f"{mat_b.shape[-2]}"
        )
    out = _grouped(_f32(mat_a), _f32(mat_b), offs)
    return out if out.dtype == mat_a.dtype else out.to(mat_a.dtype)


def _grouped(a: Tensor, b: Tensor, offs: Tensor | None) -> Tensor:
    """The grouped product in float32 (shapes checked)."""
    if offs is None:
        return a @ b
    groups = _groups(offs)
    if a.dim() == 2 and b.dim() == 3:  # groups of rows
        if len(groups) != b.shape[0]:
            raise RuntimeError(f"offs must have {b.shape[0]} entries, got {len(groups)}")
        parts = [a[s:e] @ b[g] for g, (s, e) in enumerate(groups)]
        tail = a.shape[0] - (groups[-1][1] if groups else 0)
        if tail > 0:
            parts.append(zeros(tail, b.shape[-1], dtype=a.dtype, device=a.device))
        return cat(parts, 0)
    if a.dim() == 3 and b.dim() == 2:  # groups of columns
        if len(groups) != a.shape[0]:
            raise RuntimeError(f"offs must have {a.shape[0]} entries, got {len(groups)}")
        parts = [a[g] @ b[:, s:e] for g, (s, e) in enumerate(groups)]
        tail = b.shape[1] - (groups[-1][1] if groups else 0)
        if tail > 0:
            parts.append(zeros(a.shape[1], tail, dtype=a.dtype, device=a.device))
        return cat(parts, 1)
    # 2-D x 2-D: groups of contraction slices
    return stack([a[:, s:e] @ b[s:e] for s, e in groups], 0)


_FP8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")


def _one(x):
    return x[0] if isinstance(x, (list, tuple)) else x


def _scale_config(mat_a, mat_b, scale_a, recipe_a, scale_b, recipe_b) -> None:
    fp8 = _name(mat_a) in _FP8 and _name(mat_b) in _FP8
    f32 = scale_a.dtype == _dtype.float32 and scale_b.dtype == _dtype.float32
    m, n = mat_a.shape[0], mat_b.shape[-1]
    ok = False
    if recipe_a == ScalingType.TensorWise and recipe_b == ScalingType.TensorWise:
        ok = fp8 and f32 and scale_a.numel() == 1 and scale_b.numel() == 1
    elif recipe_a == ScalingType.RowWise and recipe_b == ScalingType.RowWise:
        ok = fp8 and f32 and tuple(scale_a.shape) == (m, 1) and tuple(scale_b.shape) == (1, n)
    if not ok:
        raise ValueError(
            "Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, "
            "scales should be float and singletons.\n- For RowWise scaling, a and b should be "
            f"float8, scales should be float, scale_a should be ({m}, 1) and scale_b should be "
            f"(1, {n}), and both should be contiguous.\nGot mat_a.dtype()={_name(mat_a)}, "
            f"scale_a.dtype()={_name(scale_a)}, scale_a.size()={list(scale_a.shape)}, "
            f"mat_b.dtype()={_name(mat_b)}, scale_b.dtype()={_name(scale_b)}, "
            f"scale_b.size()={list(scale_b.shape)}"
        )


def scaled_mm(
    mat_a: Tensor,
    mat_b: Tensor,
    scale_a,
    scale_recipe_a,
    scale_b,
    scale_recipe_b,
    swizzle_a=None,
    swizzle_b=None,
    bias: Tensor | None = None,
    output_dtype=_dtype.bfloat16,
    contraction_dim=(),
    use_fast_accum: bool = False,
) -> Tensor:
    """The product of float8 matrices with float32 scales, ``(a @ b) * scale_a * scale_b
    (+ bias)`` accumulated in float32 and cast to ``output_dtype`` (bfloat16 by default).
    Scales are tensor-wise (one number each) or row-wise (``scale_a`` (M, 1), ``scale_b``
    (1, N)).

    Example:
        >>> F = ember.nn.functional
        >>> a = ember.ones(2, 3).to(ember.float8_e4m3fn)
        >>> s = ember.tensor(0.5)
        >>> F.scaled_mm(a, a.mT, s, F.ScalingType.TensorWise, s, F.ScalingType.TensorWise)
        tensor([[0.7500, 0.7500],
                [0.7500, 0.7500]], dtype=ember.bfloat16)
    """
    scale_a, scale_b = _one(scale_a), _one(scale_b)
    recipe_a, recipe_b = _one(scale_recipe_a), _one(scale_recipe_b)
    if mat_a.dim() != 2 or mat_b.dim() != 2:
        raise ValueError(
            f"mat_a and mat_b must be matrices, got {mat_a.dim()}-D and {mat_b.dim()}-D"
        )
    if mat_a.shape[1] != mat_b.shape[0]:
        raise ValueError(
            f"mat_a and mat_b shapes cannot be multiplied ({mat_a.shape[0]}x{mat_a.shape[1]} "
            f"and {mat_b.shape[0]}x{mat_b.shape[1]})"
        )
    _scale_config(mat_a, mat_b, scale_a, recipe_a, scale_b, recipe_b)
    out = (_f32(mat_a) @ _f32(mat_b)) * scale_a.reshape(-1, 1) * scale_b.reshape(1, -1)
    if bias is not None:
        out = out + _f32(bias)
    dt = _dtype.bfloat16 if output_dtype is None else output_dtype
    return out.to(dt)


def scaled_grouped_mm(
    mat_a: Tensor,
    mat_b: Tensor,
    scale_a,
    scale_recipe_a,
    scale_b,
    scale_recipe_b,
    swizzle_a=None,
    swizzle_b=None,
    bias: Tensor | None = None,
    offs: Tensor | None = None,
    output_dtype=_dtype.bfloat16,
    contraction_dim=(),
    use_fast_accum: bool = False,
) -> Tensor:
    """``grouped_mm`` of float8 operands with row-wise float32 scales: each operand is
    multiplied by its scales (``scale_a`` one per row of ``a``, ``scale_b`` one per output
    column of each group) before the float32 grouped product, cast to ``output_dtype``.
    (torch runs this only on CUDA; ember computes the same quantity on the CPU.)

    Example:
        >>> F = ember.nn.functional
        >>> a, b = ember.ones(4, 2).to(ember.float8_e4m3fn), ember.ones(2, 2, 3)
        >>> b = b.to(ember.float8_e4m3fn)
        >>> sa, sb = ember.ones(4), ember.ones(2, 3)
        >>> RW = F.ScalingType.RowWise
        >>> offs = ember.tensor([1, 4], dtype=ember.int32)
        >>> F.scaled_grouped_mm(a, b, sa, RW, sb, RW, offs=offs).shape
        ember.Size([4, 3])
    """
    scale_a, scale_b = _one(scale_a), _one(scale_b)
    if _name(mat_a) not in _FP8 or _name(mat_b) not in _FP8:
        raise ValueError(
            f"scaled_grouped_mm expects float8 operands, got {_name(mat_a)} and {_name(mat_b)}"
        )
    if scale_a.dtype != _dtype.float32 or scale_b.dtype != _dtype.float32:
        raise ValueError(
            f"scaled_grouped_mm expects float32 scales, got {_name(scale_a)} and {_name(scale_b)}"
        )
    a, b = _f32(mat_a), _f32(mat_b)
    if a.dim() == 2:
        a = a * scale_a.reshape(-1, 1)
    else:
        a = a * scale_a.reshape(a.shape[0], -1, 1)
    if b.dim() == 3:
        b = b * scale_b.reshape(b.shape[0], 1, -1)
    else:
        b = b * scale_b.reshape(1, -1)
    if (offs is None) != (a.dim() == 3 and b.dim() == 3):
        raise RuntimeError(
            "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d"
        )
    out = _grouped(a, b, offs)
    if bias is not None:
        out = out + _f32(bias)
    return out.to(_dtype.bfloat16 if output_dtype is None else output_dtype)
