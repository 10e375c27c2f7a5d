"""The short paths that cut framework overhead give what the general paths give.

Each fast path (``F.linear``'s inline node for 2-D inputs, ``Linear``'s raw-array backward, the
engine's leaf and chain shortcuts) is compared with the general mechanism it stands for: same
outputs, same graph (node names, edges, ``needs_input_grad``, saved tensors), same gradients,
and the same errors. No timing here.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.ops import linear as L


def _leaf(shape, dtype=ember.float64, requires_grad=True, seed=0):
    rng = np.random.default_rng(seed + len(shape))
    t = ember.from_numpy(rng.standard_normal(shape)).to(dtype)
    return t.requires_grad_(requires_grad)


def _np(t):
    return t.detach().numpy()


def _general(cls, x, w, b):
    """The node ``Function.apply`` builds (the path the inline one stands for)."""
    return cls.apply(x, w, b)


def _grads(out, leaves, create_graph=False):
    g = ember.ones_like(out) if out.dim() else None
    return ember.autograd.grad(out, leaves, g, create_graph=create_graph, allow_unused=True)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(
    "needs", [(True, True, True), (False, True, True), (True, False, False), (False, False, True)]
)
def test_linear_inline_node_matches_apply(dtype, bias, needs):
    x = _leaf((5, 4), dtype, needs[0])
    w = _leaf((3, 4), dtype, needs[1])
    b = _leaf((3,), dtype, needs[2]) if bias else None
    cls = L.Linear if bias else L._Mm
    fast = F.linear(x, w, b)
    slow = _general(cls, x, w, b)
    np.testing.assert_array_equal(_np(fast), _np(slow))
    assert fast.dtype is slow.dtype and fast.requires_grad == slow.requires_grad
    if not slow.requires_grad:
        assert fast.grad_fn is None
        return
    nf, ns = fast.grad_fn, slow.grad_fn
    assert type(nf) is type(ns)
    assert nf.needs_input_grad == ns.needs_input_grad
    assert [e if e is None else e[1:] for e in nf._next] == [
        e if e is None else e[1:] for e in ns._next
    ]
    assert [e if e is None else e[0] for e in nf._next] == [
        e if e is None else e[0] for e in ns._next
    ]
    assert nf._out_meta == tuple(ns._out_meta) or list(nf._out_meta) == list(ns._out_meta)
    assert [s[0] for s in nf._saved] == [s[0] for s in ns._saved]
    leaves = [t for t in (x, w, b) if t is not None and t.requires_grad]
    for gf, gs in zip(_grads(fast.sum(), leaves), _grads(slow.sum(), leaves)):
        np.testing.assert_allclose(_np(gf), _np(gs), rtol=1e-6)


def test_linear_no_grad_and_inference():
    x, w, b = _leaf((2, 4)), _leaf((3, 4)), _leaf((3,))
    with ember.no_grad():
        y = F.linear(x, w, b)
    assert y.grad_fn is None and not y.requires_grad
    np.testing.assert_allclose(_np(y), _np(x) @ _np(w).T + _np(b))
    with ember.inference_mode():
        assert F.linear(x, w, b).grad_fn is None


def test_linear_inline_on_a_stale_view_sees_the_change():
    base = _leaf((2, 4), requires_grad=False).clone().requires_grad_()
    h = base * 1.0
    v = h[:, :]
    h.mul_(2.0)  # v is now stale
    w, b = _leaf((3, 4)), _leaf((3,))
    y = F.linear(v, w, b)
    expected = 2.0 * _np(base) @ _np(w).T + _np(b)
    np.testing.assert_allclose(_np(y), expected)
    (gb,) = ember.autograd.grad(y.sum(), base)
    np.testing.assert_allclose(_np(gb), 2.0 * np.ones((2, 3)) @ _np(w))


def test_linear_inline_records_anomaly_trace():
    x, w, b = _leaf((2, 4)), _leaf((3, 4)), _leaf((3,))
    with pytest.warns(UserWarning, match="Anomaly Detection"), ember.autograd.detect_anomaly():
        y = F.linear(x, w, b)
    assert y.grad_fn._trace is not None


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_linear_raw_backward_matches_tensor_backward(dtype):
    x, w, b = _leaf((6, 4), dtype), _leaf((3, 4), dtype), _leaf((3,), dtype)
    y = F.linear(x, w, b)
    g = _leaf((6, 3), dtype, requires_grad=False, seed=7)
    with ember.no_grad():  # as the engine runs it without create_graph: raw arrays
        raw = y.grad_fn._function.backward(y.grad_fn, g)
    formula = y.grad_fn._function.backward(y.grad_fn, g)  # recording on: the Tensor formulas
    assert all(r.__class__ is ember.Tensor and r.grad_fn is None for r in raw)
    assert raw[2].shape == (3,)
    # the Tensor formula hands back the bias's gradient unreduced (the engine sums it)
    np.testing.assert_allclose(_np(raw[0]), _np(formula[0]), rtol=1e-6)
    np.testing.assert_allclose(_np(raw[1]), _np(formula[1]), rtol=1e-6)
    np.testing.assert_allclose(_np(raw[2]), _np(formula[2]).sum(0), rtol=1e-5)


def test_linear_backward_broadcast_bias_reduced_by_engine():
    x, w = _leaf((5, 4)), _leaf((3, 4))
    b = _leaf((1, 3))  # not nn.Linear's 1-D bias: the engine reduces its gradient
    F.linear(x, w, b).sum().backward()
    np.testing.assert_allclose(_np(b.grad), np.full((1, 3), 5.0))
    np.testing.assert_allclose(_np(w.grad), np.tile(_np(x).sum(0), (3, 1)))


def test_linear_double_backward_through_inline_node():
    x, w, b = _leaf((3, 4)), _leaf((2, 4)), _leaf((2,))
    y = F.linear(x, w, b).tanh().sum()
    (gx,) = ember.autograd.grad(y, x, create_graph=True)
    (ggw,) = ember.autograd.grad(gx.pow(2).sum(), w)
    assert ggw.shape == w.shape
    assert ember.autograd.gradcheck(lambda a, c, d: F.linear(a, c, d).tanh(), (x, w, b))
    assert ember.autograd.gradgradcheck(lambda a, c, d: F.linear(a, c, d).tanh(), (x, w, b))


def test_linear_saved_input_modified_in_place_raises():
    x = _leaf((3, 4)).clone()
    w, b = _leaf((2, 4)), _leaf((2,))
    y = F.linear(x, w, b)
    with ember.no_grad():
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_linear_second_backward_needs_retain_graph():
    x, w, b = _leaf((3, 4)), _leaf((2, 4)), _leaf((2,))
    y = F.linear(x, w, b).sum()
    y.backward(retain_graph=True)
    first = w.grad.clone()
    y.backward()
    np.testing.assert_allclose(_np(w.grad), 2 * _np(first))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


# ---- the engine's first-gradient accumulation into a leaf -------------------------------------
def test_leaf_gradient_shared_by_two_leaves_is_copied():
    x, y = _leaf((3,)), _leaf((3,), seed=1)
    (x + y).sum().backward()  # AddBackward hands the same gradient to both
    assert not np.shares_memory(_np(x.grad), _np(y.grad))
    x.grad.add_(1.0)
    np.testing.assert_allclose(_np(y.grad), np.ones(3))


def test_leaf_gradient_that_is_a_view_or_the_seed_is_copied():
    x = _leaf((2, 3))
    x.sum().backward()  # the sum's gradient is an expanded (read-only) view of the seed
    assert _np(x.grad).flags.writeable and _np(x.grad).base is None
    x.grad.mul_(3.0)
    np.testing.assert_allclose(_np(x.grad), np.full((2, 3), 3.0))
    z = _leaf((4,))
    seed = ember.ones(4)
    (z * 1.0).backward(seed)  # MulBackward returns a fresh array: the leaf keeps it
    z2 = _leaf((4,))
    z2.backward(seed)  # the seed itself reaches the leaf: copied, the caller's tensor kept
    z2.grad.add_(1.0)
    np.testing.assert_allclose(_np(seed), np.ones(4))


def test_leaf_first_gradient_then_in_place_accumulation():
    x, w, b = _leaf((4, 3)), _leaf((2, 3)), _leaf((2,))
    F.linear(x, w, b).sum().backward()
    first = _np(w.grad).copy()
    grad_obj = w.grad
    F.linear(x, w, b).sum().backward()
    assert w.grad is grad_obj  # added in place
    np.testing.assert_allclose(_np(w.grad), 2 * first)
    np.testing.assert_allclose(_np(b.grad), np.full(2, 8.0))


def test_leaf_post_accumulate_hook_and_create_graph_take_the_general_path():
    x = _leaf((3,))
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(_np(t.grad).copy()))
    (x * 2.0).sum().backward()
    np.testing.assert_allclose(seen[0], np.full(3, 2.0))
    y = _leaf((3,))
    (y * y).sum().backward(create_graph=True)
    assert y.grad.grad_fn is not None  # a differentiable copy
    np.testing.assert_allclose(_np(y.grad), 2 * _np(y))


# ---- Module.zero_grad's parameter walk ---------------------------------------------------------
def _tree():
    nn = ember.nn
    shared = nn.Linear(2, 2)
    inner = nn.Sequential(nn.Linear(2, 3), shared, nn.Sequential(shared, nn.Linear(3, 1)))
    m = nn.Sequential(nn.Linear(1, 2), inner, nn.ReLU() if hasattr(nn, "ReLU") else nn.Identity())
    m.register_module("empty", None)
    m.extra = nn.Linear(4, 4, bias=False)
    m.extra.weight = inner[0].weight  # a parameter shared across modules
    m.tied = ember.nn.Parameter(ember.ones(2))
    return m


def test_parameter_list_matches_parameters_order_and_sharing():
    m = _tree()
    assert [id(p) for p in m._parameter_list()] == [id(p) for p in m.parameters()]
    assert len(m._parameter_list()) == len(list(m.parameters()))


def test_parameter_list_respects_an_overridden_traversal():
    nn = ember.nn

    class OnlyFirst(nn.Sequential):
        def named_modules(self, memo=None, prefix="", remove_duplicate=True):
            yield prefix, self
            yield from self[0].named_modules(memo, prefix + ".0", remove_duplicate)

    m = nn.Sequential(nn.Linear(2, 2), OnlyFirst(nn.Linear(2, 3), nn.Linear(3, 1)))
    assert [id(p) for p in m._parameter_list()] == [id(p) for p in m.parameters()]
    assert len(m._parameter_list()) == 4


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_reaches_every_parameter(set_to_none):
    m = _tree()
    for p in m.parameters():
        p.grad = ember.ones_like(p)
    m.zero_grad(set_to_none=set_to_none)
    for p in m.parameters():
        assert p.grad is None if set_to_none else not _np(p.grad).any()


# ---- _record's saved output (an activation keeping its result) --------------------------------
def test_saved_output_matches_the_general_save():
    from ember.autograd.function import _save, _SavedOutput

    x = _leaf((3, 4))
    y = x.exp()  # Exp saves its output
    (s,) = y.grad_fn._saved
    ref = _save(y._data, (x,), (x._data,), (y._data,), (y,))
    assert s.__class__ is ref.__class__ is _SavedOutput
    assert (s.data is ref.data, s.vc is ref.vc, s.version, s.nr, s.requires_grad) == (
        True,
        True,
        ref.version,
        ref.nr,
        ref.requires_grad,
    )
    (g,) = ember.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(_np(g), np.exp(_np(x)))


def test_saved_output_modified_in_place_raises():
    x = _leaf((3,))
    y = x.exp()
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="output 0 of"):
        y.sum().backward()


@pytest.mark.parametrize("batch", [0, 1, 7])
def test_linear_bias_gradient_for_any_batch(batch):
    x, w, b = _leaf((batch, 3)), _leaf((2, 3)), _leaf((2,))
    F.linear(x, w, b).pow(2).sum().backward()
    y = _np(x) @ _np(w).T + _np(b)
    np.testing.assert_allclose(_np(b.grad), (2 * y).sum(0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(w.grad), (2 * y).T @ _np(x), rtol=1e-12, atol=1e-12)


# ---- Sequential.forward calling forward directly when nothing is hooked -----------------------
def test_sequential_runs_child_hooks_and_overridden_calls():
    nn = ember.nn
    calls = []

    class Tagged(nn.Identity):
        def __call__(self, *args, **kwargs):
            calls.append("call")
            return super().__call__(*args, **kwargs)

    a, b, c = nn.Linear(3, 3), Tagged(), nn.Linear(3, 2)
    m = nn.Sequential(a, b, c)
    x = ember.randn(2, 3, requires_grad=True)
    plain = m(x)
    assert calls == ["call"]
    h1 = a.register_forward_pre_hook(lambda mod, inp: calls.append("pre"))
    h2 = c.register_forward_hook(lambda mod, inp, out: out * 2.0)
    h3 = c.register_full_backward_hook(lambda mod, gi, go: calls.append("bw"))
    out = m(x)
    np.testing.assert_allclose(_np(out), 2 * _np(plain))
    out.sum().backward()
    assert calls == ["call", "pre", "call", "bw"]
    for h in (h1, h2, h3):
        h.remove()
    h4 = nn.modules.module.register_module_forward_hook(
        lambda mod, inp, out: calls.append(type(mod).__name__)
    )
    try:
        m(x)
    finally:
        h4.remove()
    assert calls[-5:] == ["Linear", "call", "Tagged", "Linear", "Sequential"]


def test_leaf_keeps_a_fresh_gradient_and_copies_a_hooked_view():
    w = _leaf((2, 3))
    x = _leaf((4, 3), requires_grad=False)
    F.linear(x, w).sum().backward()
    assert w.grad.grad_fn is None and not w.grad.requires_grad and w.grad._base is None
    v = _leaf((3,))
    base = ember.ones(2, 3)
    v.register_hook(lambda g: base[0])  # a hook hands back a view of someone else's tensor
    (v * 2.0).sum().backward()
    v.grad.add_(1.0)
    np.testing.assert_allclose(_np(base), np.ones((2, 3)))
    np.testing.assert_allclose(_np(v.grad), np.full(3, 2.0))


def test_bias_gradient_ones_row_is_kept_per_backend():
    # the cached row of ones that sums a bias gradient must not cross from cpu to meta
    for device in ("cpu", "meta", "cpu"):
        m = ember.nn.Linear(4, 5, device=device)
        m(ember.empty(3, 4, device=device)).sum().backward()
        assert m.bias.grad.device.type == device and m.bias.grad.shape == (5,)
