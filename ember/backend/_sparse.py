"""Array kernels behind ``ember.sparse``: COO/CSR bookkeeping in NumPy, products in SciPy.

Every function takes and returns raw NumPy arrays (indices are int64). SciPy is imported inside
the functions that need it, so that ``import ember`` does not load it.
"""

from __future__ import annotations

import numpy as np

_INT = np.dtype(np.int64)


def as_index_array(a) -> np.ndarray:
    """``a`` as an int64 array (torch casts float indices too)."""
    return np.asarray(a).astype(_INT, copy=False)


def infer_size(indices: np.ndarray, dense_shape: tuple) -> tuple:
    """The smallest size that holds every index, as ``sparse_coo_tensor`` without ``size=``."""
    if indices.shape[1] == 0:
        return (0,) * indices.shape[0] + tuple(dense_shape)
    return tuple(int(m) + 1 for m in indices.max(axis=1)) + tuple(dense_shape)


def check_coo_bounds(indices: np.ndarray, shape: tuple) -> str | None:
    """torch's message for the first index out of bounds (or negative), else None."""
    if indices.shape[1] == 0:
        return None
    lo = indices.min(axis=1)
    hi = indices.max(axis=1)
    for d in range(indices.shape[0]):
        if lo[d] < 0:
            return f"found negative index {int(lo[d])} for dim {d}"
        if hi[d] >= shape[d]:
            return (
                f"size is inconsistent with indices: for dim {d}, size is {shape[d]} but found "
                f"index {int(hi[d])}"
            )
    return None


def check_csr(crow: np.ndarray, col: np.ndarray, nnz: int, shape: tuple) -> str | None:
    """torch's message for the first violated CSR invariant, else None."""
    if crow.shape[0] != shape[0] + 1:
        return "`crow_indices.size(-1) == nrows + 1` is not satisfied."
    if crow[0] != 0:
        return "`crow_indices[..., 0] == 0` is not satisfied."
    if crow[-1] != nnz:
        return "`crow_indices[..., -1] == nnz` is not satisfied."
    if np.any(np.diff(crow) < 0):
        return "`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied."
    if nnz and (col.min() < 0 or col.max() >= shape[1]):
        return "`0 <= col_indices < ncols` is not satisfied."
    return None


def linear_keys(indices: np.ndarray, shape: tuple) -> np.ndarray:
    """Row-major linear position of each index column (over the sparse dims)."""
    if indices.shape[0] == 1:
        return indices[0]
    return np.ravel_multi_index(tuple(indices), shape[: indices.shape[0]])


def is_sorted_unique(indices: np.ndarray, shape: tuple) -> bool:
    """Whether the index columns are strictly increasing (the coalesced order)."""
    if indices.shape[1] < 2:
        return True
    k = linear_keys(indices, shape)
    return bool(np.all(k[1:] > k[:-1]))


def coalesce(indices: np.ndarray, values: np.ndarray, shape: tuple):
    """Sorted unique indices and summed values; also ``inverse``, the output slot of each
    input entry (the gradient of the values is ``grad[inverse]``)."""
    sd = indices.shape[0]
    keys = linear_keys(indices, shape)
    n = keys.shape[0]
    if n == 0:
        return indices.copy(), values.copy(), np.zeros(0, _INT)
    order = np.argsort(keys)  # duplicates sum in any order (stable sorting is 3x slower)
    sk = keys[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sk[1:], sk[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    inverse = np.empty(n, dtype=_INT)
    inverse[order] = np.cumsum(new) - 1
    uniq = sk[starts]
    if sd == 1:
        new_idx = uniq.reshape(1, -1).astype(_INT, copy=False)
    else:
        new_idx = np.stack(np.unravel_index(uniq, shape[:sd])).astype(_INT, copy=False)
    if starts.shape[0] == n:
        out = values[order]
    elif values.ndim > 1 and n >= 2048 and values.dtype.kind in "fc":
        out = _segment_sums(order, starts, values)
    else:
        out = np.add.reduceat(values[order], starts, axis=0)
    return new_idx, out, inverse


def _segment_sums(order: np.ndarray, starts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The sums of the rows ``values[order]`` over the segments beginning at ``starts``, as
    one SciPy (segments x entries) @ values product: ``np.add.reduceat`` along axis 0 of a
    2-D array is several times slower."""
    from scipy import sparse as sp

    n = order.shape[0]
    ct = _compute_dtype(values.dtype)
    indptr = np.append(starts, n).astype(_INT, copy=False)
    m = sp.csr_matrix((np.ones(n, ct), order, indptr), shape=(starts.shape[0], n))
    v2 = values.reshape(n, -1).astype(ct, copy=False)
    out = np.asarray(m @ v2).astype(values.dtype, copy=False)
    return out.reshape((starts.shape[0],) + values.shape[1:])


def dense_to_coo(a: np.ndarray, sparse_dim: int):
    """Indices of the nonzero slices of ``a`` over its first ``sparse_dim`` dims, and them."""
    if sparse_dim == a.ndim:
        mask = a != 0
    else:
        mask = np.any(a.reshape(a.shape[:sparse_dim] + (-1,)) != 0, axis=-1)
    idx = np.nonzero(mask)
    indices = np.stack(idx).astype(_INT) if idx else np.zeros((0, 1), _INT)
    if a.ndim == 0:
        return np.zeros((0, 1), _INT), a.reshape(1)
    return indices, a[idx]


def coo_to_dense(indices: np.ndarray, values: np.ndarray, shape: tuple, coalesced: bool):
    out = np.zeros(shape, dtype=values.dtype)
    if indices.shape[1] == 0:
        return out
    if coalesced:
        out[tuple(indices)] = values
    else:
        np.add.at(out, tuple(indices), values)
    return out


def gather(dense: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``dense`` at each index column: shape ``(nnz, *dense_dims)``."""
    return dense[tuple(indices)]


def sparse_lookup(keys: np.ndarray, src_keys: np.ndarray, src_values: np.ndarray):
    """The value at each of ``keys`` in a coalesced source (sorted ``src_keys``), zero where
    the source has no entry."""
    out = np.zeros((keys.shape[0],) + src_values.shape[1:], dtype=src_values.dtype)
    if src_keys.shape[0] == 0:
        return out
    pos = np.searchsorted(src_keys, keys)
    pos_c = np.minimum(pos, src_keys.shape[0] - 1)
    hit = src_keys[pos_c] == keys
    out[hit] = src_values[pos_c[hit]]
    return out


def intersect(keys_a: np.ndarray, keys_b: np.ndarray):
    """Positions in each of two sorted unique key arrays of their common keys."""
    _, ia, ib = np.intersect1d(keys_a, keys_b, assume_unique=True, return_indices=True)
    return ia, ib


def csr_rows(crow: np.ndarray) -> np.ndarray:
    """The row of each stored entry of a CSR matrix."""
    return np.repeat(np.arange(crow.shape[0] - 1, dtype=_INT), np.diff(crow))


def coo_to_csr(indices: np.ndarray, nrows: int):
    """``crow_indices`` and ``col_indices`` of a coalesced 2-D COO index array."""
    crow = np.zeros(nrows + 1, dtype=_INT)
    np.cumsum(np.bincount(indices[0], minlength=nrows), out=crow[1:])
    return crow, indices[1].copy()


def dense_to_csr(a: np.ndarray):
    rows, cols = np.nonzero(a)
    crow = np.zeros(a.shape[0] + 1, dtype=_INT)
    np.cumsum(np.bincount(rows, minlength=a.shape[0]), out=crow[1:])
    return crow, cols.astype(_INT), a[rows, cols]


def csr_to_dense(crow, col, values, shape):
    out = np.zeros(shape, dtype=values.dtype)
    out[csr_rows(crow), col] = values
    return out


def _compute_dtype(dt: np.dtype) -> np.dtype:
    # SciPy's sparse kernels have no float16 (nor bfloat16): compute in float32
    return np.dtype(np.float32) if dt.kind in "fV" and dt.itemsize < 4 else dt


def scipy_matrix(rows, cols, values, shape, crow=None):
    """A SciPy CSR matrix over the entries (duplicates summed). With ``crow`` given, ``cols``
    and ``values`` are already in CSR order and are used without a copy."""
    from scipy import sparse as sp

    values = values.astype(_compute_dtype(values.dtype), copy=False)
    if crow is not None:
        return sp.csr_matrix((values, cols, crow), shape=shape, copy=False)
    # SciPy's COO -> CSR conversion is a counting sort: no argsort of the keys
    return sp.coo_matrix((values, (rows, cols)), shape=shape).tocsr()


def spmm(mat, dense: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """``mat @ dense`` for a SciPy sparse matrix and a 1-D or 2-D array."""
    r = mat @ dense.astype(_compute_dtype(dense.dtype), copy=False)
    return np.asarray(r).astype(out_dtype, copy=False)


def transpose_matrix(mat):
    """``mat.T`` as CSR (a CSC @ dense product scatters; a CSR one gathers, and is faster)."""
    t = mat.T
    return (t.conj() if t.dtype.kind == "c" else t).tocsr()  # conjugate: torch's complex grads


def sddmm(rows: np.ndarray, cols: np.ndarray, g: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``(g @ d.T)[rows, cols]`` without the dense product: one dot per stored entry, in
    blocks so the gathered rows stay in cache."""
    n = rows.shape[0]
    if d.dtype.kind == "c":  # the conjugate Wirtinger convention: g @ d^H
        d = np.conj(d)
    if g.ndim == 1:  # (n,) output gradient of a matrix-vector product: d is (k,)
        return g[rows] * d[cols]
    out = np.empty(n, dtype=np.result_type(g.dtype, d.dtype))
    step = max(1, (1 << 18) // max(1, g.shape[1]))
    for s in range(0, n, step):
        e = min(n, s + step)
        np.einsum("ij,ij->i", g[rows[s:e]], d[cols[s:e]], out=out[s:e])
    return out


def segment_softmax(indices: np.ndarray, values: np.ndarray, shape: tuple, dim: int, log: bool):
    """Softmax (or log-softmax) of the stored values over the entries that share every index
    but the one along ``dim`` (a sparse dim); implicit zeros take no part, as torch's."""
    other = np.delete(indices, dim, axis=0)
    if other.shape[0]:
        dims = tuple(n for i, n in enumerate(shape[: indices.shape[0]]) if i != dim)
        keys = np.ravel_multi_index(tuple(other), dims)
        _, group = np.unique(keys, return_inverse=True)
        group = group.reshape(-1)
    else:
        group = np.zeros(indices.shape[1], dtype=_INT)
    ng = int(group.max()) + 1 if group.shape[0] else 0
    mx = np.full((ng,) + values.shape[1:], -np.inf, dtype=values.dtype)
    np.maximum.at(mx, group, values)
    z = values - mx[group]
    e = np.exp(z)
    s = np.zeros((ng,) + values.shape[1:], dtype=values.dtype)
    np.add.at(s, group, e)
    if log:
        return z - np.log(s)[group], group
    return e / s[group], group


def segment_sum(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    ng = int(group.max()) + 1 if group.shape[0] else 0
    s = np.zeros((ng,) + values.shape[1:], dtype=values.dtype)
    np.add.at(s, group, values)
    return s[group]


def concat_entries(indices_list, values_list):
    return np.concatenate(indices_list, axis=1), np.concatenate(values_list, axis=0)


def csr_to_coo_indices(crow: np.ndarray, col: np.ndarray) -> np.ndarray:
    return np.stack([csr_rows(crow), col.astype(_INT, copy=False)])


def swap_rows(indices: np.ndarray, d0: int, d1: int) -> np.ndarray:
    out = indices.copy()
    out[[d0, d1]] = indices[[d1, d0]]
    return out


def keep_rows(indices: np.ndarray, rows: list) -> np.ndarray:
    return np.ascontiguousarray(indices[rows])


def insert_row(indices: np.ndarray, pos: int) -> np.ndarray:
    return np.insert(indices, pos, 0, axis=0)


def index_arrays(indices: np.ndarray) -> tuple:
    return tuple(indices)


def np_exp(a: np.ndarray) -> np.ndarray:
    return np.exp(a)


def empty_like_rows(n: int, values: np.ndarray) -> np.ndarray:
    return np.empty((n,) + values.shape[1:], dtype=values.dtype)


def nonzero_rows(indices: np.ndarray) -> np.ndarray:
    """The sorted distinct first indices (rows holding an entry)."""
    return np.unique(indices[0])


def row_col_grid(rows: np.ndarray, ncols: int) -> np.ndarray:
    """(2, len(rows) * ncols) indices of every column of each row, row-major."""
    return np.stack([np.repeat(rows, ncols), np.tile(np.arange(ncols, dtype=_INT), rows.shape[0])])


def add_entries(ia, va, ca: bool, ib, vb, cb: bool, shape: tuple, alpha=1):
    """Indices, values and coalesced flag of sparse ``a + alpha * b`` (COO), as torch's:
    ``a`` alone (a copy) when ``b`` is empty, ``alpha * b`` when ``a`` is; the sorted union
    (equal positions summed) when both are coalesced; else both entry lists one after the
    other, uncoalesced."""
    if vb.shape[0] == 0:
        return ia.copy(), va.copy(), ca
    vb = vb * alpha if alpha != 1 else vb.copy()
    if va.shape[0] == 0:
        return ib.copy(), vb, cb
    if not (ca and cb):
        if ia.shape == ib.shape and np.array_equal(ia, ib):
            # NOTE: matches torch: its walk over two equal entry lists sums them pairwise (a
            # momentum buffer fed the same rows keeps its size)
            return ia.copy(), (va + vb).astype(va.dtype, copy=False), ca and cb
        # NOTE: a deliberate difference: torch merges two lists with a two-pointer walk even
        # when unsorted, which interleaves their entries in a data-dependent order (and sums
        # pairs met at once); ember appends b's entries: the same tensor and coalesce()
        return np.concatenate([ia, ib], axis=1), np.concatenate([va, vb.astype(va.dtype)]), False
    ka, kb = linear_keys(ia, shape), linear_keys(ib, shape)
    keys = np.union1d(ka, kb)
    out = np.zeros((keys.shape[0],) + va.shape[1:], dtype=np.result_type(va, vb))
    out[np.searchsorted(keys, ka)] = va
    out[np.searchsorted(keys, kb)] += vb
    sd = ia.shape[0]
    if sd == 1:
        idx = keys.reshape(1, -1)
    else:
        idx = np.stack(np.unravel_index(keys, shape[:sd])).astype(_INT, copy=False)
    return idx, out.astype(va.dtype, copy=False), True


def dense_add_(out: np.ndarray, indices: np.ndarray, values: np.ndarray, alpha=1, coalesced=False):
    """``out += alpha * sparse`` in place (duplicate positions all added)."""
    n = values.shape[0]
    if n == 0:
        return out
    if coalesced:  # one entry per position: a plain fancy-index add
        out[tuple(indices)] += values * alpha if alpha != 1 else values
        return out
    if n < 2048 or not out.flags.c_contiguous:
        np.add.at(out, tuple(indices), values * alpha if alpha != 1 else values)
        return out
    # many entries: sum the duplicates first as one SciPy product (rows touched) x (entries)
    # @ values, far faster than np.add.at's per-element loop
    from scipy import sparse as sp

    keys = linear_keys(indices, out.shape)
    size = int(np.prod(out.shape[: indices.shape[0]]))
    v2 = values.reshape(n, -1)
    ct = _compute_dtype(v2.dtype)
    counts = np.bincount(keys, minlength=size)
    rows = np.flatnonzero(counts)
    order = np.argsort(keys, kind="stable")
    indptr = np.zeros(rows.shape[0] + 1, _INT)
    np.cumsum(counts[rows], out=indptr[1:])
    m = sp.csr_matrix((np.ones(n, ct), order, indptr), shape=(rows.shape[0], n))
    sums = m @ v2.astype(ct, copy=False)
    if alpha != 1:
        sums *= alpha
    flat = out.reshape(size, -1)
    flat[rows] += sums.astype(out.dtype, copy=False)
    return out


def empty_indices(sparse_dim: int) -> np.ndarray:
    return np.zeros((sparse_dim, 0), _INT)


def empty_values(dense_shape: tuple, like: np.ndarray) -> np.ndarray:
    return np.zeros((0,) + tuple(dense_shape), like.dtype)


def empty_csr(nrows: int):
    """``crow_indices`` and ``col_indices`` of an all-zero CSR matrix."""
    return np.zeros(nrows + 1, _INT), np.zeros(0, _INT)


def dense_spmm(d: np.ndarray, mat_t, out_dtype: np.dtype) -> np.ndarray:
    """``d @ S`` for a dense 1-D or 2-D ``d``, given ``mat_t`` = S^T as CSR: (S^T @ d^T)^T."""
    if d.ndim == 1:
        return spmm(mat_t, d, out_dtype)
    return np.ascontiguousarray(spmm(mat_t, d.T, out_dtype).T)


def sparse_product(a, b, out_dtype: np.dtype | None = None):
    """``a @ b`` for two SciPy CSR matrices, as CSR with sorted column indices."""
    p = (a @ b).tocsr()
    p.sort_indices()
    if out_dtype is not None and p.dtype != out_dtype:
        p = p.astype(out_dtype)
    return p


def csr_parts(p):
    """``crow_indices``, ``col_indices`` (int64) and values of a SciPy CSR matrix."""
    return p.indptr.astype(_INT), p.indices.astype(_INT), p.data


def sampled_dots(rows: np.ndarray, cols: np.ndarray, m1: np.ndarray, m2: np.ndarray):
    """``(m1 @ m2)[rows, cols]`` without the dense product (no conjugation)."""
    d = m2.T
    if d.dtype.kind == "c":  # sddmm conjugates its second operand: undo it
        d = np.conj(d)
    return sddmm(rows, cols, m1, d)


def has_duplicates(a: np.ndarray) -> bool:
    return np.unique(a).shape[0] != a.shape[0]


def diagonal_entries(offsets: np.ndarray, length: int, shape: tuple):
    """For ``spdiags``: the flat positions in the (k, length) diagonals array of the entries
    that land inside ``shape``, in (diagonal, column) order, and their (2, n) indices."""
    j = np.arange(length, dtype=_INT)
    r = j[None, :] - offsets[:, None]
    valid = (j[None, :] < shape[1]) & (r >= 0) & (r < shape[0])
    flat = np.flatnonzero(valid)
    rows = r.reshape(-1)[flat]
    cols = np.broadcast_to(j, r.shape).reshape(-1)[flat]
    return flat.astype(_INT), np.stack([rows, cols]).astype(_INT)


def out_of_range(idx: np.ndarray, n: int):
    """The first index outside [0, n), or None."""
    bad = np.flatnonzero((idx < 0) | (idx >= n))
    return int(idx[bad[0]]) if bad.shape[0] else None


def select_entries(indices: np.ndarray, dim: int, idx: np.ndarray):
    """For ``index_select`` on a sparse dim: the stored entries picked (an entry once per
    position of ``idx`` holding its index), grouped by that position, and their new indices
    (``dim`` renumbered to the position)."""
    keys = indices[dim]
    order = np.argsort(idx, kind="stable")
    sidx = idx[order]
    lo = np.searchsorted(sidx, keys, "left")
    cnt = np.searchsorted(sidx, keys, "right") - lo
    total = int(cnt.sum())
    e = np.repeat(np.arange(keys.shape[0], dtype=_INT), cnt)
    within = np.arange(total, dtype=_INT) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    p = order[np.repeat(lo, cnt) + within]
    o = np.lexsort((e, p))
    e, p = e[o], p[o]
    new = indices[:, e]
    new[dim] = p
    return e, new


def lookup_slots(src_indices: np.ndarray, indices: np.ndarray, shape: tuple) -> np.ndarray:
    """The slot of each index column in a coalesced (sorted) source, -1 where it has none."""
    src = linear_keys(src_indices, shape)
    keys = linear_keys(indices, shape)
    if src.shape[0] == 0:
        return np.full(keys.shape[0], -1, _INT)
    pos = np.minimum(np.searchsorted(src, keys), src.shape[0] - 1)
    return np.where(src[pos] == keys, pos, -1).astype(_INT)


def dense_plus_sparse(d, indices, values, coalesced: bool, sign: int, out=None) -> np.ndarray:
    """``d + sign * sparse`` (into ``out`` when given, which may be ``d``: in place)."""
    if out is None:
        out = np.array(d, dtype=np.result_type(d, values), copy=True)
    elif out is not d:
        np.copyto(out, d)
    return dense_add_(out, indices, values, sign, coalesced)


def stack_rows(rows) -> np.ndarray:
    return np.stack([np.asarray(r, dtype=_INT) for r in rows])


def dense_to_csc(a: np.ndarray):
    """``ccol_indices``, ``row_indices`` and values (column-major) of a 2-D array."""
    cols, rows = np.nonzero(a.T)
    ccol = np.zeros(a.shape[1] + 1, dtype=_INT)
    np.cumsum(np.bincount(cols, minlength=a.shape[1]), out=ccol[1:])
    return ccol, rows.astype(_INT), a[rows, cols]


def column_major_order(indices: np.ndarray, shape: tuple) -> np.ndarray:
    """The permutation putting the entries of a coalesced 2-D COO array in column-major
    order, and the ``ccol_indices``/``row_indices`` of that order."""
    rows, cols = indices[0], indices[1]
    order = np.lexsort((rows, cols))
    ccol = np.zeros(shape[1] + 1, dtype=_INT)
    np.cumsum(np.bincount(cols, minlength=shape[1]), out=ccol[1:])
    return order, ccol, rows[order].copy()


# ---- block compressed (BSR/BSC) -------------------------------------------------------------
def dense_to_blocks(a: np.ndarray, blocksize: tuple, column_major: bool):
    """Compressed and plain block indices and the (nnz, R, C) blocks of a 2-D array holding a
    nonzero (or NaN); blocks in row-major (BSR) or column-major (BSC) order."""
    R, C = blocksize
    a4 = a.reshape(a.shape[0] // R, R, a.shape[1] // C, C).transpose(0, 2, 1, 3)
    mask = a4.any(axis=(2, 3))
    if column_major:
        cb, rb = np.nonzero(mask.T)
        comp, plain, n = cb, rb, mask.shape[1]
    else:
        rb, cb = np.nonzero(mask)
        comp, plain, n = rb, cb, mask.shape[0]
    crow = np.zeros(n + 1, dtype=_INT)
    np.cumsum(np.bincount(comp, minlength=n), out=crow[1:])
    return crow, plain.astype(_INT), np.ascontiguousarray(a4[rb, cb])


def block_coords(crow: np.ndarray, plain: np.ndarray, column_major: bool):
    """Block row and block column of each stored block."""
    comp = csr_rows(crow)
    return (plain, comp) if column_major else (comp, plain)


def blocks_to_dense(rb, cb, values: np.ndarray, shape: tuple) -> np.ndarray:
    R, C = values.shape[1], values.shape[2]
    out = np.zeros((shape[0] // R, R, shape[1] // C, C) + values.shape[3:], dtype=values.dtype)
    out[rb, :, cb] = values  # advanced indices apart: the block axes come first, as in values
    return out.reshape(shape)


def gather_blocks(d: np.ndarray, rb, cb, blocksize: tuple) -> np.ndarray:
    """The (nnz, R, C) blocks of dense ``d`` at block coordinates (rb, cb)."""
    R, C = blocksize
    d4 = d.reshape(d.shape[0] // R, R, d.shape[1] // C, C)
    return np.ascontiguousarray(d4[rb, :, cb])


def block_element_indices(rb, cb, blocksize: tuple) -> np.ndarray:
    """(2, nnz * R * C) element indices of the stored blocks, blocks in storage order and
    row-major inside each block (torch's order when a blocked tensor becomes COO)."""
    R, C = blocksize
    n = rb.shape[0]
    i = np.arange(R, dtype=_INT)[:, None]
    j = np.arange(C, dtype=_INT)[None, :]
    rows = np.broadcast_to(rb[:, None, None] * R + i, (n, R, C)).reshape(-1)
    cols = np.broadcast_to(cb[:, None, None] * C + j, (n, R, C)).reshape(-1)
    return np.stack([rows, cols]).astype(_INT, copy=False)


def coo_to_blocks(indices: np.ndarray, shape: tuple, blocksize: tuple, column_major: bool):
    """For a coalesced 2-D COO array: the compressed and plain block indices, the block slot
    and in-block flat position of each entry, and the number of blocks."""
    R, C = blocksize
    rb, cb = indices[0] // R, indices[1] // C
    nbr, nbc = shape[0] // R, shape[1] // C
    key = cb * nbr + rb if column_major else rb * nbc + cb
    uniq, slot = np.unique(key, return_inverse=True)
    if column_major:
        comp, plain, n = uniq // nbr, uniq % nbr, nbc
    else:
        comp, plain, n = uniq // nbc, uniq % nbc, nbr
    crow = np.zeros(n + 1, dtype=_INT)
    np.cumsum(np.bincount(comp, minlength=n), out=crow[1:])
    pos = slot.reshape(-1) * (R * C) + (indices[0] % R) * C + indices[1] % C
    return crow, plain.astype(_INT), pos.astype(_INT), uniq.shape[0]


def bsr_matrix(crow, col, values: np.ndarray, shape: tuple, transpose: bool = False):
    """The SciPy CSR matrix of a BSR array over (nnz, R, C) blocks (of its transpose with
    ``transpose``: a BSC array's matrix). CSR, not SciPy's BSR: its products are 2-3x faster
    for every blocksize measured (2 to 32)."""
    from scipy import sparse as sp

    values = values.astype(_compute_dtype(values.dtype), copy=False)
    m = sp.bsr_matrix((values, col, crow), shape=shape, copy=False)
    return (m.T if transpose else m).tocsr()


def block_grads(rb, cb, g: np.ndarray, d: np.ndarray, blocksize: tuple) -> np.ndarray:
    """``(g @ d^H)`` read at the stored blocks: one small (R, K) @ (K, C) product per block,
    batched in chunks so the gathered rows stay small."""
    R, C = blocksize
    if g.ndim == 1:
        g, d = g[:, None], d[:, None]
    if d.dtype.kind == "c":
        d = np.conj(d)
    K = g.shape[1]
    g3 = g.reshape(-1, R, K)
    d3 = d.reshape(-1, C, K)
    n = rb.shape[0]
    out = np.empty((n, R, C), dtype=np.result_type(g.dtype, d.dtype))
    step = max(1, (1 << 18) // max(1, R * K + C * K))
    for s in range(0, n, step):
        e = min(n, s + step)
        np.matmul(g3[rb[s:e]], d3[cb[s:e]].transpose(0, 2, 1), out=out[s:e])
    return out


def check_blocked(crow, plain, nnz: int, shape: tuple, blocksize: tuple, names) -> str | None:
    """torch's message for the first violated BSR/BSC invariant, else None. ``names``: the
    compressed and plain index names and the plain dim's name ("col"/"ncols")."""
    cname, pname, dim_name = names
    column_major = cname == "ccol_indices"
    for d in (0, 1):
        if shape[d] % blocksize[d]:
            return (
                f"tensor shape[{d}] (={shape[d]}) must be divisible with blocksize[{d}] "
                f"(={blocksize[d]}) as defined by values shape"
            )
    nblocks = shape[1] // blocksize[1] if column_major else shape[0] // blocksize[0]
    nplain = shape[0] // blocksize[0] if column_major else shape[1] // blocksize[1]
    what = "column" if column_major else "row"
    if crow.shape[0] != nblocks + 1:
        return (
            f"{cname}.shape[-1] must be equal to the number of {what} blocks + 1 "
            f"(={nblocks + 1}), but got {crow.shape[0]}"
        )
    if plain.shape[0] != nnz:
        return (
            f"{pname}.shape[-1] must be equal to nnz (={nnz}) as defined by values.shape[0], "
            f"but got {plain.shape[0]}"
        )
    if crow[0] != 0:
        return f"`{cname}[..., 0] == 0` is not satisfied."
    if crow[-1] != nnz:
        return f"`{cname}[..., -1] == nnz` is not satisfied."
    if np.any(np.diff(crow) < 0) or np.any(np.diff(crow) > nplain):
        return f"`0 <= {cname}[..., 1:] - {cname}[..., :-1] <= {dim_name}` is not satisfied."
    if nnz and (plain.min() < 0 or plain.max() >= nplain):
        return f"`0 <= {pname} < {dim_name}` is not satisfied."
    if nnz > 1:
        step = np.diff(plain)
        same = csr_rows(crow)
        if np.any((step <= 0) & (same[1:] == same[:-1])):
            rows = "ncols" if column_major else "nrows"
            return (
                f"`{pname}[..., {cname}[..., i - 1]:{cname}[..., i]] for all i = 1, ..., "
                f"{rows} are sorted and distinct along the last dimension values` is not "
                "satisfied."
            )
    return None


def scatter_blocks(values: np.ndarray, pos: np.ndarray, nblocks: int, blocksize: tuple):
    """(nblocks, R, C) blocks holding ``values`` at flat positions ``pos`` (zeros elsewhere)."""
    R, C = blocksize
    out = np.zeros((nblocks * R * C,) + values.shape[1:], dtype=values.dtype)
    out[pos] = values
    return out.reshape((nblocks, R, C) + values.shape[1:])
