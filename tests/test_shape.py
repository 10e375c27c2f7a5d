"""Shape ops: which results are views (shared memory and version counter), PyTorch's errors,
dtype promotion in cat/stack, warnings, grad_fn names, meta shapes, in-place on views."""

from __future__ import annotations

import numpy as np
import pytest

import ember


def _shares(a: ember.Tensor, b: ember.Tensor) -> bool:
    return np.shares_memory(a.detach().numpy(), b.detach().numpy())


# ---- views share memory and the version counter ---------------------------------------------
VIEWS = {
    "view": lambda x: x.view(6, 4),
    "reshape": lambda x: x.reshape(-1),
    "flatten": lambda x: x.flatten(1),
    "unflatten": lambda x: x.unflatten(2, (2, 2)),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "broadcast_to": lambda x: ember.broadcast_to(x, (3, 2, 3, 4)),
    "permute": lambda x: x.permute(2, 0, 1),
    "transpose": lambda x: x.transpose(0, 2),
    "mT": lambda x: x.mT,
    "movedim": lambda x: x.movedim(0, -1),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(2, -1),
    "unbind": lambda x: x.unbind(1)[2],
    "split": lambda x: x.split(2, 1)[1],
    "chunk": lambda x: x.chunk(2, 2)[1],
    "tensor_split": lambda x: x.tensor_split([1], 2)[1],
    "diagonal": lambda x: x.diagonal(0, 1, 2),
    "getitem": lambda x: x[1, ::2, None],
    "meshgrid": lambda x: ember.meshgrid(x[0, 0], x[1, 0], indexing="ij")[0],
    "atleast_3d": lambda x: ember.atleast_3d(x[0, 0]),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_view_shares_memory_and_version(name):
    x = ember.arange(24.0).reshape(2, 3, 4)
    v = VIEWS[name](x)
    assert v._base is not None and _shares(v, x), f"{name} should return a view"
    before = v._version
    x.add_(1)
    assert v._version == before + 1, f"{name}: the view must share the version counter"
    assert float(v.reshape(-1)[0]) == float(
        np.asarray(VIEWS[name](ember.arange(24.0).reshape(2, 3, 4) + 1).reshape(-1)[0])
    ), f"{name}: the view must see in-place changes"


COPIES = {
    "flip": lambda x: x.flip(0),
    "roll": lambda x: x.roll(1),
    "repeat": lambda x: x.repeat(1, 1, 1),
    "tile": lambda x: x.tile((1,)),
    "cat": lambda x: ember.cat([x]),
    "stack": lambda x: ember.stack([x]),
    "tril": lambda x: x.tril(5),
    "diag": lambda x: x[0].diag(),
    "repeat_interleave": lambda x: x.repeat_interleave(1, 0),
    "getitem_advanced": lambda x: x[[0, 1]],
    "reshape_non_contiguous": lambda x: x.transpose(0, 2).reshape(-1),
}


@pytest.mark.parametrize("name", list(COPIES))
def test_copies_do_not_alias(name):
    x = ember.arange(24.0).reshape(2, 3, 4)
    y = COPIES[name](x)
    assert not _shares(y, x), f"{name} must copy"
    before = y.numpy().copy()
    x.add_(1)
    np.testing.assert_array_equal(y.numpy(), before)


def test_view_of_view_points_at_the_root_base():
    x = ember.zeros(3, 4)
    v = x.t()[1:]
    assert v._base is x
    v[0, 0] = 5.0
    assert x[0, 1].item() == 5.0
    assert x._version == v._version == 1


# ---- view vs reshape ------------------------------------------------------------------------
def test_view_refuses_incompatible_strides():
    x = ember.zeros(4, 3).t()
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size"):
        x.view(12)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        ember.zeros(3, 1).expand(3, 4).view(12)
    y = x.reshape(12)  # reshape copies instead
    assert y._base is None and not _shares(y, x)
    assert y.grad_fn is None
    z = ember.zeros(4, 3, requires_grad=True).t().reshape(12)
    assert type(z.grad_fn).__name__ == "UnsafeViewBackward0"


def test_view_works_on_compatible_non_contiguous():
    x = ember.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2)  # dims 1, 2 still contiguous
    v = x.view(3, 2, 2, 2)
    assert _shares(v, x)
    np.testing.assert_array_equal(v.numpy(), x.numpy().reshape(3, 2, 2, 2))


@pytest.mark.parametrize(
    "shape,msg",
    [
        ((-1, -1), "only one dimension can be inferred"),
        ((5, -1), r"shape '\[5, -1\]' is invalid for input of size 12"),
        ((7,), r"shape '\[7\]' is invalid for input of size 12"),
        ((-2, 6), "invalid shape dimension -2"),
    ],
)
def test_reshape_errors(shape, msg):
    with pytest.raises(RuntimeError, match=msg):
        ember.zeros(3, 4).reshape(shape)


def test_reshape_zero_elements_ambiguous():
    with pytest.raises(RuntimeError, match="unspecified dimension size -1 can be any value"):
        ember.zeros(0, 2).reshape(-1, 0)


def test_flatten_single_dim_returns_input():
    x = ember.zeros(2, 3)
    assert x.flatten(1, 1) is x
    assert ember.tensor(1.0).flatten().shape == (1,)
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        x.flatten(1, 0)


GRAD_FN_NAMES = [
    (lambda x: x.view(-1), "ViewBackward0"),
    (lambda x: x.unsqueeze(0).squeeze(), "SqueezeBackward0"),
    (lambda x: x.unsqueeze(0).squeeze(0), "SqueezeBackward1"),
    (lambda x: x.unsqueeze(0).squeeze((0,)), "SqueezeBackward2"),
    (lambda x: x.unsqueeze(0), "UnsqueezeBackward0"),
    (lambda x: x.t(), "TBackward0"),
    (lambda x: x.transpose(0, 1), "TransposeBackward0"),
    (lambda x: x.T, "PermuteBackward0"),
    (lambda x: x.narrow(0, 0, 1), "SliceBackward0"),
    (lambda x: x.select(0, 0), "SelectBackward0"),
    (lambda x: x[...], "AliasBackward0"),
    (lambda x: x.unbind()[0], "UnbindBackward0"),
    (lambda x: x.split(1)[0], "SplitBackward0"),
    (lambda x: x.split([1, 2])[0], "SplitWithSizesBackward0"),
    (lambda x: x.chunk(2)[0], "SplitBackward0"),
    (lambda x: ember.cat([x, x]), "CatBackward0"),
    (lambda x: ember.stack([x, x]), "StackBackward0"),
    (lambda x: x.flip(0), "FlipBackward0"),
    (lambda x: x.roll(1), "RollBackward0"),
    (lambda x: x.repeat(2, 1), "RepeatBackward0"),
    (lambda x: x.tril(), "TrilBackward0"),
    (lambda x: x.triu(), "TriuBackward0"),
    (lambda x: x.diagonal(), "DiagonalBackward0"),
    (lambda x: x[0].diag(), "DiagEmbedBackward0"),
    (lambda x: x.diag_embed(), "DiagEmbedBackward0"),
    (lambda x: x.expand(2, 3, 4), "ExpandBackward0"),
    (lambda x: x.movedim(0, 1), "PermuteBackward0"),
    (lambda x: x.repeat_interleave(ember.tensor([1, 2, 0]), 0), "IndexSelectBackward0"),
]


@pytest.mark.parametrize("fn,name", GRAD_FN_NAMES, ids=[n for _, n in GRAD_FN_NAMES])
def test_grad_fn_names_match_torch(fn, name):
    x = ember.ones(3, 4, requires_grad=True) * 1
    out = fn(x)
    assert type(out.grad_fn).__name__ == name


# ---- cat / stack --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "a,b,want",
    [
        ("int64", "float16", "float16"),
        ("bool", "int8", "int8"),
        ("uint8", "int8", "int16"),
        ("float32", "float64", "float64"),
        ("int32", "int64", "int64"),
    ],
)
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_cat_stack_promote_like_torch(a, b, want, op):
    x = ember.ones(2, dtype=getattr(ember, a))
    y = ember.ones(2, dtype=getattr(ember, b))
    assert getattr(ember, op)([x, y]).dtype is getattr(ember, want)
    torch = pytest.importorskip("torch")
    t = getattr(torch, op)(
        [torch.ones(2, dtype=getattr(torch, a)), torch.ones(2, dtype=getattr(torch, b))]
    )
    assert str(t.dtype) == f"torch.{want}"


def test_cat_skips_legacy_empty_but_promotes_with_it():
    x = ember.ones(2, 3)
    e = ember.zeros(0, dtype=ember.float64, requires_grad=True)
    out = ember.cat([x, e, x])
    assert out.shape == (4, 3) and out.dtype is ember.float64
    out.sum().backward()
    assert e.grad.shape == (0,)
    assert ember.cat([ember.zeros(0), ember.zeros(0)]).shape == (0,)


def test_cat_gradient_splits_back():
    a = ember.ones(2, 3, requires_grad=True)
    b = ember.ones(2, 1, dtype=ember.float64, requires_grad=True)
    out = ember.cat([a, b], 1)
    (out * ember.arange(4.0)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0, 1, 2]] * 2)
    assert a.grad.dtype is ember.float32 and b.grad.dtype is ember.float64
    np.testing.assert_array_equal(b.grad.numpy(), [[3]] * 2)


@pytest.mark.parametrize(
    "fn,exc,msg",
    [
        (lambda: ember.cat([]), ValueError, r"expected a non-empty list of Tensors"),
        (lambda: ember.cat(ember.ones(2)), TypeError, "must be tuple of Tensors, not Tensor"),
        (lambda: ember.cat([ember.ones(2), 3]), TypeError, "expected Tensor as element 1"),
        (
            lambda: ember.cat([ember.tensor(1.0)]),
            RuntimeError,
            r"zero-dimensional tensor \(at position 0\) cannot be concatenated",
        ),
        (
            lambda: ember.cat([ember.ones(2, 3), ember.ones(3, 3)], 1),
            RuntimeError,
            "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
            "tensor number 1 in the list.",
        ),
        (
            lambda: ember.cat([ember.ones(2, 3), ember.ones(2, 3, 1)]),
            RuntimeError,
            "Tensors must have same number of dimensions: got 2 and 3",
        ),
        (lambda: ember.cat([ember.ones(2, 3)], 2), IndexError, "Dimension out of range"),
        (lambda: ember.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
        (
            lambda: ember.stack([ember.ones(2, 3), ember.ones(2)]),
            RuntimeError,
            r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and \[2\] at "
            r"entry 1",
        ),
    ],
)
def test_join_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


def test_cat_out():
    out = ember.empty(0)
    r = ember.cat([ember.ones(2), ember.zeros(1)], out=out)
    assert r is out and out.tolist() == [1.0, 1.0, 0.0]


# ---- splitting ------------------------------------------------------------------------------
def test_split_sizes_and_errors():
    x = ember.arange(5)
    assert [t.tolist() for t in x.split(2)] == [[0, 1], [2, 3], [4]]
    assert [t.tolist() for t in x.split([1, 0, 4])] == [[0], [], [1, 2, 3, 4]]
    assert [t.tolist() for t in x.chunk(3)] == [[0, 1], [2, 3], [4]]
    assert len(ember.arange(6).chunk(4)) == 3
    assert [t.tolist() for t in x.tensor_split(3)] == [[0, 1], [2, 3], [4]]
    assert [t.tolist() for t in x.tensor_split([1, 10])] == [[0], [1, 2, 3, 4], []]
    assert [t.shape for t in ember.zeros(0).chunk(3)] == [(0,)] * 3
    with pytest.raises(RuntimeError, match="split_sizes to sum exactly to 5"):
        x.split([1, 2])
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0"):
        x.split(0)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0"):
        x.chunk(0)
    with pytest.raises(RuntimeError, match="split expects at least a 1-dimensional tensor"):
        ember.tensor(1.0).split(1)


def test_unbind_backward_fills_missing_grads_with_zeros():
    x = ember.ones(3, 2, requires_grad=True)
    a, b, c = x.unbind(0)
    (b * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [2, 2], [0, 0]])


# ---- narrow / select / movedim errors ---------------------------------------------------------
@pytest.mark.parametrize(
    "fn,exc,msg",
    [
        (
            lambda x: x.narrow(1, 3, 2),
            RuntimeError,
            r"start \(3\) \+ length \(2\) exceeds dimension "
            r"size \(4\)\.",
        ),
        (
            lambda x: x.narrow(0, 4, 0),
            IndexError,
            r"start out of range \(expected to be in range of "
            r"\[-3, 3\], but got 4\)",
        ),
        (lambda x: x.narrow(0, 0, -1), RuntimeError, "narrow\\(\\): length must be non-negative."),
        (
            lambda x: x.select(1, 4),
            IndexError,
            r"select\(\): index 4 out of range for tensor of size "
            r"\[3, 4\] at dimension 1",
        ),
        (lambda x: x.movedim((0, 1), (0,)), RuntimeError, "movedim: Invalid source or destination"),
        (lambda x: x.movedim((0, 0), (1, 0)), RuntimeError, r"movedim: repeated dim in `source`"),
        (lambda x: x.permute(0, 0), RuntimeError, r"permute\(\): duplicate dims are not allowed."),
        (
            lambda x: x.permute(0),
            RuntimeError,
            "number of dimensions in the tensor input does not match",
        ),
        (lambda x: x.flip(0, 0), RuntimeError, "dim 0 appears multiple times in the list of dims"),
        (lambda x: x.squeeze((1, 1)), RuntimeError, "dim 1 appears multiple times"),
        (
            lambda x: x.roll((1, 2), 0),
            RuntimeError,
            "shifts and dimensions must align. shifts: 2, dims:1",
        ),
        (
            lambda x: x.repeat(2),
            RuntimeError,
            "Number of dimensions of repeat dims can not be smaller",
        ),
        (
            lambda x: x.expand(3),
            RuntimeError,
            r"the number of sizes provided \(1\) must be greater",
        ),
        (
            lambda x: x.expand(2, 4),
            RuntimeError,
            r"The expanded size of the tensor \(2\) must match "
            r"the existing size \(3\) at non-singleton "
            r"dimension 0",
        ),
        (
            lambda x: x.expand(-1, 3, 4),
            RuntimeError,
            "isn't allowed in a leading, non-existing dimension 0",
        ),
        (
            lambda x: x.unflatten(1, (3, -1)),
            RuntimeError,
            r"unflatten: Provided sizes \[3, -1\] don't "
            r"multiply up to the size of dim 1 \(4\)",
        ),
        (
            lambda x: x.diagonal(0, 1, 1),
            RuntimeError,
            "diagonal dimensions cannot be identical 1, 1",
        ),
        (
            lambda x: x.t().t().unsqueeze(0).t(),
            RuntimeError,
            r"t\(\) expects a tensor with <= 2 "
            r"dimensions, but self is 3D",
        ),
        (
            lambda x: x[0].mT,
            RuntimeError,
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
        ),
        (lambda x: x[0].tril(), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
        (
            lambda x: x.unsqueeze(0).diag(),
            RuntimeError,
            r"diag\(\): Supports 1D or 2D tensors. Got "
            r"3D",
        ),
        (lambda x: x[0].fliplr(), RuntimeError, "Input must be >= 2-d."),
        (
            lambda x: x.repeat_interleave(ember.tensor([1, 2]), 0),
            RuntimeError,
            r"repeats must have the same size as input along dim, but got repeats.size\(0\) = 2 "
            r"and input.size\(0\) = 3",
        ),
        (lambda x: x.repeat_interleave(-1), RuntimeError, "Repeats must be non-negative"),
        (
            lambda x: ember.broadcast_tensors(x, ember.ones(2)),
            RuntimeError,
            r"The size of tensor a \(4\) must match the size of tensor b \(2\) at non-singleton "
            r"dimension 1",
        ),
        (
            lambda x: ember.broadcast_shapes((3, 1), (4, 2)),
            RuntimeError,
            "Attempting to broadcast a dimension of length 4",
        ),
    ],
)
def test_shape_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(ember.zeros(3, 4))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.narrow(1, 3, 2),
        lambda L, x: x.select(1, 4),
        lambda L, x: x.movedim((0, 0), (1, 0)),
        lambda L, x: x.expand(2, 4),
        lambda L, x: L.cat([x, L.ones(3, 3)], 0),
        lambda L, x: x.view(5, -1),
        lambda L, x: x.split([1, 2], 1),
        lambda L, x: x.unbind(2),
        lambda L, x: x.diagonal(0, 1, 1),
    ],
)
def test_error_types_match_torch(fn):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as want:
        fn(torch, torch.zeros(3, 4))
    with pytest.raises(want.type):
        fn(ember, ember.zeros(3, 4))


# ---- warnings -------------------------------------------------------------------------------
def test_T_warns_off_2d_like_torch():
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert ember.zeros(2, 3, 4).T.shape == (4, 3, 2)
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        assert ember.tensor(1.0).T.shape == ()
    assert ember.zeros(2, 3).T.shape == (3, 2)  # no warning (warnings are errors here)


def test_meshgrid_without_indexing_warns_and_uses_ij():
    a, b = ember.arange(3), ember.arange(2)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        x, y = ember.meshgrid(a, b)
    assert x.shape == (3, 2)
    xs, ys = ember.meshgrid(a, b, indexing="xy")
    assert xs.shape == (2, 3) and xs[1].tolist() == [0, 1, 2] and ys[:, 0].tolist() == [0, 1]
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij"'):
        ember.meshgrid(a, indexing="yx")
    with pytest.raises(RuntimeError, match="meshgrid expects all tensors to have the same dtype"):
        ember.meshgrid(a, b.double(), indexing="ij")


# ---- in-place through views under autograd -------------------------------------------------------
def test_inplace_on_narrow_view_updates_base_gradient():
    x = ember.ones(3, 4, requires_grad=True)
    y = x * 2
    y.narrow(1, 1, 2).mul_(3)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 6, 6, 2]] * 3)


def test_inplace_on_diagonal_view():
    x = ember.ones(3, 3, requires_grad=True)
    y = x * 2
    y.diagonal().zero_()
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 - 2 * np.eye(3))
    np.testing.assert_array_equal(y.detach().numpy(), 2 - 2 * np.eye(3))


def test_diagonal_view_is_writable_without_grad():
    x = ember.zeros(3, 4)
    x.diagonal(1).fill_(7)
    np.testing.assert_array_equal(x.numpy(), 7 * np.eye(3, 4, 1))


# ---- parity ---------------------------------------------------------------------------------
PARITY = {
    "movedim": lambda L, x: x.movedim((0, 2), (2, 0)),
    "roll_flat": lambda L, x: x.roll(-7),
    "roll": lambda L, x: L.roll(x, (1, 2), (0, -1)),
    "repeat": lambda L, x: x.repeat(2, 1, 1, 3),
    "tile": lambda L, x: L.tile(x, (2, 2)),
    "repeat_interleave": lambda L, x: x.repeat_interleave(3, -1),
    "repeat_interleave_t": lambda L, x: x.repeat_interleave(L.tensor(2)),
    "diag_embed": lambda L, x: L.diag_embed(x, -2, 0, 3),
    "diagonal": lambda L, x: x.diagonal(-1, 2, 0),
    "triu": lambda L, x: x.triu(-1),
    "meshgrid_xy": lambda L, x: L.meshgrid(x[0, 0], x[1, 1], x[0, 1, :2], indexing="xy"),
    "dstack": lambda L, x: L.dstack([x[0], x[1]]),
    "column_stack": lambda L, x: L.column_stack([x[0, :, 0], x[1]]),
    "hsplit": lambda L, x: L.hsplit(x, [1, 2]),
    "flatten": lambda L, x: x.transpose(0, 1).flatten(0, 1),
}


@pytest.mark.parametrize("name", list(PARITY))
def test_parity_with_torch(name):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    xe = ember.tensor(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    oe, ot = PARITY[name](ember, xe), PARITY[name](torch, xt)
    oe = oe if isinstance(oe, (tuple, list)) else (oe,)
    ot = ot if isinstance(ot, (tuple, list)) else (ot,)
    assert len(oe) == len(ot)
    for e, t in zip(oe, ot, strict=False):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-10)
    w = [np.cos(np.arange(t.numel())).reshape(t.shape) for t in ot]
    sum((e * ember.tensor(g)).sum() for e, g in zip(oe, w, strict=False)).backward()
    sum((t * torch.tensor(g)).sum() for t, g in zip(ot, w, strict=False)).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-10)


# ---- meta -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn,shape",
    [
        (lambda x: ember.cat([x, x], 1), (2, 6, 4)),
        (lambda x: ember.stack([x, x], -1), (2, 3, 4, 2)),
        (lambda x: x.roll(1, 2), (2, 3, 4)),
        (lambda x: x.diagonal(1, 0, 2), (3, 2)),
        (lambda x: x.diag_embed(), (2, 3, 4, 4)),
        (lambda x: x.repeat(2, 1, 1, 1), (2, 2, 3, 4)),
        (lambda x: x.repeat_interleave(2, 1), (2, 6, 4)),
        (lambda x: x.tril(), (2, 3, 4)),
        (lambda x: x.flip(1), (2, 3, 4)),
        (lambda x: x.mT, (2, 4, 3)),
        (lambda x: x.split(2, 2)[1], (2, 3, 2)),
        (lambda x: x[:, [0, 0, 1, 2]], (2, 4, 4)),
    ],
)
def test_meta_shapes_without_data(fn, shape):
    x = ember.empty(2, 3, 4, device="meta")
    out = fn(x)
    assert out.is_meta and out.shape == shape and out.dtype is ember.float32


def test_meta_repeat_interleave():
    x = ember.empty(3, device="meta")
    # counts known on the CPU: the result shape is known
    assert x.repeat_interleave(ember.tensor([1, 2, 0])).shape == (3,)
    with pytest.raises(NotImplementedError, match="depends on the data"):
        x.repeat_interleave(ember.ones(3, dtype=ember.int64, device="meta"))
