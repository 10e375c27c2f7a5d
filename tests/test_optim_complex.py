"""Complex parameters in every optimizer, against torch: torch updates them through
``view_as_real`` (the real and imaginary parts as two parameters), so ``|g|^2`` per part drives
the adaptive rules, not ``g * g``."""

from __future__ import annotations

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (pip install torch)")

CASES = {
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam": dict(lr=0.1, amsgrad=True, weight_decay=0.01),
    "AdamW": dict(lr=0.1),
    "Adamax": dict(lr=0.1),
    "NAdam": dict(lr=0.1),
    "RAdam": dict(lr=0.1),
    "Adagrad": dict(lr=0.1),
    "Adadelta": dict(lr=1.0),
    "RMSprop": dict(lr=0.01, centered=True, momentum=0.5),
    "Rprop": dict(lr=0.1),
    "ASGD": dict(lr=0.1, t0=1),
    "LBFGS": dict(lr=0.5, max_iter=3),
}


def _run(lib, name, kwargs, w0, x0):
    w = lib.nn.Parameter(lib.tensor(w0))
    x = lib.tensor(x0)
    opt = getattr(lib.optim, name)([w], **kwargs)

    def closure():
        opt.zero_grad()
        # a real loss of complex values: |x w|^2 plus a phase term
        y = x @ w
        loss = (y.abs() ** 2).mean() + (y.real * y.imag).sum() * 0.1
        loss.backward()
        return loss

    for _ in range(4):
        opt.step(closure)
    return w.detach().numpy()


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_parameters_step_as_torch(name, dtype):
    rng = np.random.default_rng(0)
    w0 = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(dtype)
    x0 = (rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))).astype(dtype)
    got = _run(ember, name, CASES[name], w0, x0)
    want = _run(torch, name, CASES[name], w0, x0)
    tol = 1e-10 if dtype == np.complex128 else 2e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
