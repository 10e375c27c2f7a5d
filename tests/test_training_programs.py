"""Whole training programs (tests/programs/training.py) on ember and on PyTorch: data loaders,
optimizers, schedulers, gradient clipping and checkpoints, compared number for number in float64.

The harness builds each model in both frameworks, copies torch's initial weights into ember's
(the two frameworks draw different random numbers), turns dropout off, and hands both the same
data. Checkpoints cross between the frameworks: a run resumed from the other framework's file
must continue the same trajectory."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from tests.programs import training
from tests.test_programs import load

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
pytestmark = pytest.mark.skipif(
    torch is None, reason="torch is the reference for these tests (pip install torch)"
)

RTOL, ATOL = 1e-8, 1e-10


def fresh(ns, state):
    """A new float64 model of a program, without dropout, holding ``state`` (torch tensors)."""
    model = ns["make_model"]().double()
    for m in model.modules():
        if type(m).__name__ == "Dropout":
            m.p = 0.0
    if isinstance(model, ember.nn.Module):
        state = {k: ember.from_numpy(v.numpy().copy()) for k, v in state.items()}
    model.load_state_dict(state)
    return model


def pair(source):
    """Both namespaces and float64 models, ember's with torch's weights and no dropout."""
    ne, nt = load(source, ember), load(source, torch)
    torch.manual_seed(0)
    mt, me = nt["make_model"]().double(), ne["make_model"]().double()
    for m in (*mt.modules(), *me.modules()):
        if type(m).__name__ == "Dropout":
            m.p = 0.0
    me.load_state_dict(
        {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in mt.state_dict().items()}
    )
    return ne, nt, me, mt


def close(ours, theirs, what):
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), what
        for k in theirs:
            close(ours[k], theirs[k], f"{what}[{k!r}]")
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs), what
        for i, (o, th) in enumerate(zip(ours, theirs)):
            close(o, th, f"{what}[{i}]")
    elif isinstance(theirs, torch.Tensor):
        assert isinstance(ours, (ember.Tensor, torch.Tensor)), (what, type(ours))
        assert tuple(ours.shape) == tuple(theirs.shape), what
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1], what
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=RTOL, atol=ATOL, err_msg=what
        )
    elif isinstance(theirs, float):
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL, err_msg=what)
    else:
        assert ours == theirs, what


def close_models(me, mt, what="model"):
    close(me.state_dict(), mt.state_dict(), what)


rng = np.random.default_rng(0)


def _classification_data(n=96, n_in=8):
    X = rng.standard_normal((n, n_in))
    y = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.5)
    return X, y


def test_classifier_with_checkpoint_resume_across_frameworks(tmp_path):
    ne, nt, me, mt = pair(training.CLASSIFIER)
    X, y = _classification_data()
    xe, ye = ember.from_numpy(X), ember.from_numpy(y)
    xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    init = {k: v.clone() for k, v in mt.state_dict().items()}

    # One uninterrupted run on each framework.
    he = ne["fit"](me, xe, ye, 5, tmp_path / "ember.pt")
    ht = nt["fit"](mt, xt, yt, 5, tmp_path / "torch.pt")
    close(he, ht, "history")
    close_models(me, mt)

    # Two epochs on ember, then torch resumes from ember's checkpoint; three epochs on torch,
    # then ember resumes from torch's: both land where the uninterrupted run did.
    ne["fit"](fresh(ne, init), xe, ye, 2, tmp_path / "ember_2.pt")
    mt2 = fresh(nt, init)
    tail = nt["fit"](mt2, xt, yt, 5, tmp_path / "rest.pt", resume_from=tmp_path / "ember_2.pt")
    close(tail, ht[2:], "torch resumed from ember's checkpoint")
    close(mt2.state_dict(), mt.state_dict(), "torch after resuming")

    nt["fit"](fresh(nt, init), xt, yt, 3, tmp_path / "torch_3.pt")
    me3 = fresh(ne, init)
    tail = ne["fit"](me3, xe, ye, 5, tmp_path / "rest.pt", resume_from=tmp_path / "torch_3.pt")
    close(tail, ht[3:], "ember resumed from torch's checkpoint")
    close_models(me3, mt)


def test_cnn_with_dict_dataset_param_groups_and_warmup_cosine():
    ne, nt, me, mt = pair(training.CNN_WARMUP_COSINE)
    images = rng.random((40, 1, 8, 8))
    labels = rng.integers(0, 10, 40)
    he = ne["fit"](me, images, labels, 5)
    ht = nt["fit"](mt, images, labels, 5)
    close(he, ht, "history")
    close_models(me, mt)


def test_nanogpt_training_loop():
    ne, nt, me, mt = pair(training.NANOGPT_TRAIN)
    data = rng.integers(0, 40, 300)
    (le, *ne_counts, oe) = ne["train"](me, ember.from_numpy(data))
    (lt, *nt_counts, ot) = nt["train"](mt, torch.from_numpy(data))
    assert ne_counts == nt_counts
    close(le, lt, "loss, grad norm, lr")
    close_models(me, mt)
    se, st = oe.state_dict(), ot.state_dict()
    close(se["param_groups"], st["param_groups"], "AdamW param_groups")
    close(se["state"], st["state"], "AdamW state")


def test_one_cycle_with_value_clipping():
    ne, nt, me, mt = pair(training.ONE_CYCLE)
    X = rng.standard_normal((60, 6))
    y = np.sin(X.sum(1, keepdims=True))
    te = ne["fit"](me, ember.from_numpy(X), ember.from_numpy(y))
    tt = nt["fit"](mt, torch.from_numpy(X), torch.from_numpy(y))
    close(te, tt, "loss, lr, momentum per step")
    close_models(me, mt)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_curve_fit(line_search_fn):
    ne, nt, me, mt = pair(training.LBFGS_FIT)
    x = np.linspace(-1, 1, 50)
    y = 0.5 - x + 2 * x**3 + 0.01 * np.cos(7 * x)
    re = ne["fit"](me, ember.from_numpy(x), ember.from_numpy(y), line_search_fn=line_search_fn)
    rt = nt["fit"](mt, torch.from_numpy(x), torch.from_numpy(y), line_search_fn=line_search_fn)
    close(re, rt, "losses and iteration count")
    close_models(me, mt)
