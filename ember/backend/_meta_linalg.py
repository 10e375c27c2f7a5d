"""Meta shape rules for the linalg op family (registered with meta.rule)."""

from __future__ import annotations

import numpy

from ember.backend.meta import MetaArray, broadcast_shapes, rule


def _dtype_of(arrays):
    return numpy.result_type(*[numpy.zeros((), a.dtype) for a in arrays])


@rule(numpy.einsum)
def _einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    # ember's ops pass canonical equations: explicit output, letters only
    if not isinstance(subscripts, str) or "->" not in subscripts or "." in subscripts:
        raise NotImplementedError(
            f"meta einsum supports explicit equations without '...' only, got {subscripts!r}"
        )
    lhs, rhs = subscripts.replace(" ", "").split("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} terms for {len(operands)} operands")
    sizes = {}
    for term, a in zip(terms, operands, strict=True):
        if len(term) != a.ndim:
            raise ValueError(f"einsum: term {term!r} for an operand of shape {a.shape}")
        for c, s in zip(term, a.shape, strict=True):
            prev = sizes.get(c, 1)
            if prev != s and prev != 1 and s != 1:
                raise ValueError(f"einsum: label {c} has sizes {prev} and {s}")
            sizes[c] = max(prev, s) if prev != 1 else s
    shape = tuple(sizes[c] for c in rhs)
    return MetaArray(shape, dtype if dtype is not None else _dtype_of(operands))


@rule(numpy.cross)
def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is None or a.ndim != b.ndim:
        raise NotImplementedError("meta cross supports axis= with operands of equal ndim only")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("cross: the axis must have length 3 in both operands")
    return MetaArray(broadcast_shapes(a.shape, b.shape), _dtype_of((a, b)))


@rule(numpy.dot)
def _dot(a, b, out=None):
    # NumPy's dot, not matmul: an N-D ``a`` contracts its last axis with ``b``'s second-to-last
    sa, sb = getattr(a, "shape", ()), getattr(b, "shape", ())
    if not sa or not sb:  # a 0-d operand: dot is multiply
        shape = broadcast_shapes(sa, sb)
    else:
        k = sb[-2] if len(sb) > 1 else sb[0]
        if sa[-1] != k:
            raise ValueError(
                f"shapes {sa} and {sb} not aligned: {sa[-1]} (dim {len(sa) - 1}) "
                f"!= {k} (dim {max(len(sb) - 2, 0)})"
            )
        shape = sa[:-1] + sb[:-2] + sb[-1:] if len(sb) > 1 else sa[:-1]
    if out is not None:
        if tuple(out.shape) != tuple(shape):
            raise ValueError(f"output array has shape {out.shape}, dot needs {shape}")
        return out
    return MetaArray(shape, _dtype_of([x for x in (a, b) if hasattr(x, "dtype")]))
