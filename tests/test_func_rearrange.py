"""ember.func.rearrange: parity with torch.func.rearrange (values, shapes, view or copy, strides,
gradients, dtypes), its error types and messages, and the quirks it matches on purpose."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.func import rearrange
from ember.func._rearrange import DimensionBindError

try:
    import torch
    import torch.func
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _input(lib, data, layout):
    """The tensor in one of a few memory layouts (the view-or-copy answer depends on it)."""
    t = lib.tensor(data, dtype=lib.float64)
    if layout == "T":  # same shape, last two axes stored transposed
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    elif layout == "step":  # every other element of the last axis
        t = lib.tensor(np.repeat(data, 2, axis=-1), dtype=lib.float64)[..., ::2]
    return t.requires_grad_()


# (input shape, pattern, axis lengths, layout)
CASES = [
    ((2, 3, 4), "a b c -> a b c", {}, ""),
    ((2, 3, 4), "a b c -> c a b", {}, ""),
    ((2, 3, 4), "a b c -> a (b c)", {}, ""),
    ((2, 3, 4), "a b c -> (a b) c", {}, ""),
    ((2, 3, 4), "a b c -> (c b) a", {}, ""),
    ((2, 3, 4), "a b c -> (a b c)", {}, ""),
    ((2, 3, 4), "a b (c d) -> a b c d", {"d": 2}, ""),
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": 2, "d": 2}, ""),
    ((2, 3, 4), "a b (c d) -> a b (d c)", {"d": 2}, ""),
    ((2, 3, 4), "a b (c d) -> (a d) b c", {"c": 1}, ""),
    ((2, 3, 6), "b c (h w) -> b h w c", {"w": 2}, ""),
    ((4, 6, 8, 3), "b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}, ""),
    ((4, 6, 8, 3), "b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}, ""),
    ((2, 3, 4), "a b c -> a b 1 c", {}, ""),
    ((2, 3, 4), "a b c -> a () b c ()", {}, ""),
    ((2, 3, 4), "a b c -> (a 1 b) c", {}, ""),
    ((2, 1, 3, 4), "a 1 b c -> a b c", {}, ""),
    ((2, 1, 3, 4), "a () b c -> c a b", {}, ""),
    ((2, 1, 3, 1), "a (1) b 1 -> b a", {}, ""),
    ((2, 5, 3, 4), "a 1 b c -> a b c", {}, ""),  # torch sums a left "1" of any length
    ((2, 1, 3, 4), "a (b 1) c d -> a b c d", {}, ""),
    ((2, 3, 4), "... c -> c ...", {}, ""),
    ((2, 3, 4), "a ... -> ... a", {}, ""),
    ((2, 3, 4, 5), "a ... c -> c ... a", {}, ""),
    ((2, 3, 4), "a b c ... -> ... c b a", {}, ""),
    ((2, 3, 4), "... -> (...)", {}, ""),
    ((2, 3, 4, 5), "a ... -> a (...)", {}, ""),
    ((2, 3, 4, 5), "a ... -> (... a)", {}, ""),
    ((2, 1, 3, 4), "... 1 b c -> c ... b", {}, ""),
    ((6, 4), "(a b) c -> a b c", {"a": 2}, ""),
    ((2, 3, 4), "a b c -> a b c", {"a": 2, "b": 3, "c": -1}, ""),  # -1: infer
    ((2, 3, 4), "a b c -> (a b) c", {}, "T"),
    ((2, 3, 4), "a b c -> a (b c)", {}, "T"),
    ((2, 3, 4), "a b c -> a c b", {}, "T"),
    ((2, 3, 4), "a b c -> a (b c)", {}, "step"),
    ((2, 3, 4), "a b c -> (a b) c", {}, "step"),
    ((2, 3, 4), "a b c -> (c a) b", {}, "step"),
    ((1,), "1 -> ", {}, ""),
    ((3,), "a -> a 1", {}, ""),
    ((0, 4), "(a b) c -> a b c", {"b": 2}, ""),
    ((2, 3, 4), "a b c -> a b c 1 1 ", {}, ""),
]


def _run(lib, shape, pattern, lengths, layout, data, weight):
    x = _input(lib, data, layout)
    func = torch.func.rearrange if lib is torch else rearrange
    y = func(x, pattern, **lengths)
    (y * lib.tensor(weight, dtype=lib.float64)).sum().backward()
    return x, y


@needs_torch
@pytest.mark.parametrize(("shape", "pattern", "lengths", "layout"), CASES)
def test_matches_torch(shape, pattern, lengths, layout):
    rng = np.random.default_rng(len(CASES))
    data = rng.standard_normal(shape)
    ours = rearrange(ember.tensor(data), pattern, **lengths)
    weight = rng.standard_normal(tuple(ours.shape))
    ex, ey = _run(ember, shape, pattern, lengths, layout, data, weight)
    tx, ty = _run(torch, shape, pattern, lengths, layout, data, weight)
    assert tuple(ey.shape) == tuple(ty.shape)
    # exact except where a left "1" of length > 1 is summed (the order of the additions)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=0)
    assert ey._is_view() == ty._is_view(), "view where torch copies, or the reverse"
    if ey.numel():  # strides of an empty tensor are arbitrary
        assert ey.stride() == ty.stride()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    ("pattern", "lengths"),
    [
        ("b c (h w) -> b h w c", {"w": 2}),
        ("b c hw -> (b c) hw", {}),
        ("b ... -> ... b", {}),
        ("b c hw -> b 1 (hw c)", {}),
        ("b c hw -> hw b c", {}),
    ],
)
def test_gradcheck_and_gradgradcheck(pattern, lengths):
    x = ember.randn(2, 3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: rearrange(t, pattern, **lengths), (x,))
    assert ember.autograd.gradgradcheck(lambda t: rearrange(t, pattern, **lengths), (x,))


def test_values_without_torch():
    x = ember.arange(12).reshape(2, 6)
    y = rearrange(x, "a (b c) -> (c a) b", c=2)
    np.testing.assert_array_equal(
        y.numpy(), np.arange(12).reshape(2, 3, 2).transpose(2, 0, 1).reshape(4, 3)
    )
    assert not y._is_view()  # the merge of c and a cannot be a view
    z = rearrange(x, "a (b c) -> a b c", c=3)
    assert z._is_view() and z.shape == (2, 2, 3)
    z[0, 0, 0] = 100
    assert x[0, 0].item() == 100  # writes go through to the input


@needs_torch
def test_sequence_input_is_stacked():
    data = np.random.default_rng(1).standard_normal((3, 2, 4))
    for kind in (list, tuple):
        ours = [ember.tensor(d, requires_grad=True) for d in data]
        theirs = [torch.tensor(d, requires_grad=True) for d in data]
        ey = rearrange(kind(ours), "n a b -> a (n b)")
        ty = torch.func.rearrange(kind(theirs), "n a b -> a (n b)")
        np.testing.assert_array_equal(ey.detach().numpy(), ty.detach().numpy())
        (ey * ey).sum().backward()
        (ty * ty).sum().backward()
        for e, t in zip(ours, theirs):
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        rearrange([], "n -> n")
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        rearrange([ember.ones(2, 3), ember.zeros(2, 4)], "n a b -> a n b")


@needs_torch
@pytest.mark.parametrize(
    ("dtype", "pattern"),
    [
        ("int32", "a b 1 -> b a"),
        ("bool", "a b 1 -> b a"),
        ("int16", "a b c -> (b c) a"),
        ("float16", "a b c -> c 1 (a b)"),
        ("bool", "a b c -> c a b"),
    ],
)
def test_dtypes(dtype, pattern):
    data = np.arange(12).reshape(2, 6, 1) % 3
    ey = rearrange(ember.tensor(data, dtype=getattr(ember, dtype)), pattern)
    ty = torch.func.rearrange(torch.tensor(data, dtype=getattr(torch, dtype)), pattern)
    assert str(ey.dtype).split(".")[1] == str(ty.dtype).split(".")[1]  # a summed "1" makes int64
    np.testing.assert_array_equal(ey.numpy(), ty.numpy())


@needs_torch
@pytest.mark.parametrize("pattern", [" -> ", " -> 1", "... -> ... 1", "-> ()"])
def test_zero_dim_identity_returns_the_tensor(pattern):
    # NOTE: matches torch: a 0-d tensor with no left axes comes back as itself, even with a "1"
    for lib, func in ((ember, rearrange), (torch, torch.func.rearrange)):
        x = lib.tensor(3.0)
        assert func(x, pattern) is x


def test_meta_device_shapes():
    x = ember.empty(4, 6, 8, 3, device="meta")
    y = rearrange(x, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2)
    assert y.device.type == "meta" and y.shape == (4, 3, 4, 12)
    assert rearrange(x, "b h w 1 -> w b h", h=6).shape == (8, 4, 6)


# (input shape, pattern, axis lengths): each raises in torch; ember must raise the same
ERRORS = [
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": 3}),
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": 3, "d": 2}),
    ((2, 3, 4), "a b (c d) -> a b c d", {}),
    ((2, 3, 4), "a b (c d e) -> a b c d e", {"d": 2}),
    ((6, 4), "(a b) c -> a b c", {"a": 4}),
    ((2, 3, 4), "(a b) c d -> a b c d", {"a": 3, "c": 5}),
    ((2, 3, 4), "a b c -> a b c", {"a": 3}),
    ((2, 3, 4), "a b c -> a b c", {"c": 0}),
    ((2, 3, 4), "a b c -> a b c", {"c": -4}),
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": 0}),
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": -1}),
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": -1, "d": -4}),
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": True}),
    ((2, 3, 4), "a b (c d) -> a b c d", {"c": None}),
    ((2, 3, 4), "a b c -> a b c", {"d": 2}),
    ((2, 3, 4), "a b c -> a b", {}),
    ((2, 3, 4), "a b c -> a b c d", {}),
    ((2, 3, 4), "a b -> a b", {}),
    ((2, 3, 4), "a b c d -> a b c d", {}),
    ((2, 3, 4), "a b c d e ... -> a b c d e ...", {}),
    ((2, 3, 4), "a 1 b c -> a b c", {}),
    ((2, 3, 4), "a a c -> a c", {}),
    ((2, 3, 4), "a b c -> a a c", {}),
    ((2, 3, 4), "a b c -> a b 2 c", {}),
    ((2, 3, 4), "a b c -> a (b c) 0", {}),
    ((2, 3, 4), "(a ...) -> a", {}),
    ((2, 3, 4), "a b c -> ...", {}),
    ((2, 3, 4), "a ... ... -> a", {}),
    ((2, 3, 4), "a .. b -> a b", {}),
    ((2, 3, 4), "a b c", {}),
    ((2, 3, 4), "a b c -> a b c -> a b c", {}),
    ((2, 3, 4), "a (b c -> a b c", {}),
    ((2, 3, 4), "a b) c -> a b c", {}),
    ((2, 3, 4), "a ((b) c) -> a b c", {}),
    ((2, 3, 4), "a b c -> a b c*", {}),
    ((2, 3, 4), "a\tb c -> a b c", {}),
    ((2, 3, 4), "a b c -> a b _c", {}),
    ((2, 3, 4), "a b c_ -> a b c_", {}),
    ((2, 3, 4), "a b 2c -> a b 2c", {}),
    ((2, 3, 4), "a b c -> a b c", {"\u2026": 2}),
    ((2, 3, 4), "a b c -> a b c", {"...": 2}),
]


@needs_torch
@pytest.mark.parametrize(("shape", "pattern", "lengths"), ERRORS)
def test_errors_match_torch(shape, pattern, lengths):
    with pytest.raises(Exception) as theirs:  # noqa: PT011 - the type is what is compared
        torch.func.rearrange(torch.zeros(shape), pattern, **lengths)
    with pytest.raises(Exception) as ours:  # noqa: PT011
        rearrange(ember.zeros(shape), pattern, **lengths)
    # DimensionBindError is functorch.dim's class in torch and ember's own here: compare names
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert type(ours.value).__mro__[1:] == type(theirs.value).__mro__[1:]
    assert str(ours.value) == str(theirs.value)


def test_error_types_without_torch():
    x = ember.zeros(2, 3, 4)
    with pytest.raises(
        DimensionBindError, match=r"evenly fit into larger dimension: 4 vs \(3, '\?'\)"
    ):
        rearrange(x, "a b (c d) -> a b c d", c=3)
    with pytest.raises(ValueError, match=r"^Identifiers only on one side .*: \{'c'\}$"):
        rearrange(x, "a b c -> a b")
    with pytest.raises(TypeError, match="rearrange axis lengths must be integers"):
        rearrange(x, "a b (c d) -> a b c d", c=2.5)


def test_set_messages_name_every_axis():
    # a set's order follows string hashing, so compare the names, not the text
    with pytest.raises(ValueError, match="should be on both") as info:
        rearrange(ember.zeros(2, 3, 4), "a b c->abc")
    shown = str(info.value).split(": ", 1)[1]
    assert eval(shown) == {"a", "b", "c", "abc"}  # noqa: S307 - a set literal from our message


def test_integer_lengths_are_checked_on_every_call():
    # Deliberate difference: torch's pattern cache treats c=2.0 as c=2 after a call with c=2
    # and then accepts the float; ember keys its cache on the type too and always refuses it
    x = ember.zeros(2, 3, 4)
    assert rearrange(x, "a b (c d) -> a b c d", c=2).shape == (2, 3, 2, 2)
    with pytest.raises(TypeError, match="<class 'float'>"):
        rearrange(x, "a b (c d) -> a b c d", c=2.0)


def test_negative_lengths_raise_runtime_error():
    # torch raises RuntimeError from as_strided; ember says which axis and why
    with pytest.raises(RuntimeError, match=r"rearrange: axis d2 .* negative length -2"):
        rearrange(ember.zeros(2, 3, 4), "a b (c d) -> a b c d", c=-2, d=-2)


@needs_torch
@pytest.mark.parametrize(
    ("pattern", "category"),
    [("a b def -> a b def", RuntimeWarning), ("a b axis -> a b axis", FutureWarning)],
)
def test_discouraged_names_warn_like_torch(pattern, category):
    # two warnings on the first call (one per side), none once the pattern is cached
    for func, x in (
        (torch.func.rearrange, torch.zeros(2, 3, 5)),
        (rearrange, ember.zeros(2, 3, 5)),
    ):
        with pytest.warns(category, match="It is discouraged to use") as record:
            func(x, pattern)
        assert len(record) == 2
        func(x, pattern)  # pytest makes any warning an error
