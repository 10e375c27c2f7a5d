"""ember.nn.utils parametrize / parametrizations / weight_norm / spectral_norm / fusion against
torch: attribute names, state_dict keys (checkpoints cross both ways), values, gradients,
power iterations, reprs, errors and warnings."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import ember
from ember.nn.utils import parametrizations as EP
from ember.nn.utils import parametrize as EZ

try:
    import torch
    from torch.nn.utils import parametrizations as TP
    from torch.nn.utils import parametrize as TZ
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def to_ember(sd):
    return {k: ember.tensor(v.detach().numpy().copy()) for k, v in sd.items()}


def to_torch(sd):
    return {k: torch.tensor(v.detach().numpy().copy()) for k, v in sd.items()}


def close(a, b, rtol=1e-9, atol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def grads_close(em, tm, rtol=1e-9, atol=1e-12):
    en = dict(em.named_parameters())
    tn = dict(tm.named_parameters())
    assert list(en) == list(tn)
    for k in en:
        close(en[k].grad, tn[k].grad, rtol, atol)


class ESym(ember.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).mT


class TSym(torch.nn.Module if torch else object):
    def forward(self, x):
        return x.triu() + x.triu(1).mT


# ---- parametrize ----------------------------------------------------------------------------
@needs_torch
def test_register_parametrization_class_keys_repr_and_state_dict_crossing():
    e = ember.nn.Linear(3, 3).double()
    t = torch.nn.Linear(3, 3).double()
    EZ.register_parametrization(e, "weight", ESym())
    TZ.register_parametrization(t, "weight", TSym())
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert type(e).__bases__ == (ember.nn.Linear,)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert repr(e).replace("ESym", "X") == repr(t).replace("TSym", "X")
    e.load_state_dict(to_ember(t.state_dict()))
    close(e.weight, t.weight)
    x = np.random.default_rng(0).standard_normal((4, 3))
    e(ember.tensor(x)).pow(2).sum().backward()
    t(torch.tensor(x)).pow(2).sum().backward()
    grads_close(e, t)
    assert EZ.is_parametrized(e) and EZ.is_parametrized(e, "weight")
    assert not EZ.is_parametrized(e, "bias")
    assert EZ.type_before_parametrizations(e) is ember.nn.Linear


def test_right_inverse_assignment_and_chained_parametrizations():
    class Double(ember.nn.Module):
        def forward(self, x):
            return 2 * x

        def right_inverse(self, x):
            return x / 2

    m = ember.nn.Linear(2, 2)
    orig = m.weight
    EZ.register_parametrization(m, "weight", Double())
    # the original keeps its identity (optimizers hold it) and now stores right_inverse(w)
    assert m.parametrizations.weight.original is orig
    w = ember.randn(2, 2)
    m.weight = w
    np.testing.assert_allclose(m.weight.detach().numpy(), w.numpy(), rtol=1e-6)
    np.testing.assert_allclose(orig.detach().numpy(), w.numpy() / 2, rtol=1e-6)
    EZ.register_parametrization(m, "weight", Double())
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * w.numpy(), rtol=1e-6)
    assert len(m.parametrizations.weight) == 2
    EZ.register_parametrization(m, "weight", ESym(), unsafe=True)
    with pytest.raises(RuntimeError, match="ESym does not implement right_inverse"):
        m.weight = w


def test_cached_and_remove_parametrizations():
    m = ember.nn.Linear(3, 3)
    EZ.register_parametrization(m, "weight", ESym())
    assert m.weight is not m.weight
    with EZ.cached():
        assert m.weight is m.weight
    sym = m.weight.detach().clone()
    original = m.parametrizations.weight.original
    EZ.remove_parametrizations(m, "weight")
    assert type(m) is ember.nn.Linear and "parametrizations" not in m._modules
    assert m.weight is original  # same Parameter object, now holding the parametrized value
    np.testing.assert_array_equal(m.weight.detach().numpy(), sym.numpy())
    m2 = ember.nn.Linear(3, 3)
    before = m2.weight.detach().clone()
    EZ.register_parametrization(m2, "weight", ESym())
    EZ.remove_parametrizations(m2, "weight", leave_parametrized=False)
    np.testing.assert_array_equal(m2.weight.detach().numpy(), before.numpy())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        EZ.remove_parametrizations(m2, "weight")


@needs_torch
def test_errors_match_torch():
    class Shrink(ember.nn.Module):
        def forward(self, x):
            return x[:1]

    class TShrink(torch.nn.Module):
        def forward(self, x):
            return x[:1]

    for ez, mod, p in (
        (EZ, ember.nn.Linear(3, 3), Shrink()),
        (TZ, torch.nn.Linear(3, 3), TShrink()),
    ):
        with pytest.raises(ValueError, match="may not change the shape") as ei:
            ez.register_parametrization(mod, "weight", p)
        msgs = getattr(test_errors_match_torch, "msgs", [])
        msgs.append(str(ei.value))
        test_errors_match_torch.msgs = msgs
        with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
            ez.register_parametrization(mod, "nope", p)
    a, b = test_errors_match_torch.msgs
    assert a == b.replace("torch.Size", "ember.Size")


def test_pickle_refused_deepcopy_works_and_transfer():
    m = EP.orthogonal(ember.nn.Linear(3, 3))
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)
    c = copy.deepcopy(m)
    np.testing.assert_allclose(c.weight.detach().numpy(), m.weight.detach().numpy())
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    n = EZ.transfer_parametrizations_and_params(m, ember.nn.Linear(3, 3))
    assert n.parametrizations.weight.original is m.parametrizations.weight.original
    np.testing.assert_allclose(n.weight.detach().numpy(), m.weight.detach().numpy(), rtol=1e-6)


def test_buffer_parametrization():
    bn = ember.nn.BatchNorm1d(3)
    EZ.register_parametrization(bn, "running_var", ESym.__new__(ESym) if False else Square())
    assert "parametrizations.running_var.original" in bn.state_dict()


class Square(ember.nn.Module):
    def forward(self, x):
        return x * x


# ---- orthogonal -----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal_matches_torch(omap, shape, triv):
    torch.manual_seed(0)
    t = torch.nn.Linear(shape[1], shape[0]).double()
    e = ember.nn.Linear(shape[1], shape[0]).double()
    TP.orthogonal(t, orthogonal_map=omap, use_trivialization=triv)
    EP.orthogonal(e, orthogonal_map=omap, use_trivialization=triv)
    assert list(e.state_dict()) == list(t.state_dict())
    e.load_state_dict(to_ember(t.state_dict()))
    close(e.weight, t.weight, 1e-9, 1e-11)
    w = e.weight.detach().numpy()
    k = min(shape)
    g = w @ w.T if shape[0] < shape[1] else w.T @ w
    np.testing.assert_allclose(g, np.eye(k), atol=1e-10)
    x = np.random.default_rng(1).standard_normal((2, shape[1]))
    (e(ember.tensor(x)) ** 3).sum().backward()
    (t(torch.tensor(x)) ** 3).sum().backward()
    grads_close(e, t, 1e-8, 1e-10)


@needs_torch
def test_orthogonal_assignment_and_errors():
    e = EP.orthogonal(ember.nn.Linear(4, 4).double())
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))
    e.weight = ember.tensor(q)
    np.testing.assert_allclose(e.weight.detach().numpy(), q, atol=1e-12)
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        EP.orthogonal(ember.nn.Linear(2, 2), orthogonal_map="qr")
    with pytest.raises(ValueError, match="Got a tensor of 1 dimensions"):
        EP.orthogonal(ember.nn.Linear(2, 2), "bias")
    f = EP.orthogonal(ember.nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        f.weight = ember.eye(3)


@needs_torch
def test_orthogonal_rnn_weights_match_torch():
    torch.manual_seed(0)
    t = torch.nn.RNN(4, 6, batch_first=True).double()
    e = ember.nn.RNN(4, 6, batch_first=True).double()
    TP.orthogonal(t, "weight_hh_l0")
    EP.orthogonal(e, "weight_hh_l0")
    assert list(e.state_dict()) == list(t.state_dict())
    e.load_state_dict(to_ember(t.state_dict()))
    x = np.random.default_rng(2).standard_normal((2, 7, 4))
    eo, _ = e(ember.tensor(x))
    to, _ = t(torch.tensor(x))
    close(eo, to, 1e-9, 1e-12)
    eo.sum().backward()
    to.sum().backward()
    grads_close(e, t, 1e-8, 1e-11)


# ---- weight norm ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_parametrized_weight_norm_matches_torch(dim):
    t = TP.weight_norm(torch.nn.Conv1d(3, 4, 3, dilation=2).double(), dim=dim)
    e = EP.weight_norm(ember.nn.Conv1d(3, 4, 3, dilation=2).double(), dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    assert list(e.state_dict())[1:] == [
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]
    e.load_state_dict(to_ember(t.state_dict()))
    close(e.weight, t.weight)
    x = np.random.default_rng(0).standard_normal((2, 3, 11))
    e(ember.tensor(x)).tanh().sum().backward()
    t(torch.tensor(x)).tanh().sum().backward()
    grads_close(e, t)


@needs_torch
def test_wavenet_style_weight_norm_conv_both_apis_and_old_checkpoints():
    torch.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        t_old = torch.nn.utils.weight_norm(torch.nn.Conv1d(4, 8, 2, dilation=4).double())
    with pytest.warns(FutureWarning, match="nn.utils.weight_norm` is deprecated"):
        e_old = ember.nn.utils.weight_norm(ember.nn.Conv1d(4, 8, 2, dilation=4).double())
    assert list(e_old.state_dict()) == list(t_old.state_dict()) == ["bias", "weight_g", "weight_v"]
    e_old.load_state_dict(to_ember(t_old.state_dict()))
    x = np.random.default_rng(3).standard_normal((2, 4, 20))

    def wavenet(conv, xx):
        h = conv(xx)
        a, b = h.chunk(2, dim=1)
        return a.tanh() * b.sigmoid()

    ey = wavenet(e_old, ember.tensor(x))
    ty = wavenet(t_old, torch.tensor(x))
    close(ey, ty)
    ey.sum().backward()
    ty.sum().backward()
    grads_close(e_old, t_old)
    # an old-style checkpoint loads into the parametrized module (compat hook)
    e_new = EP.weight_norm(ember.nn.Conv1d(4, 8, 2, dilation=4).double())
    e_new.load_state_dict(to_ember(t_old.state_dict()))
    close(wavenet(e_new, ember.tensor(x)), ty)
    # remove
    ember.nn.utils.remove_weight_norm(e_old)
    torch.nn.utils.remove_weight_norm(t_old)
    assert list(e_old.state_dict()) == list(t_old.state_dict()) == ["bias", "weight"]
    close(e_old.weight, t_old.weight)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        ember.nn.utils.remove_weight_norm(e_old)


def test_old_weight_norm_twice_raises():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        m = ember.nn.utils.weight_norm(ember.nn.Linear(2, 2))
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
            ember.nn.utils.weight_norm(m)


# ---- spectral norm --------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("mod", ["linear", "conv", "convT"])
def test_parametrized_spectral_norm_power_iterations_match_torch(mod):
    torch.manual_seed(0)
    make = {
        "linear": lambda nn: nn.Linear(5, 4),
        "conv": lambda nn: nn.Conv2d(3, 4, 3),
        "convT": lambda nn: nn.ConvTranspose2d(3, 4, 3),
    }[mod]
    t = TP.spectral_norm(make(torch.nn).double(), n_power_iterations=2)
    e = EP.spectral_norm(make(ember.nn).double(), n_power_iterations=2)
    assert list(e.state_dict()) == list(t.state_dict())
    e.load_state_dict(to_ember(t.state_dict()))  # torch's random u, v copied in
    for _ in range(3):  # training mode: each read runs the power iteration in place
        close(e.weight, t.weight)
    sd_e, sd_t = e.state_dict(), t.state_dict()
    for k in sd_t:
        close(sd_e[k], sd_t[k])
    e.eval()
    t.eval()
    close(e.weight, t.weight)
    (e.weight**2).sum().backward()
    (t.weight**2).sum().backward()
    close(e.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad)


@needs_torch
def test_gan_training_step_with_spectral_norm_matches_torch():
    torch.manual_seed(0)

    def disc(nn, P):
        return nn.Sequential(
            P.spectral_norm(nn.Conv2d(1, 4, 3, stride=2)),
            nn.LeakyReLU(0.2),
            nn.Flatten(),
            P.spectral_norm(nn.Linear(4 * 3 * 3, 1)),
        ).double()

    t = disc(torch.nn, TP)
    e = disc(ember.nn, EP)
    e.load_state_dict(to_ember(t.state_dict()))
    topt = torch.optim.Adam(t.parameters(), lr=1e-2, betas=(0.5, 0.999))
    eopt = ember.optim.Adam(e.parameters(), lr=1e-2, betas=(0.5, 0.999))
    rng = np.random.default_rng(0)
    for _ in range(3):
        real = rng.standard_normal((4, 1, 8, 8))
        fake = rng.standard_normal((4, 1, 8, 8))
        for mod, opt, lib in ((e, eopt, ember), (t, topt, torch)):
            opt.zero_grad()
            d_real = mod(lib.tensor(real))
            d_fake = mod(lib.tensor(fake))
            loss = (
                lib.nn.functional.softplus(-d_real).mean()
                + lib.nn.functional.softplus(d_fake).mean()
            )
            loss.backward()
            opt.step()
    sd_e, sd_t = e.state_dict(), t.state_dict()
    for k in sd_t:
        close(sd_e[k], sd_t[k], 1e-8, 1e-10)


@needs_torch
def test_hook_spectral_norm_matches_torch_and_crosses_checkpoints():
    torch.manual_seed(0)
    t = torch.nn.utils.spectral_norm(torch.nn.Conv2d(2, 3, 3).double())
    e = ember.nn.utils.spectral_norm(ember.nn.Conv2d(2, 3, 3).double())
    assert (
        list(e.state_dict())
        == list(t.state_dict())
        == [
            "bias",
            "weight_orig",
            "weight_u",
            "weight_v",
        ]
    )
    assert e.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    e.load_state_dict(to_ember(t.state_dict()))
    x = np.random.default_rng(0).standard_normal((2, 2, 6, 6))
    for _ in range(3):
        ey = e(ember.tensor(x))
        ty = t(torch.tensor(x))
        close(ey, ty)
    ey.sum().backward()
    ty.sum().backward()
    grads_close(e, t)
    for k, v in t.state_dict().items():
        close(e.state_dict()[k], v)
    # a torch model loads an ember checkpoint
    t2 = torch.nn.utils.spectral_norm(torch.nn.Conv2d(2, 3, 3).double())
    t2.load_state_dict(to_torch(e.state_dict()))
    ember.nn.utils.remove_spectral_norm(e)
    torch.nn.utils.remove_spectral_norm(t)
    assert list(e.state_dict()) == list(t.state_dict())
    close(e.weight, t.weight)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        ember.nn.utils.remove_spectral_norm(e)


def test_spectral_norm_errors():
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        EP.spectral_norm(ember.nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        EP.spectral_norm(ember.nn.Linear(2, 2), dim=2)
    m = ember.nn.utils.spectral_norm(ember.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        ember.nn.utils.spectral_norm(m)


# ---- fusion, memory format ------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_matches_torch(transpose):
    rng = np.random.default_rng(0)
    Conv = "ConvTranspose2d" if transpose else "Conv2d"
    e = [getattr(ember.nn, Conv)(3, 4, 3).double(), ember.nn.BatchNorm2d(4).double()]
    t = [getattr(torch.nn, Conv)(3, 4, 3).double(), torch.nn.BatchNorm2d(4).double()]
    for a, b in zip(e, t):
        sd = {k: rng.random(tuple(v.shape)) + 0.5 for k, v in b.state_dict().items() if v.ndim}
        b.load_state_dict({**b.state_dict(), **{k: torch.tensor(v) for k, v in sd.items()}})
        a.load_state_dict(to_ember(b.state_dict()))
        a.eval()
        b.eval()
    fe = ember.nn.utils.fuse_conv_bn_eval(*e, transpose=transpose)
    ft = torch.nn.utils.fuse_conv_bn_eval(*t, transpose=transpose)
    for k, v in ft.state_dict().items():
        close(fe.state_dict()[k], v)
    x = rng.standard_normal((1, 3, 5, 5))
    close(fe(ember.tensor(x)), e[1](e[0](ember.tensor(x))))
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        ember.nn.utils.fuse_conv_bn_eval(e[0].train(), e[1])


@needs_torch
def test_fuse_linear_bn_eval_matches_torch():
    rng = np.random.default_rng(1)
    e = [ember.nn.Linear(3, 4).double(), ember.nn.BatchNorm1d(4).double()]
    t = [torch.nn.Linear(3, 4).double(), torch.nn.BatchNorm1d(4).double()]
    for a, b in zip(e, t):
        sd = {k: rng.random(tuple(v.shape)) + 0.5 for k, v in b.state_dict().items() if v.ndim}
        b.load_state_dict({**b.state_dict(), **{k: torch.tensor(v) for k, v in sd.items()}})
        a.load_state_dict(to_ember(b.state_dict()))
        a.eval()
        b.eval()
    fe = ember.nn.utils.fuse_linear_bn_eval(*e)
    ft = torch.nn.utils.fuse_linear_bn_eval(*t)
    for k, v in ft.state_dict().items():
        close(fe.state_dict()[k], v)


def test_memory_format_conversion_returns_the_module():
    m = ember.nn.Sequential(ember.nn.Conv2d(2, 2, 3))
    assert ember.nn.utils.convert_conv2d_weight_memory_format(m, ember.channels_last) is m
    assert ember.nn.utils.convert_conv3d_weight_memory_format(m, ember.channels_last_3d) is m


@needs_torch
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley"])
def test_orthogonal_complex_unitary_matches_torch(omap):
    torch.manual_seed(0)

    class EM(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = ember.nn.Parameter(ember.zeros(3, 3, dtype=ember.complex128))

    class TM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(3, 3, dtype=torch.complex128))

    t = TP.orthogonal(TM(), "w", orthogonal_map=omap)
    e = EP.orthogonal(EM(), "w", orthogonal_map=omap)
    e.load_state_dict(to_ember(t.state_dict()))
    close(e.w, t.w)
    c = np.arange(9.0).reshape(3, 3)
    (e.w.real * ember.tensor(c)).sum().backward()
    (t.w.real * torch.tensor(c)).sum().backward()
    close(e.parametrizations.w.original.grad, t.parametrizations.w.original.grad, 1e-8, 1e-10)


@needs_torch
def test_checkpoint_files_cross_both_ways_with_metadata():
    import io

    t = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2))
    e = EP.weight_norm(ember.nn.utils.spectral_norm(ember.nn.Linear(3, 2)), "bias")
    t = TP.weight_norm(t, "bias")
    buf = io.BytesIO()
    ember.save(e.state_dict(), buf)
    buf.seek(0)
    sd = torch.load(buf)
    assert sd._metadata[""]["spectral_norm"] == {"weight.version": 1}
    t.load_state_dict(sd)
    buf = io.BytesIO()
    torch.save(t.state_dict(), buf)
    buf.seek(0)
    e.load_state_dict(ember.load(buf))
    e.eval()
    t.eval()
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    close(e(ember.tensor(x)), t(torch.tensor(x)), 1e-6, 1e-7)


@needs_torch
def test_hook_spectral_norm_loads_version_0_state_dicts_as_torch():
    from collections import OrderedDict

    torch.manual_seed(0)
    t = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3).double())
    t(torch.randn(2, 4, dtype=torch.float64))
    old = OrderedDict((k, v) for k, v in t.state_dict().items() if k != "weight_v")
    old["weight"] = t.weight.detach().clone()  # pre-v1 files saved weight, not weight_v
    old._metadata = OrderedDict({"": {"version": 1}})
    t2 = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3).double())
    t2.load_state_dict(old)
    e = ember.nn.utils.spectral_norm(ember.nn.Linear(4, 3).double())
    eold = OrderedDict((k, ember.tensor(v.numpy())) for k, v in old.items())
    eold._metadata = OrderedDict({"": {"version": 1}})
    e.load_state_dict(eold)
    close(e.weight_v, t2.weight_v, 1e-9, 1e-12)
