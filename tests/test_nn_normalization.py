"""Normalization family: F.batch_norm, layer_norm, group_norm, instance_norm, rms_norm,
local_response_norm, normalize and their modules, against torch (float64 parity at 1e-9 of
outputs, input and parameter gradients and running buffers), gradcheck, errors, repr, meta."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import ember
import ember.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None,
                                 reason="torch is the reference for this test (pip install torch)")

RTOL = 1e-9
F64 = ember.float64


def _rand(shape, seed=0, requires_grad=False, dtype=F64):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.tensor(a, dtype=dtype, requires_grad=requires_grad)


def _t(x, requires_grad=False):
    return torch.tensor(x.detach().numpy(), requires_grad=requires_grad)


def _close(a, b, rtol=RTOL, atol=1e-10):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _pair(name, *args, **kwargs):
    """An ember module and a torch module of the same class, weights copied by state_dict
    (numpy round trip: proves the keys match)."""
    t = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
    e = getattr(ember.nn, name)(*args, dtype=F64, **kwargs)
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.randn(p.shape, dtype=torch.float64))
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    assert list(e.state_dict()) == list(t.state_dict())
    return e, t


def _grads(e, t, ex, tx, ey, ty, seed=1):
    """Backward a random gradient through both and compare input and parameter gradients."""
    g = np.random.default_rng(seed).standard_normal(tuple(ey.shape))
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    _close(ex.grad, tx.grad)
    for (n, p), (tn, tp) in zip(e.named_parameters(), t.named_parameters()):
        assert n == tn
        _close(p.grad, tp.grad)


# ---- layer_norm --------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("shape,ns", [((4, 6, 8), (8,)), ((3, 5, 4), (5, 4)), ((7,), (7,)),
                                      ((2, 3, 4, 5), (3, 4, 5))])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
def test_layer_norm_module_parity(shape, ns, affine, bias):
    e, t = _pair("LayerNorm", ns, eps=1e-4, elementwise_affine=affine, bias=bias)
    ex = _rand(shape, requires_grad=True)
    tx = _t(ex, True)
    ey, ty = e(ex), t(tx)
    _close(ey, ty)
    assert ey.grad_fn.name() == ty.grad_fn.name() == "NativeLayerNormBackward0"
    _grads(e, t, ex, tx, ey, ty)


@needs_torch
def test_layer_norm_functional_weight_only_and_bias_only():
    x = _rand((5, 6), requires_grad=True)
    for w, b in ((_rand(6, 1, True), None), (None, _rand(6, 2, True))):
        tw = None if w is None else _t(w, True)
        tb = None if b is None else _t(b, True)
        tx = _t(x, True)
        x.grad = None
        y, ty = F.layer_norm(x, (6,), w, b), TF.layer_norm(tx, (6,), tw, tb)
        _close(y, ty)
        y.pow(3).sum().backward()
        ty.pow(3).sum().backward()
        _close(x.grad, tx.grad)
        for p, tp in ((w, tw), (b, tb)):
            if p is not None:
                _close(p.grad, tp.grad)


@needs_torch
@pytest.mark.parametrize("dtype,rtol", [("float32", 1e-5), ("float16", 2e-3)])
def test_layer_norm_low_precision(dtype, rtol):
    x = _rand((4, 32), dtype=getattr(ember, dtype), requires_grad=True)
    tx = _t(x, True)
    y, ty = F.layer_norm(x, (32,)), TF.layer_norm(tx, (32,))
    assert y.dtype == getattr(ember, dtype)
    _close(y.float(), ty.float(), rtol=rtol, atol=rtol)
    y.float().sum().backward()
    ty.float().sum().backward()
    _close(x.grad.float(), tx.grad.float(), rtol=rtol, atol=rtol)


def test_layer_norm_gradcheck_and_gradgradcheck():
    args = (_rand((3, 4), 0, True), _rand(4, 1, True), _rand(4, 2, True))

    def f(x, w, b):
        return F.layer_norm(x, (4,), w, b, 1e-3)

    assert ember.autograd.gradcheck(f, args)
    assert ember.autograd.gradgradcheck(f, args)
    x2 = _rand((2, 3, 2), 3, True)
    assert ember.autograd.gradgradcheck(lambda x: F.layer_norm(x, (3, 2)), (x2,))


@needs_torch
def test_layer_norm_double_backward_matches_torch():
    e, t = _pair("LayerNorm", 6)
    ex = _rand((3, 6), requires_grad=True)
    tx = _t(ex, True)
    (gx,) = ember.autograd.grad(e(ex).pow(2).sum(), ex, create_graph=True)
    (tgx,) = torch.autograd.grad(t(tx).pow(2).sum(), tx, create_graph=True)
    _close(gx, tgx)
    gx.sin().sum().backward()
    tgx.sin().sum().backward()
    _close(ex.grad, tx.grad)
    _close(e.weight.grad, t.weight.grad)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda F, x, o: F.layer_norm(x, (4,)),
    lambda F, x, o: F.layer_norm(x, (5,), o(4)),
    lambda F, x, o: F.layer_norm(x, (5,), o(5), o(4)),
    lambda F, x, o: F.layer_norm(x, (3, 5, 6)),
    lambda F, x, o: F.layer_norm(x, ()),
    lambda F, x, o: F.layer_norm(x, 5),
], ids=["input", "weight", "bias", "long_shape", "empty_shape", "int_shape"])
def test_layer_norm_errors_match_torch(call):
    x = _rand((4, 3, 5), dtype=ember.float32)
    with pytest.raises(Exception) as t:
        call(TF, _t(x), lambda n: torch.ones(n))
    with pytest.raises(type(t.value)) as e:
        call(F, x, lambda n: ember.ones(n))
    assert str(e.value) == str(t.value)


@needs_torch
def test_layer_norm_dtype_errors_match_torch():
    for xd, wd in (("float32", "float64"), ("float64", "float32")):
        with pytest.raises(RuntimeError) as t:
            TF.layer_norm(torch.ones(2, 3, dtype=getattr(torch, xd)), (3,),
                          torch.ones(3, dtype=getattr(torch, wd)))
        with pytest.raises(RuntimeError) as e:
            F.layer_norm(ember.ones(2, 3, dtype=getattr(ember, xd)), (3,),
                         ember.ones(3, dtype=getattr(ember, wd)))
        assert str(e.value) == str(t.value)
    with pytest.raises(NotImplementedError, match="LayerNormKernelImpl"):
        F.layer_norm(ember.ones(2, 3, dtype=ember.int64), (3,))


@needs_torch
@pytest.mark.parametrize("args,kw", [((4,), {}), ((3, 4), {}), (([3, 4],), {"eps": 1e-3}),
                                     ((4,), {"elementwise_affine": False}),
                                     ((4,), {"bias": False})])
def test_layer_norm_repr_constants_and_state(args, kw):
    e, t = ember.nn.LayerNorm(*args, **kw), torch.nn.LayerNorm(*args, **kw)
    assert repr(e) == repr(t)
    assert e.normalized_shape == t.normalized_shape
    assert list(e.state_dict()) == list(t.state_dict())
    assert ember.nn.LayerNorm.__constants__ == torch.nn.LayerNorm.__constants__
    for p in e.parameters():
        assert p.dtype == ember.float32


def test_layer_norm_default_init_and_reset():
    m = ember.nn.LayerNorm(5)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones(5, np.float32))
    np.testing.assert_array_equal(m.bias.detach().numpy(), np.zeros(5, np.float32))
    with ember.no_grad():
        m.weight.fill_(3.0)
    m.reset_parameters()
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones(5, np.float32))


def test_layer_norm_meta_allocates_nothing():
    tracemalloc.start()
    try:
        m = ember.nn.LayerNorm(10_000, device="meta")
        y = m(ember.empty(1000, 10_000, device="meta"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    assert m.weight.is_meta and m.weight.shape == (10_000,)
    assert y.is_meta and y.shape == (1000, 10_000)


def test_layer_norm_empty_input():
    x = ember.ones(0, 4, requires_grad=True)
    y = F.layer_norm(x, (4,), ember.ones(4, requires_grad=True))
    assert y.shape == (0, 4)
    y.sum().backward()
    assert x.grad.shape == (0, 4)
