"""Einstein summation, ``einsum``: torch's equation parsing (``...``, the implicit output,
repeated labels, size-1 broadcasting, the sublist form) and its errors, rewritten to a canonical
equation for one ``Einsum`` primitive, whose backward is again an einsum (so it has higher
derivatives).
"""

from __future__ import annotations

import math
import operator
import string

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import cj, xp_of
from ember.ops.linalg import _check_tensor, _dname, _no_bool
from ember.tensor import Tensor, _wrap

# ---- einsum ----------------------------------------------------------------------------------
_LETTERS = string.ascii_letters


def _einsum_arrays(eq: str, arrays):
    xp = xp_of(arrays[0])
    dt = arrays[0].dtype
    if dt.char in "eE":
        f32 = _dtype.float32._np
        return _einsum_arrays(eq, [a.astype(f32) for a in arrays]).astype(dt)
    if len(arrays) == 1:
        r = xp.einsum(eq, arrays[0])
        # NumPy returns views for permutations and diagonals: ember outputs own their memory
        return r.copy() if getattr(r, "base", None) is not None else r
    # BLAS-backed contraction order pays off once the loop nest is big; below that the path
    # search costs more than it saves.
    sizes = {}
    ins = eq.split("->")[0].split(",")
    for term, a in zip(ins, arrays, strict=True):
        sizes.update(zip(term, a.shape, strict=True))
    big = len(arrays) > 2 or math.prod(sizes.values()) > 32768
    return xp.einsum(eq, *arrays, optimize="greedy" if big else False)


class Einsum(Function):
    """``einsum`` on a canonical equation: explicit output, letters only, no broadcasting."""

    _array_forward = True
    # ember's own name: torch's einsum is a composite whose grad_fn is its last reshape.
    _node_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, eq, *ops):
        ctx.eq = eq
        ctx.save_for_backward(*ops)
        return _einsum_arrays(eq, ops)

    @staticmethod
    def backward(ctx, g):
        ops = ctx.saved_tensors
        lhs, out = ctx.eq.split("->")
        ins = lhs.split(",")
        grads = [None]
        for k, need in enumerate(ctx.needs_input_grad[1:]):
            grads.append(_einsum_grad(k, ins, out, ops, g) if need else None)
        return tuple(grads)


def _einsum_grad(k: int, ins: list, out: str, ops, g: Tensor) -> Tensor:
    """Gradient of a canonical einsum w.r.t. operand ``k``: the einsum of ``g`` with the other
    operands onto operand k's labels, then broadcast over labels only operand k has (summed
    away in forward) and placed on the diagonal for labels operand k repeats."""
    term = ins[k]
    shape = ops[k].shape
    sizes = dict(zip(term, shape, strict=True))
    uniq = "".join(dict.fromkeys(term))
    others = [j for j in range(len(ops)) if j != k]
    avail = set(out).union(*[set(ins[j]) for j in others])
    keep = "".join(c for c in uniq if c in avail)
    eq = ",".join([out] + [ins[j] for j in others]) + "->" + keep
    gk = _einsum_apply(eq, g, *[cj(ops[j]) for j in others])  # conj: complex gradients
    if len(keep) < len(uniq):
        gk = gk.reshape([sizes[c] if c in avail else 1 for c in uniq])
        gk = gk.expand([sizes[c] for c in uniq])
    if len(uniq) < len(term):
        used = set("".join(ins) + out)
        fresh = iter(c for c in _LETTERS if c not in used)
        seen, full, eyes = set(), [], []
        for c in term:
            if c in seen:
                f = next(fresh)
                full.append(f)
                eyes.append(c + f)
            else:
                seen.add(c)
                full.append(c)
        xp = xp_of(g._data)
        eye = [_wrap(xp.eye(sizes[e[0]], dtype=g._data.dtype)) for e in eyes]
        gk = _einsum_apply(",".join([uniq] + eyes) + "->" + "".join(full), gk, *eye)
    return gk


def _einsum_apply(eq: str, *ts: Tensor) -> Tensor:
    lhs, out = eq.split("->")
    if len(ts) == 1 and len(set(lhs)) == len(lhs) and sorted(lhs) == sorted(out):
        if lhs == out:
            return ts[0]
        return ts[0].permute([lhs.index(c) for c in out])
    return Einsum.apply(eq, *ts)


def _einsum_error(msg: str):
    return RuntimeError(f"einsum(): {msg}")


def _parse_terms(equation: str):
    """Split an equation into per-operand token lists (letters and '...') and the output's
    (None when implicit), with torch's errors."""
    eq = equation
    arrow = eq.find("->")
    lhs_end = arrow if arrow >= 0 else len(eq)

    def tokens(start, end, what):
        terms, cur, ell, i = [], [], False, start
        while i < end:
            c = eq[i]
            if c == " ":
                i += 1
                continue
            if c == "," and what == "input":
                terms.append(cur)
                cur, ell = [], False
                i += 1
                continue
            if c == ".":
                if eq[i : i + 3] != "..." or i + 3 > end:
                    raise _einsum_error(
                        f"found '.' for {what} that is not part of any ellipsis"
                        if what == "output"
                        else f"found '.' for operand {len(terms)} that is not part of any ellipsis"
                    )
                if ell:
                    where = "output" if what == "output" else f"operand {len(terms)}"
                    raise _einsum_error(
                        f"found '.' for {where} for which an ellipsis was already found"
                    )
                ell = True
                cur.append("...")
                i += 3
                continue
            if c not in _LETTERS:
                raise _einsum_error(
                    f"invalid subscript given at index {i} in the equation string, subscripts "
                    "must be in [a-zA-Z]"
                )
            cur.append(c)
            i += 1
        terms.append(cur)
        return terms

    ins = tokens(0, lhs_end, "input")
    out = tokens(arrow + 2, len(eq), "output")[0] if arrow >= 0 else None
    return ins, out


def _sublist_equation(args):
    """torch's sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as an equation."""

    def sub(n):
        if n is Ellipsis:
            return "..."
        n = operator.index(n)
        if 0 <= n < 26:
            return chr(ord("A") + n)
        if 26 <= n < 52:
            return chr(ord("a") + n - 26)
        raise ValueError(
            "einsum(): subscript in subscript list is not within the valid range [0, 52)"
        )

    eq = ",".join("".join(sub(s) for s in sl) for sl in args[1::2])
    if len(args) % 2 == 1:
        return eq + "->" + "".join(sub(s) for s in args[-1]), list(args[:-1:2])
    return eq, list(args[::2])


def einsum(*args) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    Supports ``...`` (broadcast batch dims), the implicit output (labels used once, sorted,
    after the ellipsis dims), repeated labels (diagonals, traces), size-1 broadcasting, the
    operands as a list, and torch's sublist form ``einsum(a, [0, 1], b, [1, 2])``.

    Example:
        >>> ember.einsum("bij,bjk->bik", ember.ones(5, 2, 3), ember.ones(5, 3, 4)).shape
        ember.Size([5, 2, 4])
        >>> ember.einsum("ii", ember.eye(3))
        tensor(3.)
    """
    if not args:
        raise TypeError(
            "einsum(): must specify the equation string and at least one operand, "
            "or at least one operand and its subscripts list"
        )
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], list(args[1:])
        if not isinstance(equation, str):
            raise TypeError(f"einsum(): the equation must be a str, got {type(equation).__name__}")
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    for i, t in enumerate(operands):
        _check_tensor("einsum", f"operands[{i}]", i + 2, t)
    if not operands:
        raise _einsum_error("must provide at least one operand")
    eq, operands = _canonical(equation, operands)
    if _ac.on and len(operands) > 1 and _ac.enabled():  # a contraction is torch's bmm
        operands = _ac.einsum_operands(eq, operands)
    dt = operands[0]._data.dtype
    for t in operands[1:]:
        if t._data.dtype != dt:
            raise RuntimeError(
                f"expected scalar type {_dname(operands[0])} but found {_dname(t)} (einsum "
                "operands must all have the same dtype; convert them first)"
            )
    if dt.kind == "b":
        lhs, out = eq.split("->")
        if len(operands) > 1:
            _no_bool("bmm", operands[0])
        if set(lhs) - set(out):
            # NOTE: matches torch: a bool sum counts, in int64.
            operands = [operands[0].long()]
    return Einsum.apply(eq, *operands)


def _canonical(equation: str, operands: list):
    """Rewrite ``equation`` for ``operands`` in canonical form: '...' replaced by letters of
    their own, an explicit output, and dims that broadcast (size 1 against a larger size of the
    same label) squeezed out of their operand. Returns the equation and the operands to use."""
    ins, out = _parse_terms(equation)
    if len(ins) > len(operands):
        raise _einsum_error("fewer operands were provided than specified in the equation")
    if len(ins) < len(operands):
        raise _einsum_error("more operands were provided than specified in the equation")
    used = set(equation)
    fresh = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for i, (term, t) in enumerate(zip(ins, operands, strict=True)):
        nd = t._data.ndim
        labels = len(term) - ("..." in term)
        if "..." in term:
            if labels > nd:
                raise _einsum_error(
                    f"the number of subscripts in the equation ({labels}) is more than the "
                    f"number of dimensions ({nd}) for operand {i}"
                )
            n_ell = max(n_ell, nd - labels)
        elif labels != nd:
            raise _einsum_error(
                f"the number of subscripts in the equation ({labels}) does not match the number "
                f"of dimensions ({nd}) for operand {i} and no ellipsis was given"
            )
    if n_ell > len(fresh):
        raise _einsum_error(f"too many dimensions ({n_ell}) under the ellipsis")
    ell = fresh[:n_ell]
    has_ell = any("..." in term for term in ins)

    def expand_term(term, nd):
        if "..." not in term:
            return "".join(term)
        e = nd - (len(term) - 1)
        i = term.index("...")
        return "".join(term[:i]) + "".join(ell[n_ell - e :]) + "".join(term[i + 1 :])

    terms = [expand_term(term, t._data.ndim) for term, t in zip(ins, operands, strict=True)]
    if out is None:
        counts = {}
        for term in ins:
            for c in term:
                if c != "...":
                    counts[c] = counts.get(c, 0) + 1
        out_s = ("".join(ell) if has_ell else "") + "".join(
            sorted(c for c, n in counts.items() if n == 1)
        )
    else:
        seen = set()
        for c in out:
            if c == "...":
                continue
            if c in seen:
                raise _einsum_error(f"output subscript {c} appears more than once in the output")
            if not any(c in term for term in ins):
                raise _einsum_error(
                    f"output subscript {c} does not appear in the equation for any input operand"
                )
            seen.add(c)
        out_s = "".join("".join(ell) if c == "..." else c for c in out)
    # label sizes, with torch's broadcasting of size-1 dims
    size = {}
    for i, (term, t) in enumerate(zip(terms, operands, strict=True)):
        own = {}
        for c, s in zip(term, t._data.shape, strict=True):
            if c in own and own[c] != s:
                raise _einsum_error(
                    f"subscript {c} is repeated for operand {i} but the sizes don't match, "
                    f"{s} != {own[c]}"
                )
            own[c] = s
            prev = size.get(c)
            if prev is None or prev == 1:
                size[c] = s
            elif s != prev and s != 1:
                raise _einsum_error(
                    f"subscript {c} has size {s} for operand {i} which does not broadcast with "
                    f"previously seen size {prev}"
                )
    new_ops = []
    for i, (term, t) in enumerate(zip(terms, operands, strict=True)):
        drop = [j for j, c in enumerate(term) if t._data.shape[j] == 1 and size[c] != 1]
        if drop:
            t = t.reshape([s for j, s in enumerate(t._data.shape) if j not in drop])
            terms[i] = "".join(c for j, c in enumerate(term) if j not in drop)
        new_ops.append(t)
    return ",".join(terms) + "->" + out_s, new_ops


__all__ = ["einsum"]
