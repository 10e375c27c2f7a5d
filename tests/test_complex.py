"""Complex tensors against torch: values, gradients (conjugate Wirtinger convention), views,
errors, printing and gradcheck."""

import warnings

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")

rng = np.random.default_rng(0)


def _z(*s):
    return rng.standard_normal(s) + 1j * rng.standard_normal(s)


A, B = _z(3), _z(3)
M1, M2 = _z(2, 3), _z(3, 4)
CASES = {
    "mul": (lambda L, a, b: a * b, [A, B]),
    "div": (lambda L, a, b: a / b, [A, B]),
    "add_scalar": (lambda L, a, b: a + b * 2j, [A, B]),
    "pow2": (lambda L, a: a**2, [A]),
    "pow_t": (lambda L, a, b: a**b, [A, B]),
    "pow_c": (lambda L, a: a ** (1.5 + 0.5j), [A]),
    "rpow": (lambda L, a: 2**a, [A]),
    "exp": (lambda L, a: a.exp(), [A]),
    "log": (lambda L, a: a.log(), [A]),
    "sqrt": (lambda L, a: a.sqrt(), [A]),
    "rsqrt": (lambda L, a: a.rsqrt(), [A]),
    "sin": (lambda L, a: a.sin(), [A]),
    "cos": (lambda L, a: a.cos(), [A]),
    "tan": (lambda L, a: a.tan(), [A]),
    "tanh": (lambda L, a: a.tanh(), [A]),
    "sinh": (lambda L, a: a.sinh(), [A]),
    "cosh": (lambda L, a: a.cosh(), [A]),
    "asin": (lambda L, a: a.asin(), [A]),
    "acos": (lambda L, a: a.acos(), [A]),
    "atan": (lambda L, a: a.atan(), [A]),
    "asinh": (lambda L, a: a.asinh(), [A]),
    "acosh": (lambda L, a: a.acosh(), [A]),
    "atanh": (lambda L, a: a.atanh(), [A]),
    "sigmoid": (lambda L, a: a.sigmoid(), [A]),
    "reciprocal": (lambda L, a: a.reciprocal(), [A]),
    "square": (lambda L, a: a.square(), [A]),
    "neg": (lambda L, a: -a, [A]),
    "exp2": (lambda L, a: a.exp2(), [A]),
    "expm1": (lambda L, a: a.expm1(), [A]),
    "log2": (lambda L, a: a.log2(), [A]),
    "log10": (lambda L, a: a.log10(), [A]),
    "log1p": (lambda L, a: a.log1p(), [A]),
    "abs": (lambda L, a: a.abs(), [A]),
    "sgn": (lambda L, a: a.sgn(), [A]),
    "angle": (lambda L, a: a.angle(), [A]),
    "real": (lambda L, a: a.real, [A]),
    "imag": (lambda L, a: a.imag, [A]),
    "conj": (lambda L, a: a.conj() * a, [A]),
    "conj_physical": (lambda L, a: L.conj_physical(a), [A]),
    "view_as_real": (lambda L, a: L.view_as_real(a), [A]),
    "view_as_complex": (lambda L, a: L.view_as_complex(L.view_as_real(a) * 2), [A]),
    "sum": (lambda L, a: a.sum(), [A]),
    "mean": (lambda L, a: a.mean(), [A]),
    "prod": (lambda L, a: a.prod(), [A]),
    "cumsum": (lambda L, a: a.cumsum(0), [A]),
    "cumprod": (lambda L, a: a.cumprod(0), [A]),
    "var": (lambda L, a: a.var(), [A]),
    "std": (lambda L, a: a.std(), [A]),
    "norm": (lambda L, a: a.norm(), [A]),
    "vector_norm1": (lambda L, a: L.linalg.vector_norm(a, 1), [A]),
    "vector_norm3": (lambda L, a: L.linalg.vector_norm(a, 3), [A]),
    "vector_norm_inf": (lambda L, a: L.linalg.vector_norm(a, float("inf")), [A]),
    "matmul": (lambda L, a, b: a @ b, [M1, M2]),
    "mm": (lambda L, a, b: L.mm(a, b), [M1, M2]),
    "mv": (lambda L, a, b: L.mv(a, b), [M2.T.copy(), A]),
    "dot": (lambda L, a, b: L.dot(a, b), [A, B]),
    "vdot": (lambda L, a, b: L.vdot(a, b), [A, B]),
    "outer": (lambda L, a, b: L.outer(a, b), [A, B]),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [M1, M2]),
    "bmm": (lambda L, a, b: L.bmm(a[None], b[None]), [M1, M2]),
    "addmm": (lambda L, a, b: L.addmm(a @ b, a, b, beta=0.5, alpha=2), [M1, M2]),
    "inner": (lambda L, a, b: L.inner(a, b), [A, B]),
    "matvec": (lambda L, a, b: a @ b, [M1, A]),
    "where": (lambda L, a, b: L.where(a.real > 0, a, b), [A, B]),
    "addcmul": (lambda L, a, b: L.addcmul(a, a, b, value=0.5), [A, B]),
    "addcdiv": (lambda L, a, b: L.addcdiv(a, a, b), [A, B]),
    "polar": (lambda L, a: L.polar(a.abs(), a.angle()), [A]),
    "complex": (lambda L, a: L.complex(a.real * 2, a.imag * 3), [A]),
    "cat": (lambda L, a, b: L.cat([a, b]), [A, B]),
    "stack": (lambda L, a, b: L.stack([a, b]), [A, B]),
    "index": (lambda L, a: a[[0, 2]], [A]),
    "to_complex": (lambda L, a: a.abs().to(L.complex128) * a, [A]),
    "mul_real": (lambda L, a: a * a.abs(), [A]),
    "cross": (lambda L, a, b: L.linalg.cross(a, b), [A, B]),
    "sum_dim": (lambda L, a: a.sum(1), [M1]),
    "mean_dim": (lambda L, a: a.mean(0), [M1]),
    "prod_dim": (lambda L, a: a.prod(1), [M1]),
    "var_dim": (lambda L, a: a.var(1), [M1]),
    "norm_dim": (lambda L, a: a.norm(dim=1), [M1]),
}


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_grads_match_torch(name):
    f, args = CASES[name]
    ta = [torch.tensor(a, requires_grad=True) for a in args]
    to = f(torch, *ta)
    r = np.random.default_rng(1)
    gnp = r.standard_normal(to.shape) + (1j * r.standard_normal(to.shape) if to.is_complex() else 0)
    tg = torch.autograd.grad(to, ta, torch.tensor(gnp, dtype=to.dtype))
    ea = [ember.tensor(a, requires_grad=True) for a in args]
    eo = f(ember, *ea)
    assert str(eo.dtype).split(".")[1] == str(to.dtype).split(".")[1]
    assert type(eo.grad_fn).__name__ == type(to.grad_fn).__name__ or name in (
        "matmul",
        "mv",
        "einsum",
    )
    _close(eo.detach().numpy(), to.detach().numpy())
    eg = ember.autograd.grad(eo, ea, ember.tensor(gnp, dtype=eo.dtype))
    for e, t in zip(eg, tg, strict=True):
        _close(e.numpy(), t.numpy())


GRADCHECK = [
    "mul",
    "div",
    "exp",
    "log",
    "sqrt",
    "abs",
    "sgn",
    "angle",
    "real",
    "imag",
    "conj",
    "view_as_real",
    "view_as_complex",
    "polar",
    "complex",
    "matmul",
    "vdot",
    "prod",
    "var",
    "norm",
    "tanh",
    "sigmoid",
    "pow_t",
]


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck_and_gradgradcheck(name):
    f, args = CASES[name]
    ea = tuple(ember.tensor(a, requires_grad=True) for a in args)
    assert ember.autograd.gradcheck(lambda *t: f(ember, *t), ea)
    assert ember.autograd.gradgradcheck(lambda *t: f(ember, *t), ea)


# A real factor (mask, spectral weight) times a complex tensor: the real factor's gradient is
# Re(g conj(z)) summed over its broadcast dims, computed on the real views (ops/pointwise.py)
MIXED_SHAPES = [
    ((4, 3, 5), (3, 5)),
    ((4, 3, 5), (3, 1)),
    ((4, 3, 5), (1, 3, 1)),
    ((4, 3, 5), (5,)),
    ((4, 3, 5), ()),
    ((4, 3, 5), (4, 3, 5)),
    ((4, 1, 5), (4, 3, 5)),  # the complex operand broadcasts: the general formula
]


@needs_torch
@pytest.mark.parametrize("zs,ws", MIXED_SHAPES)
@pytest.mark.parametrize("real_first", [False, True])
@pytest.mark.parametrize("cdtype", ["complex64", "complex128"])
def test_real_times_complex_grads_match_torch(zs, ws, real_first, cdtype):
    r = np.random.default_rng(2)
    wdtype = "float32" if cdtype == "complex64" else "float64"
    z = (r.standard_normal(zs) + 1j * r.standard_normal(zs)).astype(cdtype)
    w = r.standard_normal(ws).astype(wdtype)
    out_shape = np.broadcast_shapes(zs, ws)
    g = (r.standard_normal(out_shape) + 1j * r.standard_normal(out_shape)).astype(cdtype)
    grads = []
    for L in (ember, torch):
        tz = L.tensor(z, requires_grad=True)
        tw = L.tensor(w, requires_grad=True)
        y = tw * tz if real_first else tz * tw
        y.backward(L.tensor(g))
        assert tw.grad.dtype == tw.dtype and tuple(tw.grad.shape) == ws
        grads.append((tz.grad.numpy(), tw.grad.numpy()))
    tol = dict(rtol=1e-5, atol=1e-5) if cdtype == "complex64" else dict(rtol=1e-9, atol=1e-12)
    for e, t in zip(grads[0], grads[1], strict=True):
        np.testing.assert_allclose(e, t, **tol)


@pytest.mark.parametrize("zs,ws", MIXED_SHAPES[:4])
def test_real_times_complex_gradcheck(zs, ws):
    # gradgradcheck runs backward with create_graph: the Tensor formula, not the real-view one
    r = np.random.default_rng(3)
    z = ember.tensor(r.standard_normal(zs) + 1j * r.standard_normal(zs), requires_grad=True)
    w = ember.tensor(r.standard_normal(ws), requires_grad=True)
    assert ember.autograd.gradcheck(lambda a, b: a * b, (z, w))
    assert ember.autograd.gradgradcheck(lambda a, b: b * a, (z, w))


def test_gradcheck_catches_missing_conjugate():
    class Bad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x  # should be g * conj(2 x)

    x = ember.tensor(A, requires_grad=True)
    assert not ember.autograd.gradcheck(Bad.apply, (x,), raise_exception=False)


def test_real_imag_are_writable_views():
    x = ember.tensor([1 + 2j, 3 - 1j])
    x.real.mul_(2)
    x.imag[0] = 5
    assert x.tolist() == [2 + 5j, 6 - 1j]
    x.imag = ember.tensor([0.5, 0.25])
    assert x.tolist() == [2 + 0.5j, 6 + 0.25j]
    v = ember.view_as_real(x)
    v[1, 0] = -1
    assert x.tolist()[1] == -1 + 0.25j
    r = ember.zeros(3, 2)
    c = ember.view_as_complex(r)
    c.add_(1j)
    assert r[:, 1].tolist() == [1.0, 1.0, 1.0]
    real = ember.tensor([1.0, 2.0])
    assert ember.real(real) is real
    assert ember.conj(real) is real


def test_conj_is_materialized():
    x = ember.tensor([1 + 2j])
    y = x.conj()
    assert not y.is_conj() and not x.is_neg()
    assert y.resolve_conj() is y and ember.resolve_neg(y) is y
    assert y.tolist() == [1 - 2j]
    x.conj_physical_()
    assert x.tolist() == [1 - 2j]
    assert ember.is_complex(x) and x.is_complex() and not ember.tensor([1.0]).is_complex()


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.imag(L.tensor([1.0])),
        lambda L: L.view_as_real(L.zeros(3)),
        lambda L: L.view_as_complex(L.zeros(3)),
        lambda L: L.view_as_complex(L.zeros(3, 2).t().contiguous().t()),
        lambda L: L.view_as_complex(L.zeros(5, 2).view(-1)[1:9].view(4, 2)),
        lambda L: L.view_as_complex(L.zeros(4, 2, dtype=L.int64)),
        lambda L: L.polar(L.tensor([1.0]), L.tensor([1.0], dtype=L.float64)),
        lambda L: L.complex(L.tensor([1]), L.tensor([1])),
        lambda L: L.tensor([1j]).sign(),
        lambda L: L.tensor([1j]).relu(),
        lambda L: L.tensor([1j]).deg2rad(),
        lambda L: L.tensor([1j]).erf(),
        lambda L: L.tensor([1j]).nansum(),
        lambda L: L.tensor([1j]).nanmean(),
    ],
)
def test_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(Exception) as ee:
        call(ember)
    assert type(ee.value) is type(te.value)
    if "not implemented for" not in str(te.value):
        assert str(ee.value) == str(te.value)


def test_complex_to_real_cast_warns_like_torch():
    x = ember.tensor([1 + 2j])
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        assert x.float().tolist() == [1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.bool().tolist() == [True]
    with pytest.raises(NotImplementedError):
        x.chalf()


REPRS = [
    lambda L: L.tensor([1 + 2j, 3j]),
    lambda L: L.tensor([1 + 2.5j, -0.5 + 0j]),
    lambda L: L.tensor(1 + 2j),
    lambda L: L.tensor(-1.5 - 2j, dtype=L.complex128),
    lambda L: L.tensor([1e10 + 1j, 1e-5j]),
    lambda L: L.tensor([[1 + 1j, 2 - 3.25j], [0j, -1j]]),
    lambda L: L.tensor([complex(float("nan"), 1), complex(float("inf"), -float("inf"))]),
    lambda L: L.tensor([1 + 1j, 2j], requires_grad=True),
    lambda L: L.tensor([1 + 1j, 2j], requires_grad=True) * 2,
    lambda L: L.tensor([-0.0 - 0.0j, 0j]),
    lambda L: L.tensor([1.23456789 + 9.87654321j] * 3, dtype=L.complex128),
    lambda L: L.tensor(np.arange(2000) * (1 + 1j)),
    lambda L: L.zeros(0, dtype=L.complex64),
    lambda L: L.tensor([[1e-8 + 1j, 123456.7 - 0.001j]]),
    lambda L: L.zeros(2, 3, dtype=L.cfloat),
    lambda L: L.tensor(np.linspace(-3, 3, 40).reshape(5, 8) * (1 - 0.5j)),
]


@needs_torch
@pytest.mark.parametrize("make", REPRS)
def test_repr_matches_torch(make):
    assert repr(make(ember)) == repr(make(torch)).replace("torch.", "ember.")


def test_meta_shapes():
    x = ember.empty(2, 3, dtype=ember.complex64, device="meta")
    assert ember.view_as_real(x).shape == (2, 3, 2)
    assert ember.view_as_real(x).dtype == ember.float32
    assert x.real.dtype == ember.float32 and x.imag.shape == (2, 3)
    r = ember.empty(4, 2, device="meta")
    assert ember.view_as_complex(r).shape == (4,) and ember.view_as_complex(r).dtype == ember.cfloat
    assert ember.complex(r, r).dtype == ember.complex64
