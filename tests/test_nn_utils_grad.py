"""ember.nn.utils gradient utilities against torch.nn.utils in float64: clip_grad_norm_ (every
norm order), get_total_norm, clip_grads_with_norm_, clip_grad_value_, parameters_to_vector,
vector_to_parameters; None grads, single tensors, generators, nonfinite norms, errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn.utils as eu

try:
    import torch
    import torch.nn.utils as tu
except ImportError:  # pragma: no cover - CI installs torch
    torch = tu = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

SHAPES = [(3, 4), (5,), (), (2, 3, 2)]
NORMS = [2, 2.0, 1, 3, 0.5, 0, math.inf, "inf", -math.inf, -1, -2.5]


def _params(lib, seed=0, none_at=(), dtype=np.float64, grad_scale=1.0, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    out = []
    for i, s in enumerate(shapes):
        p = lib.nn.Parameter(lib.from_numpy(np.asarray(rng.standard_normal(s)).astype(dtype)))
        g = np.asarray(grad_scale * rng.standard_normal(s)).astype(dtype)
        if i not in none_at:
            p.grad = lib.from_numpy(g)
        out.append(p)
    return out


def _grads(params):
    return [None if p.grad is None else p.grad.detach().numpy().copy() for p in params]


def _same_grads(ep, tp, rtol=1e-12):
    for a, b in zip(_grads(ep), _grads(tp)):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-15)


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001 - the type and message are what is compared
            return ("raised", type(e), str(e)), caught
    return ("value", value), caught


@needs_torch
@pytest.mark.parametrize("norm_type", NORMS)
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
@pytest.mark.parametrize("none_at", [(), (1,)])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, none_at):
    ep, tp = _params(ember, none_at=none_at), _params(torch, none_at=none_at)
    en = eu.clip_grad_norm_(ep, max_norm, norm_type=norm_type)
    tn = tu.clip_grad_norm_(tp, max_norm, norm_type=norm_type)
    assert isinstance(en, ember.Tensor) and en.shape == ()
    assert str(en.dtype) == str(tn.dtype).replace("torch", "ember")
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-12)
    _same_grads(ep, tp)


@needs_torch
@pytest.mark.parametrize("norm_type", [2, 1, math.inf, 0, 0.5])
def test_get_total_norm_and_clip_grads_with_norm_match_torch(norm_type):
    ep, tp = _params(ember, seed=3), _params(torch, seed=3)
    en = eu.get_total_norm([p.grad for p in ep], norm_type)
    tn = tu.get_total_norm([p.grad for p in tp], norm_type)
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-12)
    eu.clip_grads_with_norm_(ep, 0.3, en)
    tu.clip_grads_with_norm_(tp, 0.3, tn)
    _same_grads(ep, tp)


@needs_torch
def test_single_tensor_and_generators():
    ep, tp = _params(ember, seed=1), _params(torch, seed=1)
    # a single tensor is one parameter
    en = eu.clip_grad_norm_(ep[0], 0.1)
    tn = tu.clip_grad_norm_(tp[0], 0.1)
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-12)
    # a generator is read once (the norm and the scaling both see every parameter)
    en = eu.clip_grad_norm_((p for p in ep), 0.05, norm_type=1)
    tn = tu.clip_grad_norm_((p for p in tp), 0.05, norm_type=1)
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-12)
    eu.clip_grad_value_((p for p in ep), 0.004)
    tu.clip_grad_value_((p for p in tp), 0.004)
    _same_grads(ep, tp)
    assert max(np.abs(g).max() for g in _grads(ep)) <= 0.004
    et, tt = ember.from_numpy(np.array([3.0, -4.0])), torch.tensor([3.0, -4.0], dtype=torch.float64)
    assert eu.get_total_norm(et).item() == tu.get_total_norm(tt).item() == 5.0


@needs_torch
def test_float32_and_mixed_dtypes_match_torch():
    ep, tp = _params(ember, dtype=np.float32), _params(torch, dtype=np.float32)
    en, tn = eu.clip_grad_norm_(ep, 0.5), tu.clip_grad_norm_(tp, 0.5)
    assert en.dtype == ember.float32 and tn.dtype == torch.float32
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-6)
    _same_grads(ep, tp, rtol=1e-6)
    # a float32 and a float64 gradient: the total norm is float64, each gradient keeps its dtype
    big = [(4000,)]
    ea = _params(ember, seed=4, dtype=np.float32, shapes=big)
    ta = _params(torch, seed=4, dtype=np.float32, shapes=big)
    eb, tb = _params(ember, seed=5), _params(torch, seed=5)
    en = eu.clip_grad_norm_([ea[0], eb[1]], 0.7)
    tn = tu.clip_grad_norm_([ta[0], tb[1]], 0.7)
    assert en.dtype == ember.float64 and tn.dtype == torch.float64
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-7)
    assert ea[0].grad.dtype == ember.float32
    # the float32 gradient is scaled in float32 (the 0-d coefficient does not promote it)
    np.testing.assert_array_equal(ea[0].grad.numpy(), ta[0].grad.numpy())
    _same_grads([eb[1]], [tb[1]])


@needs_torch
@pytest.mark.parametrize("bad", [math.nan, math.inf])
@pytest.mark.parametrize("norm_type", [2.0, math.inf, 1])
def test_nonfinite_norms_match_torch(bad, norm_type):
    ep, tp = _params(ember), _params(torch)
    ep[0].grad[0, 1] = bad
    with torch.no_grad():
        tp[0].grad[0, 1] = bad
    ours = _outcome(lambda: eu.clip_grad_norm_(ep, 1.0, norm_type, error_if_nonfinite=True))[0]
    ref = _outcome(lambda: tu.clip_grad_norm_(tp, 1.0, norm_type, error_if_nonfinite=True))[0]
    assert ours == ref and ref[0] == "raised"
    # without the check the gradients are scaled by the nonfinite norm, as torch does
    en, tn = eu.clip_grad_norm_(ep, 1.0, norm_type), tu.clip_grad_norm_(tp, 1.0, norm_type)
    np.testing.assert_equal(en.item(), tn.item())
    for a, b in zip(_grads(ep), _grads(tp)):
        np.testing.assert_array_equal(a, b)


@needs_torch
@pytest.mark.parametrize("norm_type", [math.inf, -math.inf, -1, 2, 0])
@pytest.mark.parametrize("foreach", [None, False, True])
def test_empty_gradient_tensor_matches_torch(norm_type, foreach):
    shapes = [(0,), (2,)]
    ep, tp = _params(ember, shapes=shapes), _params(torch, shapes=shapes)
    ours, _ = _outcome(lambda: eu.clip_grad_norm_(ep, 1.0, norm_type, foreach=foreach))
    ref, _ = _outcome(lambda: tu.clip_grad_norm_(tp, 1.0, norm_type, foreach=foreach))
    if ref[0] == "raised":
        assert ours == ref
    else:
        np.testing.assert_allclose(ours[1].item(), ref[1].item(), rtol=1e-12)


@needs_torch
def test_no_gradients_and_empty_inputs_match_torch():
    ep, tp = _params(ember, none_at=range(4)), _params(torch, none_at=range(4))
    en, tn = eu.clip_grad_norm_(ep, 1.0), tu.clip_grad_norm_(tp, 1.0)
    assert en.item() == tn.item() == 0.0 and en.dtype == ember.float32
    assert eu.get_total_norm([]).item() == 0.0
    assert eu.clip_grad_norm_([], 1.0).item() == 0.0
    # an empty generator warns, an empty list does not
    ours, caught_e = _outcome(lambda: eu.clip_grad_norm_((p for p in []), 1.0))
    ref, caught_t = _outcome(lambda: tu.clip_grad_norm_((p for p in []), 1.0))
    assert [(w.category, str(w.message)) for w in caught_e] == [
        (w.category, str(w.message)) for w in caught_t
    ]
    assert len(caught_e) == 1 and caught_e[0].filename == __file__
    assert not _outcome(lambda: eu.clip_grad_norm_([], 1.0))[1]


@needs_torch
def test_deprecated_clip_grad_norm_warns_as_torch():
    ep, tp = _params(ember), _params(torch)
    ours, caught_e = _outcome(lambda: eu.clip_grad_norm(ep, 0.5, 3))
    ref, caught_t = _outcome(lambda: tu.clip_grad_norm(tp, 0.5, 3))
    assert [w.category for w in caught_e] == [w.category for w in caught_t] == [FutureWarning]
    assert str(caught_e[0].message) == str(caught_t[0].message).replace("torch", "ember")
    assert caught_e[0].filename == __file__
    np.testing.assert_allclose(ours[1].item(), ref[1].item(), rtol=1e-12)
    _same_grads(ep, tp)


@needs_torch
@pytest.mark.parametrize("kwargs", [{"norm_type": "fro"}, {"norm_type": None}, {"max_norm": "big"}])
def test_bad_arguments_match_torch(kwargs):
    args = {"max_norm": 1.0, **kwargs}
    ours = _outcome(lambda: eu.clip_grad_norm_(_params(ember), **args))[0]
    ref = _outcome(lambda: tu.clip_grad_norm_(_params(torch), **args))[0]
    assert ours == ref and ref[0] == "raised"


@needs_torch
@pytest.mark.parametrize("clip_value", [0.5, 2.0, -0.3])
def test_clip_grad_value_matches_torch(clip_value):
    ep, tp = _params(ember, none_at=(2,)), _params(torch, none_at=(2,))
    ep[1].grad[0] = math.nan
    with torch.no_grad():
        tp[1].grad[0] = math.nan
    assert eu.clip_grad_value_(ep, clip_value) is None
    tu.clip_grad_value_(tp, clip_value)
    for a, b in zip(_grads(ep), _grads(tp)):
        if b is not None:
            np.testing.assert_array_equal(a, b)
    assert _grads(ep)[2] is None


def test_clipping_writes_in_place_without_graph():
    w = ember.nn.Parameter(ember.zeros(2, dtype=ember.float64))
    w.grad = ember.tensor([3.0, 4.0], dtype=ember.float64)
    grad, version = w.grad, w.grad._version
    norm = eu.clip_grad_norm_([w], 1.0)
    assert w.grad is grad and grad._version > version
    assert norm.grad_fn is None and not norm.requires_grad
    np.testing.assert_allclose(grad.numpy(), [3 / (5 + 1e-6), 4 / (5 + 1e-6)], rtol=1e-15)


@needs_torch
def test_parameters_to_vector_matches_torch():
    ep, tp = _params(ember), _params(torch)
    ev, tv = eu.parameters_to_vector(ep), tu.parameters_to_vector(tp)
    np.testing.assert_array_equal(ev.detach().numpy(), tv.detach().numpy())
    assert ev.requires_grad and ev.grad_fn is not None
    # differentiable: the gradient flows back to each parameter
    (ev * ev).sum().backward()
    (tv * tv).sum().backward()
    for a, b in zip(ep, tp):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)
    ours = _outcome(lambda: eu.parameters_to_vector([]))[0]
    ref = _outcome(lambda: tu.parameters_to_vector([]))[0]
    assert ours[:2] == ref[:2]


@needs_torch
@pytest.mark.parametrize("extra", [0, 3])
def test_vector_to_parameters_matches_torch(extra):
    n = sum(int(np.prod(s)) for s in SHAPES)
    values = np.arange(n + extra, dtype=np.float64)
    ep, tp = _params(ember), _params(torch)
    ev, tv = ember.from_numpy(values.copy()), torch.from_numpy(values.copy())
    eu.vector_to_parameters(ev, (p for p in ep))
    tu.vector_to_parameters(tv, (p for p in tp))
    for a, b in zip(ep, tp):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert a.requires_grad
    # the parameters view the vector, as torch's do
    ev[0] = -7.0
    tv[0] = -7.0
    assert ep[0].detach().numpy()[0, 0] == tp[0].detach().numpy()[0, 0] == -7.0


@needs_torch
@pytest.mark.parametrize("case", ["not_tensor", "too_short"])
def test_vector_to_parameters_errors_match_torch(case):
    def run(lib, utils):
        params = _params(lib)
        vec = [1.0, 2.0] if case == "not_tensor" else lib.from_numpy(np.zeros(14))
        return lambda: utils.vector_to_parameters(vec, params)

    ours, ref = _outcome(run(ember, eu))[0], _outcome(run(torch, tu))[0]
    assert ref[0] == "raised" and ours == ref


@needs_torch
def test_exports_match_torch():
    names = [
        "clip_grad_norm",
        "clip_grad_norm_",
        "clip_grad_value_",
        "clip_grads_with_norm_",
        "get_total_norm",
        "parameters_to_vector",
        "vector_to_parameters",
        "clip_grad",
        "convert_parameters",
    ]
    for name in names:
        assert hasattr(tu, name) and hasattr(eu, name), name
