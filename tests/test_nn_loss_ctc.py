"""F.ctc_loss and nn.CTCLoss against torch: values and gradients in float64 at 1e-9 (padded and
concatenated targets, unbatched input, every reduction, zero_infinity, repeated labels, empty
targets), errors, and the missing second derivative."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RTOL, ATOL = 1e-9, 1e-12


def _log_probs(t, n, c, seed=0, normalized=True):
    x = np.random.default_rng(seed).standard_normal((t, n, c)) * 2
    if normalized:
        x = x - np.log(np.exp(x).sum(-1, keepdims=True))
    return x


def _both(lp, targets, il, tl, as_list=False, **kw):
    """Loss and d loss / d log_probs (under a random output gradient) from ember and torch."""
    res = []
    for mod, F in ((ember, EF), (torch, TF)):
        x = mod.tensor(lp, requires_grad=True)
        lens = (il, tl) if as_list else (mod.tensor(il), mod.tensor(tl))
        out = F.ctc_loss(x, mod.tensor(targets), *lens, **kw)
        g = np.random.default_rng(11).standard_normal(tuple(out.shape))
        (gx,) = (ember.autograd.grad if mod is ember else torch.autograd.grad)(
            out, [x], mod.tensor(g)
        )
        res.append((out.detach().numpy(), gx.numpy(), tuple(out.shape)))
    return res


def _check(res):
    (oe, ge, se), (ot, gt, st) = res
    assert se == st
    np.testing.assert_allclose(oe, ot, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(ge, gt, rtol=RTOL, atol=ATOL)


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("blank", [0, 4])
def test_padded_targets(reduction, blank):
    t, n, c, s = 12, 4, 5, 4
    rng = np.random.default_rng(1)
    labels = [k for k in range(c) if k != blank]
    targets = rng.choice(labels, (n, s))
    targets[1, 1] = targets[1, 0]  # a repeated label needs a blank between the two
    il = np.array([12, 10, 7, 5])
    tl = np.array([4, 3, 0, 2])
    _check(_both(_log_probs(t, n, c), targets, il, tl, blank=blank, reduction=reduction))


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_concatenated_targets_and_list_lengths(reduction):
    t, n, c = 9, 3, 6
    tl = [3, 1, 4]
    targets = np.array([1, 1, 2, 5, 3, 3, 3, 4])
    il = [9, 6, 9]
    _check(_both(_log_probs(t, n, c, 2), targets, il, tl, as_list=True, reduction=reduction))
    _check(_both(_log_probs(t, n, c, 2), targets, np.array(il), np.array(tl), reduction=reduction))


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_unbatched(reduction):
    lp = _log_probs(8, 1, 4, 3)[:, 0]
    _check(_both(lp, np.array([1, 2, 2]), np.array(8), np.array(3), reduction=reduction))


@needs_torch
def test_gradient_for_unnormalized_inputs_is_torchs():
    # torch's gradient is exp(lp) - posterior (it assumes lp came from log_softmax); ember's too
    lp = _log_probs(7, 2, 4, 4, normalized=False)
    _check(
        _both(lp, np.array([[1, 2], [3, 3]]), np.array([7, 6]), np.array([2, 2]), reduction="sum")
    )


@needs_torch
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_impossible_alignment(zero_infinity):
    # three repeated labels need at least 5 frames; 3 are given: the loss is infinite
    lp = _log_probs(4, 2, 3, 5)
    targets = np.array([[1, 1, 1], [2, 1, 0]])
    res = _both(
        lp,
        targets,
        np.array([3, 4]),
        np.array([3, 2]),
        reduction="none",
        zero_infinity=zero_infinity,
    )
    (oe, ge, _), (ot, gt, _) = res
    np.testing.assert_array_equal(oe, ot)
    assert np.isinf(oe[0]) != zero_infinity
    np.testing.assert_allclose(ge, gt, rtol=RTOL, atol=ATOL)  # nan where torch has nan
    if zero_infinity:
        assert (ge[:, 0] == 0).all()
    else:
        assert np.isnan(ge[:3, 0]).all()


@needs_torch
def test_zero_input_length():
    lp = _log_probs(4, 2, 3, 6)
    res = _both(
        lp, np.array([[1, 2], [1, 1]]), np.array([0, 4]), np.array([0, 2]), reduction="none"
    )
    _check(res)


@needs_torch
def test_module_matches_functional_and_torch():
    lp = _log_probs(10, 3, 5, 7)
    targets = np.array([[1, 2, 3], [4, 4, 0], [2, 0, 0]])
    il, tl = np.array([10, 9, 8]), np.array([3, 2, 1])
    me = ember.nn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)
    mt = torch.nn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)
    assert repr(me) == repr(mt) == "CTCLoss()"
    assert (me.blank, me.reduction, me.zero_infinity) == (mt.blank, mt.reduction, mt.zero_infinity)
    xe = ember.tensor(lp, requires_grad=True)
    xt = torch.tensor(lp, requires_grad=True)
    le = me(xe, ember.tensor(targets), ember.tensor(il), ember.tensor(tl))
    lt = mt(xt, torch.tensor(targets), torch.tensor(il), torch.tensor(tl))
    np.testing.assert_allclose(le.item(), lt.item(), rtol=RTOL)
    le.backward()
    lt.backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=RTOL, atol=ATOL)


def test_float32_log_probs():
    lp = ember.randn(20, 2, 6).log_softmax(2).requires_grad_()
    loss = EF.ctc_loss(lp, ember.tensor([[1, 2, 3], [3, 3, 0]]), [20, 15], [3, 2])
    assert loss.dtype == ember.float32
    loss.backward()
    assert lp.grad.dtype == ember.float32 and np.isfinite(lp.grad.numpy()).all()
    assert (lp.grad.numpy()[15:, 1] == 0).all()  # frames past an input's length get nothing


@needs_torch
def test_double_backward_raises_as_torch():
    msgs = []
    for mod, F in ((ember, EF), (torch, TF)):
        x = mod.tensor(_log_probs(5, 1, 3, 8), requires_grad=True)
        out = F.ctc_loss(x, mod.tensor([[1, 2]]), mod.tensor([5]), mod.tensor([2]))
        (g,) = (ember.autograd.grad if mod is ember else torch.autograd.grad)(
            out, [x], create_graph=True
        )
        with pytest.raises(RuntimeError) as e:
            (ember.autograd.grad if mod is ember else torch.autograd.grad)(g.sum(), [x])
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def _err_cases():
    return [
        ("input_length_too_big", (6, 3, 5), [[1, 2, 3]] * 3, [7, 5, 4], [3, 2, 0], {}),
        ("input_length_negative", (6, 3, 5), [[1, 2, 3]] * 3, [6, -1, 4], [3, 2, 0], {}),
        ("target_length_too_big", (6, 3, 5), [[1, 2, 3]] * 3, [6, 5, 4], [4, 2, 0], {}),
        ("input_lengths_size", (6, 3, 5), [[1, 2, 3]] * 3, [6, 5], [3, 2, 0], {}),
        ("blank_out_of_range", (6, 3, 5), [[1, 2, 3]] * 3, [6, 5, 4], [3, 2, 0], {"blank": 5}),
        ("concatenated_too_short", (6, 3, 5), [1, 2, 3, 4], [6, 5, 4], [3, 2, 0], {}),
        ("bad_reduction", (6, 3, 5), [[1, 2, 3]] * 3, [6, 5, 4], [3, 2, 0], {"reduction": "avg"}),
    ]


@needs_torch
@pytest.mark.parametrize("case", _err_cases(), ids=[c[0] for c in _err_cases()])
def test_errors_match_torch(case):
    _, shape, targets, il, tl, kw = case
    errs = []
    for mod, F in ((ember, EF), (torch, TF)):
        x = mod.tensor(_log_probs(*shape))
        with pytest.raises(Exception) as e:
            F.ctc_loss(x, mod.tensor(targets), mod.tensor(il), mod.tensor(tl), **kw)
        errs.append((type(e.value), str(e.value)))
    assert errs[0] == errs[1]
