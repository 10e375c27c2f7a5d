"""Indexing: ``x[index]`` (views for basic indexing, copies for advanced), ``x[index] = v``
(in place, autograd-aware), the index ops' errors, gradients with repeated indices, in-place
variants and version counters, meta tensors, and parity with torch."""

from __future__ import annotations

import numpy as np
import pytest

import ember

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))


def _shares(a, b) -> bool:
    return np.shares_memory(a.detach().numpy(), b.detach().numpy())


# ---- __getitem__ --------------------------------------------------------------------------------
GETITEM = {
    "int": lambda L, x: x[1],
    "neg_int": lambda L, x: x[-1],
    "slice_step": lambda L, x: x[::2, 1:3],
    "ellipsis": lambda L, x: x[..., 1],
    "none": lambda L, x: x[None, :, None],
    "ints": lambda L, x: x[1, 2, 3],
    "list": lambda L, x: x[[0, 2, 0]],
    "two_arrays": lambda L, x: x[[0, 1], [1, 2]],
    "separated": lambda L, x: x[[0, 1], :, [1, 2]],
    "int_then_adv": lambda L, x: x[0, :, [0, 1]],
    "int_middle_adv": lambda L, x: x[:, 0, [0, 1]],
    "broadcast": lambda L, x: x[L.tensor([[0], [1]]), L.tensor([1, 2, 3])],
    "mask": lambda L, x: x[x.detach() > 0],
    "mask_dim1": lambda L, x: x[:, x.detach()[0, :, 0] > 0],
    "mask_and_int_array": lambda L, x: x[L.tensor([True, False, True]), [1, 2]],
    "mask_0d": lambda L, x: x[L.tensor(True)],
    "true": lambda L, x: x[True],
    "false": lambda L, x: x[False],
    "int_tensor_0d": lambda L, x: x[L.tensor(1)],
    "tensor_0d_and_list": lambda L, x: x[L.tensor(1), :, [0, 1]],
    "none_between_adv": lambda L, x: x[[0], None, [0]],
    "none_then_adv": lambda L, x: x[:, None, [0, 1], [1]],
    "ellipsis_between_adv": lambda L, x: x[[0, 1], ..., [1, 2]],
    "repeated": lambda L, x: x[[0, 0, 0]],
    "repeated_nested": lambda L, x: x[:, [1, 1], :][:, :, [2, 2]],
    "int32_index": lambda L, x: x[L.tensor([0, 1], dtype=L.int32)],
    "numpy_index": lambda L, x: x[np.array([0, 2])],
    "empty_list": lambda L, x: x[[]],
    "negative_list": lambda L, x: x[[-3, -1]],
    "tensor_slice_bounds": lambda L, x: x[L.tensor(1) : L.tensor(3)],
    "empty_slice": lambda L, x: x[2:1],
    "view_of_view": lambda L, x: x[1:][0][::2],
}


@pytest.mark.parametrize("name", list(GETITEM))
def test_getitem_parity_with_torch(name):
    torch = pytest.importorskip("torch")
    xe = ember.tensor(X, requires_grad=True)
    xt = torch.tensor(X, requires_grad=True)
    ye, yt = GETITEM[name](ember, xe), GETITEM[name](torch, xt)
    assert ye.shape == tuple(yt.shape)
    np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    assert (ye._base is not None) == (yt._base is not None), "view-ness differs from torch"
    w = np.cos(np.arange(yt.numel())).reshape(yt.shape)
    (ye * ember.tensor(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=0)


def test_basic_index_is_a_view_advanced_is_a_copy():
    x = ember.zeros(3, 4)
    v = x[1, 1:]
    c = x[[1]]
    assert v._base is x and _shares(v, x)
    assert c._base is None and not _shares(c, x)
    x.add_(1)
    assert v.tolist() == [1.0, 1.0, 1.0] and c.tolist() == [[0.0] * 4]
    assert v._version == x._version == 1


def test_repeated_indices_accumulate_in_backward():
    x = ember.zeros(4, requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0, 0.0]
    y = ember.zeros(2, 3, requires_grad=True)
    i = ember.tensor([[1, 1], [1, 0]])
    y[i, :].sum().backward()
    assert y.grad.tolist() == [[1.0] * 3, [3.0] * 3]


def test_getitem_double_backward():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x[[0, 0, 2]] ** 2).sum()
    (g,) = ember.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [4.0, 0.0, 6.0]
    (h,) = ember.autograd.grad(g.sum(), x)
    assert h.tolist() == [4.0, 0.0, 2.0]


def test_getitem_backward_uses_the_indices_of_the_forward():
    # NOTE: deliberate difference: torch refuses this backward (the index tensor was modified
    # in place); ember copied the indices and gives the gradient of what was computed.
    x = ember.zeros(3, requires_grad=True)
    i = ember.tensor([0, 1])
    y = x[i]
    i[0] = 2
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize(
    "fn,exc,msg",
    [
        (lambda x: x[5], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
        (lambda x: x[[5]], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
        (lambda x: x[:, [-5]], IndexError, "index -5 is out of bounds for dimension 1 with size 4"),
        (lambda x: x[0, 0, 0, 0], IndexError, "too many indices for tensor of dimension 3"),
        (
            lambda x: x[1.0],
            IndexError,
            r"only integers, slices \(`:`\), ellipsis \(`...`\), None "
            r"and long or byte Variables are valid indices \(got float\)",
        ),
        (
            lambda x: x[ember.tensor([1.0])],
            IndexError,
            "tensors used as indices must be long, int, byte or bool tensors",
        ),
        (lambda x: x[ember.tensor([1], dtype=ember.int16)], IndexError, "must be long, int, byte"),
        (lambda x: x[::-1], ValueError, "step must be greater than zero"),
        (lambda x: x[::0], ValueError, "slice step cannot be zero"),
        (
            lambda x: x[ember.ones(2, dtype=ember.bool)],
            IndexError,
            r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed "
            r"tensor \[3, 4, 5\] at index 0",
        ),
        (
            lambda x: x[:, ember.ones(4, 4, dtype=ember.bool)],
            IndexError,
            r"The shape of the mask \[4, 4\] at index 1 does not match the shape of the indexed "
            r"tensor \[3, 4, 5\] at index 2",
        ),
        (lambda x: x[[0, 1], [0, 1, 2]], IndexError, "shape mismatch"),
        (lambda x: x[0][0][0][0], IndexError, "invalid index of a 0-dim tensor"),
    ],
)
def test_getitem_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(ember.zeros(3, 4, 5))


def test_getitem_warnings_like_torch():
    x = ember.arange(6.0).reshape(2, 3)
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        r = x[ember.tensor([1, 0], dtype=ember.uint8)]
    assert r.tolist() == [[0.0, 1.0, 2.0]]
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional"):
        r = x[[[0, 1], [2, 0]]]  # read as x[[0, 1], [2, 0]]
    assert r.tolist() == [2.0, 3.0]


def test_zero_dim_int_tensor_index_selects():
    x = ember.arange(12.0).reshape(3, 4)
    v = x[ember.tensor(1)]
    assert v._base is not None and _shares(v, x)  # a view, as for a Python int
    assert x[ember.tensor(1, dtype=ember.uint8)].tolist() == [4.0, 5.0, 6.0, 7.0]


# ---- __setitem__ ----------------------------------------------------------------------------
SETITEM = {
    "int_number": (lambda L: 0, lambda L: 5.0),
    "slice_int": (lambda L: (slice(None), 1), lambda L: 2),
    "row_tensor": (lambda L: 1, lambda L: L.arange(5.0)),
    "extra_leading_ones": (lambda L: 0, lambda L: L.ones(1, 1, 4, 5)),
    "advanced": (
        lambda L: (L.tensor([0, 2]), L.tensor([1, 3])),
        lambda L: L.tensor([[7.0], [8.0]]),
    ),
    "advanced_repeated_rows": (lambda L: L.tensor([0, 0]), lambda L: L.ones(4, 5)),
    "mask": (lambda L: L.tensor(X) > 0, lambda L: -1.0),
    "int_then_adv": (lambda L: (0, slice(None), [1, 3]), lambda L: L.zeros(4, 2)),
    "ellipsis": (lambda L: ..., lambda L: L.arange(5.0)),
    "none": (lambda L: None, lambda L: 1.5),
    "int_into_float": (lambda L: 1, lambda L: L.arange(5)),
    "double_into_float": (lambda L: 1, lambda L: L.ones(5, dtype=L.float64)),
}


@pytest.mark.parametrize("name", list(SETITEM))
def test_setitem_parity_with_torch(name):
    torch = pytest.importorskip("torch")
    key, val = SETITEM[name]
    xe, xt = ember.tensor(X, dtype=ember.float32), torch.tensor(X, dtype=torch.float32)
    xe[key(ember)] = val(ember)
    xt[key(torch)] = val(torch)
    np.testing.assert_array_equal(xe.numpy(), xt.numpy())
    assert xe._version == xt._version == 1


@pytest.mark.parametrize("name", list(SETITEM))
def test_setitem_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    key, val = SETITEM[name]
    out = []
    for L in (ember, torch):
        x = L.tensor(X, requires_grad=True)
        v = val(L)
        if isinstance(v, (ember.Tensor, torch.Tensor)) and v.dtype == L.float32:
            v = v.double()
        if isinstance(v, (ember.Tensor, torch.Tensor)) and v.is_floating_point():
            v = v.detach().requires_grad_()
        y = x * 2
        y[key(L)] = v
        (y * L.tensor(np.sin(np.arange(60.0)).reshape(3, 4, 5))).sum().backward()
        gv = (
            v.grad.numpy()
            if isinstance(v, (ember.Tensor, torch.Tensor)) and v.grad is not None
            else None
        )
        out.append((y.detach().numpy(), x.grad.numpy(), gv, type(y.grad_fn).__name__))
    (ye, gxe, gve, ne), (yt, gxt, gvt, nt) = out
    np.testing.assert_allclose(ye, yt, rtol=1e-12)
    np.testing.assert_allclose(gxe, gxt, rtol=1e-12)
    assert (gve is None) == (gvt is None)
    if gve is not None:
        np.testing.assert_allclose(gve, gvt, rtol=1e-12)
    assert ne == nt


def test_setitem_casts_and_wraps_like_torch():
    a = ember.zeros(3, dtype=ember.int64)
    a[0] = 2.7
    a[1] = ember.tensor(3.9)
    a[2] = True
    assert a.tolist() == [2, 3, 1]
    b = ember.zeros(2, dtype=ember.uint8)
    b[0] = -1  # NOTE: torch wraps -1 into uint8
    assert b.tolist() == [255, 0]
    with pytest.raises(
        RuntimeError, match="value cannot be converted to type uint8_t without overflow"
    ):
        b[1] = 256
    with pytest.raises(
        RuntimeError, match="value cannot be converted to type int without overflow"
    ):
        ember.zeros(1, dtype=ember.int32)[0] = float("nan")
    c = ember.zeros(2, dtype=ember.bool)
    c[0] = 0.5
    assert c.tolist() == [True, False]


@pytest.mark.parametrize(
    "value,name",
    [([1.0, 2.0], "list"), ((1.0,), "tuple"), (np.ones(4), "numpy.ndarray"), ("a", "str")],
)
def test_setitem_refuses_non_tensor_values(value, name):
    with pytest.raises(TypeError, match=f"can't assign a {name} to a"):
        ember.zeros(3, 4)[0] = value


def test_setitem_shape_mismatch():
    x = ember.zeros(3, 4)
    with pytest.raises(
        RuntimeError,
        match=r"shape mismatch: value tensor of shape \[3\] cannot "
        r"be broadcast to indexing result of shape \[4\]",
    ):
        x[0] = ember.ones(3)
    with pytest.raises(RuntimeError, match=r"indexing result of shape \[5\]"):
        x[ember.arange(12).reshape(3, 4) > 6] = ember.ones(3)


def test_setitem_on_leaf_requiring_grad():
    x = ember.zeros(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="a view of a leaf Variable that requires grad is "
        "being used in an in-place operation.",
    ):
        x[0] = 1.0
    with pytest.raises(
        RuntimeError,
        match="^a leaf Variable that requires grad is being used in an in-place operation.",
    ):
        x[[0]] = 1.0
    with ember.no_grad():
        x[0] = 1.0
    assert x.tolist() == [1.0, 0.0, 0.0] and x._version == 1 and x.requires_grad
    assert x.grad_fn is None


def test_setitem_no_grad_writes_in_place_and_bumps_version():
    x = ember.zeros(3, 4)
    row = x[1]
    data = x.numpy()
    x[1, [0, 2]] = 5.0
    assert x.numpy() is data or np.shares_memory(x.numpy(), data)
    assert row.tolist() == [5.0, 0.0, 5.0, 0.0]
    assert x._version == row._version == 1
    row[3] = ember.tensor(2.0)
    assert x[1, 3].item() == 2.0 and x._version == 2


def test_setitem_records_value_gradient_into_plain_tensor():
    w = ember.tensor(2.0, requires_grad=True)
    z = ember.zeros(3)
    z[1] = w
    z[2] = w * 3
    assert type(z.grad_fn).__name__ == "CopySlices" and z.requires_grad
    (z * ember.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert w.grad.item() == 11.0
    assert z._version == 2


def test_setitem_on_a_saved_tensor_breaks_backward():
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    z = y * y  # saves y
    y[0] = 1.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_setitem_through_a_view_reaches_the_base_gradient():
    x = ember.ones(3, 4, requires_grad=True)
    y = x * 2
    r = y[0]
    r[1] = 5.0
    assert type(y.grad_fn).__name__ == "CopySlices"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 0, 2, 2], [2] * 4, [2] * 4])
    assert y[0, 1].item() == 5.0


def test_setitem_into_a_view_of_a_plain_buffer_records_on_the_buffer():
    w = ember.tensor(2.0, requires_grad=True)
    buf = ember.zeros(3, 4)
    row = buf[0]
    row[1] = w * 3
    assert type(buf.grad_fn).__name__ == "CopySlices" and buf.requires_grad
    (buf * 2).sum().backward()
    assert w.grad.item() == 6.0


def test_setitem_memory_overlap():
    a = ember.arange(6.0)
    with pytest.raises(
        RuntimeError,
        match="some elements of the input tensor and the "
        "written-to tensor refer to a single memory location",
    ):
        a[1:] = a[:-1]
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        a[[0, 1]] = a[1:3]
    a[:] = a  # exact self-assignment is allowed
    a[::2] = a[1::2]  # interleaved, not dense: allowed, as in torch
    assert a.tolist() == [1.0, 1.0, 3.0, 3.0, 5.0, 5.0]
    b = ember.zeros(3, 1).expand(3, 4)
    with pytest.raises(
        RuntimeError,
        match="more than one element of the written-to tensor refers to a single memory location",
    ):
        b[0] = 1.0


# ---- index ops: errors ------------------------------------------------------------------------
I2 = ember.tensor([[0, 1], [2, 0]])


@pytest.mark.parametrize(
    "fn,exc,msg",
    [
        (
            lambda x: x.gather(1, ember.tensor([[0, 5]])),
            RuntimeError,
            "index 5 is out of bounds for dimension 1 with size 4",
        ),
        (lambda x: x.gather(1, ember.tensor([[0, -1]])), RuntimeError, "index -1 is out of bounds"),
        (
            lambda x: x.gather(1, ember.zeros(4, 2, dtype=ember.long)),
            RuntimeError,
            r"Size does not match at dimension 0 expected index \[4, 2\] to be no larger than self "
            r"\[3, 4\] apart from dimension 1",
        ),
        (
            lambda x: x.gather(1, ember.zeros(2, dtype=ember.long)),
            RuntimeError,
            "Index tensor must have the same number of dimensions as input tensor",
        ),
        (
            lambda x: x.gather(1, ember.zeros(2, 2)),
            RuntimeError,
            r"gather\(\): Expected dtype int32/int64 for index",
        ),
        (
            lambda x: x.scatter(1, I2, ember.ones(2, 2, dtype=ember.float64)),
            RuntimeError,
            r"scatter\(\): Expected self.dtype to be equal to src.dtype",
        ),
        (
            lambda x: x.scatter(1, I2, ember.ones(1, 2)),
            RuntimeError,
            r"Expected index \[2, 2\] to be no larger than self \[3, 4\] apart from dimension 1 "
            r"and to be no larger size than src \[1, 2\]",
        ),
        (
            lambda x: x.scatter(1, I2, 1.0, reduce="max"),
            RuntimeError,
            "reduce argument must be either add or multiply.",
        ),
        (
            lambda x: x.index_select(1, ember.tensor([[2]])),
            IndexError,
            r"index_select\(\): Index is supposed to be a vector",
        ),
        (lambda x: x.index_select(1, ember.tensor([4])), IndexError, "out of bounds"),
        (lambda x: x.index_select(1, ember.tensor([1.0])), RuntimeError, "Expected dtype int32"),
        (
            lambda x: x.index_add(0, ember.tensor([0, 0]), ember.ones(2, 3)),
            RuntimeError,
            r"source tensor shape must match self tensor shape, excluding the specified dimension. "
            r"Got self.shape = \[3, 4\] source.shape = \[2, 3\]",
        ),
        (
            lambda x: x.index_add(0, ember.tensor([0, 0]), ember.ones(2, 4, dtype=ember.int64)),
            RuntimeError,
            r"index_add_\(\): self \(Float\) and source \(Long\) must have the same "
            r"scalar type",
        ),
        (
            lambda x: x.index_add(0, ember.tensor([0, 1]), ember.ones(1, 4)),
            RuntimeError,
            r"Number of indices \(2\) should be equal to source.size\(dim\): \(1\), for dim: 0",
        ),
        (
            lambda x: x.index_copy(0, ember.tensor([3]), ember.ones(1, 4)),
            IndexError,
            "index 3 is out of bounds for dimension 0 with size 3",
        ),
        (
            lambda x: x.index_copy(0, ember.tensor([0]), ember.ones(1, 4, dtype=ember.int64)),
            RuntimeError,
            r"index_copy_\(\): self and source expected to have the same dtype",
        ),
        (
            lambda x: x.index_fill(1, ember.tensor([0]), ember.tensor([5.0])),
            RuntimeError,
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
            r"dimension\(s\).",
        ),
        (
            lambda x: x.masked_select(ember.ones(4, dtype=ember.uint8)),
            RuntimeError,
            "masked_select: expected BoolTensor for mask",
        ),
        (
            lambda x: x.masked_scatter(ember.ones(3, 4, dtype=ember.bool), ember.ones(3)),
            RuntimeError,
            "Number of elements of source < number of ones in mask",
        ),
        (
            lambda x: x.masked_scatter(ember.ones(4, dtype=ember.int64), ember.ones(12)),
            RuntimeError,
            "masked_scatter_ only supports boolean masks, but got mask with dtype Long",
        ),
        (
            lambda x: x.take(ember.tensor([12])),
            IndexError,
            "out of range: tried to access index 12 on a tensor of 12 elements.",
        ),
        (
            lambda x: x.put(ember.tensor([0, 1]), ember.ones(3)),
            IndexError,
            r"put_\(\): Expected source and index to have the same number of elements, but got "
            r"source.numel\(\) = 3, index.numel\(\) = 2",
        ),
        (
            lambda x: x.put(ember.tensor([0]), ember.ones(1, dtype=ember.float64)),
            RuntimeError,
            r"put_\(\): self and source expected to have the same dtype",
        ),
        (
            lambda x: x.index_put((ember.tensor([0]),), ember.ones(1, dtype=ember.float64)),
            RuntimeError,
            "Index put requires the source and destination dtypes match, got Float for "
            "the destination and Double for the source.",
        ),
        (
            lambda x: ember.take_along_dim(x, ember.tensor([0]), 1),
            RuntimeError,
            "input and indices should have the same number of dimensions",
        ),
        (
            lambda x: ember.select_scatter(x, ember.ones(3), 0, 0),
            RuntimeError,
            r"expected src to have a size equal to the slice of self. src size = \[3\], slice "
            r"size = \[4\]",
        ),
    ],
)
def test_index_op_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(ember.zeros(3, 4))


def test_scatter_reduce_warns_and_has_no_derivative():
    x = ember.ones(3, requires_grad=True)
    with pytest.warns(
        UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"
    ):
        y = x.scatter(0, ember.tensor([0, 0]), ember.full((2,), 2.0), reduce="add")
    assert y.tolist() == [5.0, 1.0, 1.0]
    z = x.scatter(0, ember.tensor([1, 1]), 3.0, reduce="multiply")  # value form: no warning
    assert z.tolist() == [1.0, 9.0, 1.0]
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        z.sum().backward()


def test_unique_backward_is_not_implemented():
    x = ember.tensor([2.0, 1.0, 2.0], requires_grad=True)
    u = ember.unique(x)
    assert u.tolist() == [1.0, 2.0] and u.requires_grad
    with pytest.raises(NotImplementedError, match="_unique2"):
        u.sum().backward()


# ---- index ops: gradients -----------------------------------------------------------------------
def test_gather_backward_accumulates_repeats():
    x = ember.zeros(2, 3, requires_grad=True)
    x.gather(1, ember.tensor([[0, 0, 0], [2, 1, 2]])).sum().backward()
    assert x.grad.tolist() == [[3.0, 0.0, 0.0], [0.0, 1.0, 2.0]]


def test_scatter_backward_zeroes_overwritten_positions():
    x = ember.ones(2, 3, requires_grad=True)
    s = ember.ones(2, 2, requires_grad=True)
    y = x.scatter(1, ember.tensor([[2, 0], [1, 2]]), s)
    (y * ember.arange(6.0).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [3.0, 0.0, 0.0]]
    assert s.grad.tolist() == [[2.0, 0.0], [4.0, 5.0]]


def test_scatter_src_larger_than_index_gets_a_padded_gradient():
    # NOTE: deliberate difference: torch's backward fails on this shape mismatch; ember gives
    # zero gradient to the part of src that scatter does not read.
    x = ember.zeros(2, 3, requires_grad=True)
    s = ember.ones(3, 3, requires_grad=True)
    x.scatter(1, ember.tensor([[2], [0]]), s).sum().backward()
    assert s.grad.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_index_select_and_take_backward_accumulate():
    x = ember.zeros(3, 2, requires_grad=True)
    x.index_select(0, ember.tensor([2, 2, 0])).sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    y = ember.zeros(2, 2, requires_grad=True)
    y.take(ember.tensor([[3, -1], [0, 3]])).sum().backward()
    assert y.grad.tolist() == [[1.0, 0.0], [0.0, 3.0]]


def test_index_fill_tensor_value_gradient_counts_each_position_once():
    x = ember.zeros(2, 3, requires_grad=True)
    v = ember.tensor(1.0, requires_grad=True)
    y = x.index_fill(1, ember.tensor([0, 0, 2]), v)
    assert type(y.grad_fn).__name__ == "IndexFillBackward1"
    y.sum().backward()
    assert v.grad.item() == 4.0  # two columns x two rows
    assert x.grad.tolist() == [[0.0, 1.0, 0.0]] * 2


def test_modifying_a_saved_index_breaks_backward():
    x = ember.ones(3, requires_grad=True)
    i = ember.tensor([0, 1])
    y = x.gather(0, i)
    i.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


GRAD_FN = [
    (lambda x: x.gather(1, I2), "GatherBackward0"),
    (lambda x: x.scatter(1, I2, ember.ones(2, 2)), "ScatterBackward0"),
    (lambda x: x.scatter(1, I2, 1.0), "ScatterBackward1"),
    (lambda x: x.scatter_add(1, I2, ember.ones(2, 2)), "ScatterAddBackward0"),
    (lambda x: x.index_select(1, ember.tensor([0])), "IndexSelectBackward0"),
    (lambda x: x.index_add(1, ember.tensor([0]), ember.ones(3, 1)), "IndexAddBackward0"),
    (lambda x: x.index_copy(1, ember.tensor([0]), ember.ones(3, 1)), "IndexCopyBackward0"),
    (lambda x: x.index_fill(1, ember.tensor([0]), 2.0), "IndexFillBackward0"),
    (lambda x: x.masked_select(x > 0), "MaskedSelectBackward0"),
    (lambda x: x.masked_scatter(x > 0, ember.ones(12)), "MaskedScatterBackward0"),
    (lambda x: x.take(ember.tensor([0])), "TakeBackward0"),
    (lambda x: x.put(ember.tensor([0]), ember.ones(1)), "PutBackward0"),
    (lambda x: x.index_put((ember.tensor([0]),), ember.ones(4)), "IndexPutBackward0"),
    (lambda x: ember.take_along_dim(x, ember.tensor([[0], [3], [1]]), 1), "GatherBackward0"),
    (lambda x: x[[0, 1]], "IndexBackward0"),
    (lambda x: x.clone().index_add_(1, ember.tensor([0]), ember.ones(3, 1)), "IndexAddBackward0"),
    (lambda x: x.clone().scatter_(1, I2, 1.0), "ScatterBackward1"),
]


@pytest.mark.parametrize("fn,name", GRAD_FN, ids=[n for _, n in GRAD_FN])
def test_index_grad_fn_names(fn, name):
    x = ember.ones(3, 4, requires_grad=True) * 1
    assert type(fn(x).grad_fn).__name__ == name


# ---- in-place variants ------------------------------------------------------------------------
INPLACE = {
    "index_add_": lambda L, y: y.index_add_(0, L.tensor([0, 0]), L.ones(2, 4), alpha=2),
    "index_copy_": lambda L, y: y.index_copy_(1, L.tensor([3, 1]), L.ones(3, 2) * 7),
    "index_fill_": lambda L, y: y.index_fill_(1, L.tensor([0, 0]), -1.0),
    "scatter_": lambda L, y: y.scatter_(1, L.tensor([[2, 0], [1, 3]]), L.ones(2, 2) * 4),
    "scatter_value_": lambda L, y: y.scatter_(0, L.tensor([[2, 0, 1, 1]]), 9.0),
    "scatter_add_": lambda L, y: y.scatter_add_(0, L.tensor([[2, 2, 0, 1]]), L.ones(1, 4)),
    "masked_scatter_": lambda L, y: y.masked_scatter_(
        L.tensor([True, False, True, True]), L.arange(9.0)
    ),
    "put_": lambda L, y: y.put_(L.tensor([0, 0, 11]), L.ones(3), accumulate=True),
    "index_put_": lambda L, y: y.index_put_(
        (L.tensor([1, 1]), L.tensor([0, 2])), L.tensor([3.0, 4.0])
    ),
}


@pytest.mark.parametrize("name", list(INPLACE))
@pytest.mark.parametrize("record", [False, True])
def test_inplace_matches_torch_and_bumps_version(name, record):
    torch = pytest.importorskip("torch")
    results = []
    for L in (ember, torch):
        base = L.tensor(X[:, :, 0].copy(), dtype=L.float32, requires_grad=record)
        y = base * 1 if record else base.clone()
        view = y[0]
        r = INPLACE[name](L, y)
        assert r is y
        results.append((y.detach().numpy().copy(), y._version, view._version))
        if record:
            y.pow(2).sum().backward()
            results[-1] += (base.grad.numpy(), type(y.grad_fn).__name__)
    e, t = results
    np.testing.assert_allclose(e[0], t[0], rtol=1e-6)
    assert e[1] == t[1] == e[2] == 1
    if record:
        np.testing.assert_allclose(e[3], t[3], rtol=1e-5)
        assert e[4] == t[4]


def test_inplace_on_leaf_requiring_grad_raises():
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation.",
    ):
        x.index_add_(0, ember.tensor([0]), ember.ones(1))
    with ember.no_grad():
        x.index_fill_(0, ember.tensor([2]), 0.0)
    assert x.tolist() == [1.0, 1.0, 0.0] and x._version == 1


def test_inplace_on_saved_tensor_breaks_backward():
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    y.scatter_(0, ember.tensor([0]), 5.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_on_a_view_updates_the_base():
    x = ember.ones(2, 3, requires_grad=True)
    y = x * 1
    y[1].index_fill_(0, ember.tensor([0, 2]), 0.0)
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [0.0, 1.0, 0.0]]


# ---- data-dependent ops -------------------------------------------------------------------------
def test_nonzero_and_unique():
    x = ember.tensor([[0, 3], [3, 0]])
    assert x.nonzero().tolist() == [[0, 1], [1, 0]] and x.nonzero().dtype is ember.int64
    r, c = x.nonzero(as_tuple=True)
    assert r.tolist() == [0, 1] and c.tolist() == [1, 0]
    assert ember.tensor(5).nonzero().shape == (1, 0)
    assert [t.shape for t in ember.tensor(5).nonzero(as_tuple=True)] == [(1,)]
    assert ember.argwhere(x).tolist() == [[0, 1], [1, 0]]
    u, inv, cnt = ember.unique(x, return_inverse=True, return_counts=True)
    assert u.tolist() == [0, 3] and inv.tolist() == [[0, 1], [1, 0]] and cnt.tolist() == [2, 2]
    assert ember.unique(ember.tensor([3.0, 1.0, 2.0, 1.0]), sorted=False).tolist() == [1, 2, 3]
    v, c2 = ember.unique_consecutive(ember.tensor([1, 1, 2, 1]), return_counts=True)
    assert v.tolist() == [1, 2, 1] and c2.tolist() == [2, 1, 1]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.nonzero(),
        lambda x: ember.argwhere(x),
        lambda x: x.unique(),
        lambda x: x.masked_select(x > 0),
        lambda x: x[x > 0],
    ],
)
def test_data_dependent_shapes_refuse_meta(fn):
    with pytest.raises(NotImplementedError, match="depends on the data|the result shape"):
        fn(ember.empty(3, 4, device="meta"))


@pytest.mark.parametrize(
    "fn,shape",
    [
        (lambda x: x[1:, None, [0, 0, 2]], (2, 1, 3)),
        (lambda x: x[ember.ones(5, 2, dtype=ember.int64, device="meta")], (5, 2, 4)),
        (lambda x: x.gather(1, ember.zeros(2, 6, dtype=ember.int64)), (2, 6)),
        (lambda x: x.scatter(1, ember.zeros(2, 2, dtype=ember.int64), 1.0), (3, 4)),
        (lambda x: x.index_select(0, ember.tensor([0, 0, 1, 2])), (4, 4)),
        (lambda x: x.index_add(0, ember.tensor([0]), ember.ones(1, 4, device="meta")), (3, 4)),
        (lambda x: x.take(ember.zeros(2, 5, dtype=ember.int64)), (2, 5)),
        (lambda x: x.masked_scatter(ember.ones(4, dtype=ember.bool), ember.ones(12)), (3, 4)),
        (lambda x: ember.take_along_dim(x, ember.zeros(3, 1, dtype=ember.int64), 1), (3, 1)),
    ],
)
def test_meta_index_ops(fn, shape):
    x = ember.empty(3, 4, device="meta")
    out = fn(x)
    assert out.is_meta and out.shape == shape


def test_meta_setitem_is_a_no_op_that_bumps_version():
    x = ember.empty(3, 4, device="meta")
    x[0, [1, 2]] = 1.0
    x[1] = ember.empty(4, device="meta")
    assert x._version == 2 and x.is_meta
