"""Entry points that torch 2.13 runs on CPU and ember once refused, against torch: unique and
unique_consecutive with ``dim``, ``Tensor.view(dtype)``, ``autograd.grad(is_grads_batched=True)``,
the optimizers' ``fused``/``foreach``/``capturable``/``differentiable`` flags, and
``TypedStorage.type(...)``."""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pytest

import ember
import ember.optim
from tests.test_optim import _assert_same, needs_torch, torch

pytestmark = needs_torch


def _same_error(tfn, efn):
    """Both calls raise: the same exception type and message (ember's dtypes print as
    ``ember.int64`` where torch's print ``torch.int64``)."""
    with pytest.raises(Exception) as texc:
        tfn()
    with pytest.raises(type(texc.value)) as eexc:
        efn()
    assert str(eexc.value).replace("ember.", "torch.") == str(texc.value)


def _np(t):
    """A tensor of either library as a NumPy array (bfloat16 widened to float32)."""
    if isinstance(t, ember.Tensor):
        a = t.detach()._data
        return a.astype(np.float32) if t.dtype == ember.bfloat16 else np.asarray(a)
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def _assert_tensors(t, e):
    """Same structure, shapes, dtypes and values (NaN where NaN)."""
    if isinstance(t, tuple):
        assert isinstance(e, tuple) and len(t) == len(e)
        for a, b in zip(t, e):
            _assert_tensors(a, b)
        return
    assert str(t.dtype).split(".")[1] == str(e.dtype).split(".")[1]
    assert tuple(t.shape) == tuple(e.shape)
    np.testing.assert_array_equal(_np(e), _np(t))


# ---- unique(dim=) / unique_consecutive(dim=) --------------------------------------------------
UNIQUE_SHAPES = [(7,), (9, 3), (5, 3, 2), (0, 3), (3, 0), (1, 4)]


@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("shape", UNIQUE_SHAPES)
def test_unique_dim_matches_torch(op, shape):
    x = np.random.default_rng(0).integers(0, 2, size=shape)
    for d in range(-len(shape), len(shape)):
        for ri in (False, True):
            for rc in (False, True):
                kw = dict(return_inverse=ri, return_counts=rc, dim=d)
                tx, ex = torch.tensor(x), ember.tensor(x)
                try:
                    t = getattr(torch, op)(tx, **kw)
                except RuntimeError:
                    _same_error(
                        partial(getattr(torch, op), tx, **kw), partial(getattr(ember, op), ex, **kw)
                    )
                    continue
                _assert_tensors(t, getattr(ember, op)(ex, **kw))


@pytest.mark.parametrize(
    "dtype", ["float16", "bfloat16", "float32", "float64", "bool", "int8", "uint8", "int64"]
)
def test_unique_dim_dtypes(dtype):
    x = np.random.default_rng(1).integers(-1, 2, size=(11, 3))
    t = torch.tensor(x).to(getattr(torch, dtype))
    e = ember.tensor(x).to(getattr(ember, dtype))
    for d in (0, 1):
        kw = dict(return_inverse=True, return_counts=True, dim=d)
        _assert_tensors(torch.unique(t, **kw), ember.unique(e, **kw))
        _assert_tensors(torch.unique_consecutive(t, **kw), ember.unique_consecutive(e, **kw))
        # the method, and sorted=False (torch sorts anyway on CPU)
        _assert_tensors(t.unique(sorted=False, dim=d), e.unique(sorted=False, dim=d))


def test_unique_dim_float_signed_zero_and_nan():
    # -0.0 equals 0.0 and NaN equals nothing: compared by value, not by bytes
    rows = [[1.0, float("nan")], [1.0, float("nan")], [-0.0, 2.0], [0.0, 2.0], [3.0, -1.0]]
    kw = dict(return_inverse=True, return_counts=True, dim=0)
    for op in ("unique", "unique_consecutive"):
        _assert_tensors(
            getattr(torch, op)(torch.tensor(rows), **kw),
            getattr(ember, op)(ember.tensor(rows), **kw),
        )


def test_unique_dim_random_float_rows():
    x = np.random.default_rng(2).standard_normal((60, 3)).round(0)
    kw = dict(return_inverse=True, return_counts=True)
    for d in (0, 1, -1):
        _assert_tensors(
            torch.unique(torch.tensor(x), dim=d, **kw), ember.unique(ember.tensor(x), dim=d, **kw)
        )


@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
def test_unique_dim_errors(op):
    x = [[1, 2], [1, 2]]
    cases = [
        (lambda lib: lib.tensor(x), dict(dim=2)),
        (lambda lib: lib.tensor(x), dict(dim=-3)),
        (lambda lib: lib.tensor(3.0), dict(dim=0)),
        (lambda lib: lib.tensor(3.0), dict(dim=-1)),
        (lambda lib: lib.zeros(0, 0), dict(dim=0)),
        (lambda lib: lib.zeros(2, 0), dict(dim=0)),
        (lambda lib: lib.tensor(x), dict(dim=1.0)),
        (lambda lib: lib.zeros(2, 2, dtype=lib.complex64), dict(dim=0)),
        (lambda lib: lib.zeros(2, 2, dtype=lib.complex64), {}),
    ]
    for make, kw in cases:
        _same_error(
            partial(getattr(torch, op), make(torch), **kw),
            partial(getattr(ember, op), make(ember), **kw),
        )


def test_unique_dim_autograd_and_meta():
    for op, dim, node in [
        ("unique", 0, "UniqueDimBackward0"),
        ("unique_consecutive", 0, "UniqueConsecutiveBackward0"),
        ("unique_consecutive", None, "UniqueConsecutiveBackward0"),
    ]:
        x = np.random.default_rng(3).standard_normal((3, 2))
        t = getattr(torch, op)(torch.tensor(x, requires_grad=True), dim=dim, return_counts=True)
        e = getattr(ember, op)(ember.tensor(x, requires_grad=True), dim=dim, return_counts=True)
        assert type(e[0].grad_fn).__name__ == type(t[0].grad_fn).__name__ == node
        assert e[0].requires_grad and not e[1].requires_grad and not t[1].requires_grad
        # the derivative messages name torch's ops
        _same_error(t[0].sum().backward, e[0].sum().backward)
        with pytest.raises(NotImplementedError, match=f"{op} on a meta tensor"):
            getattr(ember, op)(ember.zeros(3, 2, device="meta"), dim=0)


def test_unique_dim_speed_is_one_sort():
    """A wide input is one lexsort, not a loop over slices: 20000 rows of 8 finish quickly."""
    x = ember.from_numpy(np.random.default_rng(4).integers(0, 3, size=(20000, 8)))
    vals, inv, counts = ember.unique(x, dim=0, return_inverse=True, return_counts=True)
    assert int(counts.sum()) == 20000 and bool((vals[inv] == x).all())


# ---- Tensor.view(dtype) -----------------------------------------------------------------------
VIEW_DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "bool",
    "complex64",
    "complex128",
]
LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.transpose(0, 1),
    "offset1": lambda t: t[:, :, 1:5],
    "offset2": lambda t: t[:, :, 2:6],
    "permuted": lambda t: t.permute(2, 0, 1),
    "row": lambda t: t[0, 0],
    "scalar": lambda t: t[0, 0, 0],
    "strided": lambda t: t[:, ::2, :],
    "empty": lambda t: t[:, :, :0],
}


def _bytes(t, bool_dst):
    a = np.ascontiguousarray(_np_raw(t))
    return (a.view(np.uint8) != 0).tobytes() if bool_dst else a.tobytes()


def _np_raw(t):
    if isinstance(t, ember.Tensor):
        return t._data
    return t.contiguous().reshape(-1).view(torch.uint8).numpy()


@pytest.mark.parametrize("src", VIEW_DTYPES)
def test_view_dtype_matches_torch(src):
    base = np.random.default_rng(5).standard_normal((2, 3, 8)).round(1)
    for dst in VIEW_DTYPES:
        for name, layout in LAYOUTS.items():
            t = layout(torch.tensor(base).to(getattr(torch, src)))
            e = layout(ember.tensor(base).to(getattr(ember, src)))
            try:
                r = t.view(getattr(torch, dst))
            except RuntimeError:
                _same_error(
                    partial(t.view, getattr(torch, dst)), partial(e.view, getattr(ember, dst))
                )
                continue
            v = e.view(getattr(ember, dst))
            assert v.dtype == getattr(ember, dst), (src, dst, name)
            assert tuple(v.shape) == tuple(r.shape), (src, dst, name)
            if name != "empty":  # NumPy's strides of empty arrays are not torch's
                assert tuple(v.stride()) == tuple(r.stride()), (src, dst, name)
            assert _bytes(v, dst == "bool") == _bytes(r, dst == "bool"), (src, dst, name)


def test_view_dtype_values_and_keyword():
    _assert_tensors(
        torch.tensor([1.0, -2.5]).view(torch.int32), ember.tensor([1.0, -2.5]).view(ember.int32)
    )
    _assert_tensors(
        torch.tensor([1, 2]).view(dtype=torch.float64),
        ember.tensor([1, 2]).view(dtype=ember.float64),
    )
    _assert_tensors(
        torch.tensor([1.5], dtype=torch.bfloat16).view(torch.int16),
        ember.tensor([1.5], dtype=ember.bfloat16).view(ember.int16),
    )
    _assert_tensors(
        torch.tensor([[1.0, 2.0]]).view(torch.complex64),
        ember.tensor([[1.0, 2.0]]).view(ember.complex64),
    )
    _assert_tensors(
        torch.tensor([1, 0, 2], dtype=torch.uint8).view(torch.bool),
        ember.tensor([1, 0, 2], dtype=ember.uint8).view(ember.bool),
    )


def test_view_dtype_shares_memory_and_version():
    for lib in (torch, ember):
        a = lib.zeros(4)
        b = a.view(lib.int32)
        b[1] = 1065353216  # the bits of 1.0f
        assert a.tolist() == [0.0, 1.0, 0.0, 0.0]
        a.fill_(2.0)
        assert b.tolist() == [1073741824] * 4
        v = a._version
        b.add_(1)
        assert a._version == b._version == v + 1
        assert b._base is None and not b._is_view()


def test_view_dtype_never_requires_grad():
    # NOTE: torch's view(dtype) is not differentiable, even to the same dtype
    for src, dst in [
        ("float64", "float64"),
        ("float64", "float32"),
        ("float64", "int64"),
        ("complex64", "float32"),
    ]:
        t = torch.zeros(4, dtype=getattr(torch, src), requires_grad=True).view(getattr(torch, dst))
        e = ember.zeros(4, dtype=getattr(ember, src), requires_grad=True).view(getattr(ember, dst))
        assert t.requires_grad is e.requires_grad is False
        assert e.grad_fn is None and e.is_leaf
    w = ember.zeros(4, requires_grad=True)
    w.view(ember.float32).add_(1)  # allowed, as torch: no autograd view
    assert w.tolist() == [1.0] * 4


def test_view_dtype_meta():
    m = ember.zeros(2, 4, device="meta")
    assert m.view(ember.float64).shape == (2, 2) and m.view(ember.float64).device.type == "meta"
    assert m.view(ember.int8).shape == (2, 16)
    assert m.view(ember.int8).dtype == ember.int8


# ---- autograd.grad(is_grads_batched=True) -----------------------------------------------------
def _batched_cases(lib):
    def T(a, rg=False):
        return lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=rg)

    out = []
    x = T([0.5, -1.0, 2.0], True)
    w = T(np.arange(6.0).reshape(2, 3) / 3, True)
    out.append(lib.autograd.grad(x**2, x, T(np.eye(3)), is_grads_batched=True))
    z = (w * x).sum(1)
    out.append(lib.autograd.grad(z, (x, w), T(np.eye(2)), is_grads_batched=True, retain_graph=True))
    u = T([1.0, 2, 3], True)
    ones = T(np.ones((4, 2)))
    kw = dict(is_grads_batched=True, retain_graph=True)
    out.append(lib.autograd.grad(z, (x, u), ones, allow_unused=True, **kw))
    out.append(lib.autograd.grad(z, (x, u), ones, materialize_grads=True, **kw))
    out.append(lib.autograd.grad(z.sum(), x, T([1.0, 2.0]), **kw))
    out.append(lib.autograd.grad((z, z.sum()), x, (ones, T(np.ones(4))), **kw))
    x2 = T([0.3, -0.7, 1.1], True)
    (g,) = lib.autograd.grad((x2**3).sum(), x2, create_graph=True)
    (h,) = lib.autograd.grad(g, x2, T(np.eye(3)), is_grads_batched=True, create_graph=True)
    out.append((h,))
    out.append(lib.autograd.grad(h.sum(), x2))  # through the batched pass: third derivative
    return out


def test_grads_batched_matches_torch():
    for t, e in zip(_batched_cases(torch), _batched_cases(ember)):
        assert len(t) == len(e)
        for a, b in zip(t, e):
            if a is None:
                assert b is None
                continue
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(_np(b), _np(a), rtol=1e-12, atol=1e-15)


def test_grads_batched_frees_the_graph_at_the_end():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    ember.autograd.grad(y, x, ember.eye(2), is_grads_batched=True)
    with pytest.raises(RuntimeError, match="second time"):
        ember.autograd.grad(y, x, ember.ones(2))


def test_grads_batched_errors():
    def cases(lib):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        u = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
        z = x * 2
        kw = dict(is_grads_batched=True, retain_graph=True)
        return [
            lambda: lib.autograd.grad(z, x, lib.ones(2, dtype=lib.float64), **kw),
            lambda: lib.autograd.grad(z, x, lib.ones(4, 2, dtype=lib.float64), **kw),
            lambda: lib.autograd.grad(z, x, None, **kw),
            lambda: lib.autograd.grad(z.sum(), x, None, **kw),
            lambda: lib.autograd.grad(
                (z, z.sum()),
                x,
                (lib.ones(4, 3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)),
                **kw,
            ),
            lambda: lib.autograd.grad(z, x, lib.zeros(0, 3, dtype=lib.float64), **kw),
            lambda: lib.autograd.grad(z, (x, u), lib.ones(2, 3, dtype=lib.float64), **kw),
        ]

    for t, e in zip(cases(torch), cases(ember)):
        _same_error(t, e)


def test_grads_batched_gradcheck():
    """The batched vector-Jacobian products are differentiable in the grad_outputs and inputs."""
    x = ember.tensor([0.3, -0.7, 1.1], dtype=ember.float64, requires_grad=True)
    v = ember.tensor(np.random.default_rng(6).standard_normal((2, 3)), requires_grad=True)

    def f(x, v):
        with ember.enable_grad():  # the finite-difference passes run without recording
            if not x.requires_grad:
                x = x.detach().requires_grad_()
            y = x.sin() * x
            return ember.autograd.grad(y, x, v, is_grads_batched=True, create_graph=True)[0]

    assert ember.autograd.gradcheck(f, (x, v))


# ---- optimizers: fused / foreach / capturable / differentiable --------------------------------
FLAG_OPTIMIZERS = {
    "Adam": ["foreach", "fused", "capturable", "differentiable"],
    "AdamW": ["foreach", "fused", "capturable", "differentiable"],
    "SGD": ["foreach", "fused", "differentiable"],
    "Adagrad": ["foreach", "fused", "differentiable"],
    "Adamax": ["foreach", "capturable", "differentiable"],
    "NAdam": ["foreach", "capturable", "differentiable"],
    "RAdam": ["foreach", "capturable", "differentiable"],
    "RMSprop": ["foreach", "capturable", "differentiable"],
    "Rprop": ["foreach", "capturable", "differentiable"],
    "ASGD": ["foreach", "capturable", "differentiable"],
    "Adadelta": ["foreach", "capturable", "differentiable"],
}
OPT_KW = {
    "Adam": {"lr": 0.05, "weight_decay": 0.1, "amsgrad": True},
    "AdamW": {"lr": 0.05, "maximize": True},
    "SGD": {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01},
    "Adagrad": {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1},
}


def _params(lib, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) for s in [(3, 4), (5,), ()]]
    return [lib.nn.Parameter(lib.tensor(a, dtype=getattr(lib, dtype))) for a in init]


def _feed(eps, tps, rng):
    for e, t in zip(eps, tps):
        g = rng.standard_normal(tuple(e.shape))
        e.grad = ember.tensor(g, dtype=e.dtype)
        t.grad = torch.tensor(g, dtype=t.dtype)


@pytest.mark.parametrize(
    "name,flag,value",
    [(n, f, v) for n, fs in FLAG_OPTIMIZERS.items() for f in fs for v in (True, False)],
)
def test_optimizer_flags_match_torch(name, flag, value):
    """Construction, the step (its numbers, or torch's error) and the state dict as torch."""
    kw = dict(OPT_KW.get(name, {}), **{flag: value})
    ep, tp = _params(ember), _params(torch)
    eo, to = getattr(ember.optim, name)(ep, **kw), getattr(torch.optim, name)(tp, **kw)
    assert eo.param_groups[0][flag] == to.param_groups[0][flag] == value
    assert eo.state_dict()["param_groups"] == to.state_dict()["param_groups"]
    rng = np.random.default_rng(1)
    for _ in range(4):
        _feed(ep, tp, rng)
        try:
            to.step()
        except (AssertionError, RuntimeError):
            _same_error(to.step, eo.step)
            # NOTE: capturable creates the state before it asserts, as torch
            if flag == "capturable":
                _assert_same(ep, tp, eo, to)
            return
        eo.step()
        # torch's fused CPU kernels round differently from its single-tensor path in the
        # last bits; ember computes the latter
        _assert_same(ep, tp, eo, to, rtol=1e-12 if flag == "fused" and value else 1e-10)
    esd, tsd = eo.state_dict(), to.state_dict()
    assert esd["param_groups"] == tsd["param_groups"]
    for i, st in tsd["state"].items():
        assert list(esd["state"][i]) == list(st)
        if "step" in st:
            assert (
                str(st["step"].dtype).split(".")[1]
                == str(esd["state"][i]["step"].dtype).split(".")[1]
            )


@pytest.mark.parametrize("name", ["Adam", "AdamW", "SGD", "Adagrad"])
def test_fused_float32_matches_torch_fused(name):
    kw = dict(OPT_KW[name], fused=True)
    ep, tp = _params(ember, "float32"), _params(torch, "float32")
    eo, to = getattr(ember.optim, name)(ep, **kw), getattr(torch.optim, name)(tp, **kw)
    rng = np.random.default_rng(2)
    for _ in range(5):
        _feed(ep, tp, rng)
        eo.step()
        to.step()
    _assert_same(ep, tp, eo, to, rtol=1e-5)
    assert eo._step_supports_amp_scaling is True


@pytest.mark.parametrize("name", ["Adam", "AdamW", "SGD", "Adagrad"])
def test_fused_errors_match_torch(name):
    def make(lib, dtype=None, **kw):
        p = (
            lib.nn.Parameter(lib.ones(2))
            if dtype is None
            else lib.ones(2, dtype=getattr(lib, dtype))
        )
        return getattr(lib.optim, name)([p], lr=0.1, **kw), p

    _same_error(
        lambda: make(torch, fused=True, foreach=True), lambda: make(ember, fused=True, foreach=True)
    )
    _same_error(
        lambda: make(torch, fused=True, differentiable=True),
        lambda: make(ember, fused=True, differentiable=True),
    )
    for dtype in ("int64", "complex64"):
        (to, tp), (eo, ep) = make(torch, dtype, fused=True), make(ember, dtype, fused=True)
        tp.grad, ep.grad = torch.ones_like(tp), ember.ones_like(ep)
        _same_error(to.step, eo.step)


def test_fused_step_is_float32_under_float64_default():
    prev = ember.get_default_dtype()
    tprev = torch.get_default_dtype()
    try:
        for lib in (ember, torch):
            lib.set_default_dtype(lib.float64)
        for name in ("Adam", "Adagrad"):
            for fused in (None, True):
                ep, tp = _params(ember), _params(torch)
                eo = getattr(ember.optim, name)(ep, fused=fused)
                to = getattr(torch.optim, name)(tp, fused=fused)
                _feed(ep, tp, np.random.default_rng(3))
                eo.step()
                to.step()
                assert str(eo.state[ep[0]]["step"].dtype) == str(
                    to.state[tp[0]]["step"].dtype
                ).replace("torch", "ember")
    finally:
        ember.set_default_dtype(prev)
        torch.set_default_dtype(tprev)


def test_fused_load_state_dict_casts_step_to_float32():
    ep = _params(ember)
    eo = ember.optim.Adam(ep)
    _feed(ep, _params(torch), np.random.default_rng(4))
    eo.step()
    sd = eo.state_dict()
    sd["state"][0]["step"] = ember.tensor(1.0, dtype=ember.float64)
    sd["param_groups"][0]["fused"] = True
    eo2 = ember.optim.Adam(_params(ember), fused=True)
    eo2.load_state_dict(sd)
    assert eo2.state[eo2.param_groups[0]["params"][0]]["step"].dtype == ember.float32


def test_differentiable_without_grad_requiring_tensors_steps():
    """differentiable=True on tensors that do not require grad is a plain step, as torch."""
    for name in ("Adam", "SGD", "RMSprop", "Adagrad"):
        e = ember.ones(3)
        t = torch.ones(3)
        eo = getattr(ember.optim, name)([e], lr=0.01, differentiable=True)
        to = getattr(torch.optim, name)([t], lr=0.01, differentiable=True)
        e.grad, t.grad = ember.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0])
        eo.step()
        to.step()
        np.testing.assert_allclose(e._data, t.numpy(), rtol=1e-6)
        # gradients that require grad would need autograd through the step: refused clearly
        e.grad = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with pytest.raises(NotImplementedError, match="differentiable=True"):
            eo.step()
    # non-leaf parameters (the meta-learning case torch differentiates through): refused clearly
    w = ember.ones(3, requires_grad=True)
    p = w * 2
    eo = ember.optim.SGD([p], lr=0.1, differentiable=True)
    p.grad = ember.ones(3)
    with pytest.raises(NotImplementedError, match="non-leaf parameter"):
        eo.step()


def test_sparse_grad_with_fused():
    for name, kw in [("Adagrad", {}), ("SGD", {"lr": 0.1})]:
        tp, ep = torch.nn.Parameter(torch.ones(3)), ember.nn.Parameter(ember.ones(3))
        to = getattr(torch.optim, name)([tp], fused=True, **kw)
        eo = getattr(ember.optim, name)([ep], fused=True, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's sparse invariant-check notice
            tp.grad = torch.ones(3).to_sparse()
        ep.grad = ember.ones(3).to_sparse()
        _same_error(to.step, eo.step)


@pytest.mark.parametrize("name", ["SparseAdam", "LBFGS"])
@pytest.mark.parametrize("flag", ["foreach", "fused", "capturable", "differentiable"])
def test_optimizers_without_flags_refuse_them(name, flag):
    _same_error(
        lambda: getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **{flag: True}),
        lambda: getattr(ember.optim, name)([ember.nn.Parameter(ember.ones(2))], **{flag: True}),
    )


# ---- TypedStorage.type ------------------------------------------------------------------------
def _storage(lib, values, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's TypedStorage deprecation notice
        return lib.tensor(values, dtype=getattr(lib, dtype)).storage()


@pytest.mark.parametrize(
    "src,values,target",
    [
        ("float32", [1.5, 2.0, 3.0], "torch.IntStorage"),
        ("float32", [1.5, 2.0, 3.0], "torch.DoubleStorage"),
        ("float32", [1.5, 2.0, 3.0], "torch.FloatStorage"),
        ("float32", [1.5], "torch.CharStorage"),
        ("float32", [1.5], "torch.ByteStorage"),
        ("int8", [1, -2], "torch.ByteStorage"),
        ("int8", [1, -2], "torch.CharStorage"),
        ("bool", [True, False], "torch.ByteStorage"),
        ("float32", [], "torch.IntStorage"),
        ("float32", [1.5], "torch.foo"),
        ("float32", [1.5], 3),
        ("float32", [1.5], "IntStorage"),
        ("float32", [1.5], "torch.IntTensor"),
    ],
)
def test_typed_storage_type_matches_torch(src, values, target):
    def run(lib):
        s = _storage(lib, values, src)
        arg = (
            target.replace("torch.", "ember.")
            if lib is ember and isinstance(target, str)
            else target
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return s.type(arg)

    try:
        r = run(torch)
    except Exception:
        with pytest.raises(Exception) as texc:
            run(torch)
        with pytest.raises(type(texc.value)) as eexc:
            run(ember)
        assert str(eexc.value).replace("ember", "torch") == str(texc.value)
        return
    e = run(ember)
    assert type(e).__name__ == type(r).__name__ == "TypedStorage"
    assert str(e.dtype).split(".")[1] == str(r.dtype).split(".")[1]
    assert e.tolist() == r.tolist()
    assert e.data_ptr() != run(ember).data_ptr() or not values  # a copy, as torch


def test_typed_storage_type_with_classes():
    for cls in ("ByteStorage", "IntStorage"):
        t = _storage(torch, [1, 2], "int8")
        e = _storage(ember, [1, 2], "int8")
        try:
            r = t.type(getattr(torch, cls))
        except RuntimeError:
            _same_error(partial(t.type, getattr(torch, cls)), partial(e.type, getattr(ember, cls)))
            continue
        assert e.type(getattr(ember, cls)).tolist() == r.tolist()
    _same_error(
        lambda: _storage(torch, [1.0], "float32").type(torch.int32),
        lambda: _storage(ember, [1.0], "float32").type(ember.int32),
    )


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "uint16", "bfloat16", "complex64", "int8"])
def test_storage_type_of_every_dtype(dtype):
    """``Tensor.storage_type()``: the legacy class, or None where torch has none (float8...)."""
    t = torch.zeros(2, dtype=getattr(torch, dtype)).storage_type()
    e = ember.zeros(2, dtype=getattr(ember, dtype)).storage_type()
    assert (e is None) == (t is None)
    if t is not None:
        assert e.__name__ == t.__name__


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [{}, dict(beta=False), dict(beta=0), dict(alpha=False), dict(beta=2), dict(beta=0, alpha=0)],
)
def test_addr_on_bool_is_logical_as_torch(kw):
    def run(L):
        a = L.tensor([[True, False], [False, False]])
        v, w = L.tensor([True, False]), L.tensor([False, True])
        return L.addr(a, v, w, **kw).tolist(), L.ones(2, 2, dtype=L.bool).addr_(v, w).tolist()

    assert run(ember) == run(torch)
    with pytest.raises(RuntimeError, match="argument beta must not be a floating point number"):
        ember.addr(
            ember.ones(2, 2, dtype=ember.bool), ember.ones(2) > 0, ember.ones(2) > 0, beta=0.5
        )
