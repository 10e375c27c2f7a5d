"""Meta forms of the kernels in ``_linalg_solve.py`` and shape rules for the batched
``numpy.linalg`` solvers (solve, inv, det, slogdet, cholesky)."""

from __future__ import annotations

import numpy

from ember.backend.meta import _RULES, MetaArray, broadcast_shapes, rule

_I32 = numpy.dtype(numpy.int32)


def linalg_lu_factor(a):
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    lu = MetaArray(a.shape, a.dtype)
    return lu, MetaArray(batch + (min(m, n),), _I32), MetaArray(batch, _I32)


def linalg_lu_solve(lu, piv, b):
    batch = broadcast_shapes(lu.shape[:-2], piv.shape[:-1], b.shape[:-2])
    return MetaArray(tuple(batch) + b.shape[-2:], numpy.result_type(lu.dtype, b.dtype))


def linalg_ldl_factor(a, hermitian):
    return MetaArray(a.shape, a.dtype), MetaArray(a.shape[:-1], _I32), MetaArray(a.shape[:-2], _I32)


def linalg_ldl_solve(ld, piv, b, hermitian):
    return linalg_lu_solve(ld, piv, b)


def linalg_cholesky_ex(a):
    return MetaArray(a.shape, a.dtype), MetaArray(a.shape[:-2], _I32)


def linalg_pivots_to_perm(piv, m):
    return MetaArray(piv.shape[:-1] + (m,), numpy.dtype(numpy.intp))


def linalg_singular_info(a):
    return MetaArray(a.shape[:-2], _I32)


def linalg_solve_triangular(a, b, upper, unitriangular):
    shape = a.shape[:-2] + b.shape[-2:] if a.ndim > b.ndim else b.shape
    return MetaArray(shape, a.dtype)


def linalg_expm(a):
    return MetaArray(a.shape, a.dtype)


@rule(numpy.linalg.solve)
def _solve(a, b):
    if b.ndim == 1:
        return MetaArray(broadcast_shapes(a.shape[:-2]) + b.shape, numpy.result_type(a, b))
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return MetaArray(tuple(batch) + b.shape[-2:], numpy.result_type(a.dtype, b.dtype))


@rule(numpy.linalg.inv)
def _inv(a):
    return MetaArray(a.shape, a.dtype)


@rule(numpy.linalg.det)
def _det(a):
    return MetaArray(a.shape[:-2], a.dtype)


@rule(numpy.linalg.slogdet)
def _slogdet(a):
    # the log of |det| is real for a complex matrix too
    real = numpy.finfo(a.dtype).dtype
    return MetaArray(a.shape[:-2], a.dtype), MetaArray(a.shape[:-2], real)


def _cholesky(a, upper=False):
    return MetaArray(a.shape, a.dtype)


# the decompositions' meta rules may register cholesky too: keep theirs
_RULES.setdefault(numpy.linalg.cholesky, _cholesky)


def _triangle(m, k=0):
    return MetaArray(m.shape, m.dtype)


# solve_triangular (used by the LU and Cholesky solves) keeps a triangle; other families may
# register these too: keep theirs
_RULES.setdefault(numpy.tril, _triangle)
_RULES.setdefault(numpy.triu, _triangle)
