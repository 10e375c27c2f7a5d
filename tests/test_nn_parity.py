"""Module core parity with PyTorch: the same module trees, built from custom modules defined
identically for both libraries, must give the same repr text, member names, state_dict keys and
metadata, hook call order across a nested tree, backward-hook gradients (float64, weights
copied through NumPy), load_state_dict error text and registration error messages."""

from __future__ import annotations

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None

pytestmark = pytest.mark.skipif(
    torch is None, reason="torch is the reference for these tests (pip install torch==2.13.0)"
)


def build(lib):
    """Module classes written once, instantiated for either library."""
    nn = lib.nn

    class Affine(nn.Module):
        def __init__(self, n_in, n_out, scale=0.1):
            super().__init__()
            self.n_in, self.n_out = n_in, n_out
            w = lib.arange(float(n_in * n_out), dtype=lib.float64).reshape(n_out, n_in)
            self.weight = nn.Parameter((w - n_in) * scale)
            self.bias = nn.Parameter(lib.linspace(-0.5, 0.5, n_out, dtype=lib.float64))
            self.register_buffer("calls", lib.tensor(0))
            self.register_buffer("cache", lib.zeros(1, dtype=lib.float64), persistent=False)

        def forward(self, x):
            return x @ self.weight.t() + self.bias

        def extra_repr(self):
            return f"in={self.n_in}, out={self.n_out}"

    class Tanh(nn.Module):
        def forward(self, x):
            return x.tanh()

    class Block(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.fc = Affine(n, n)
            self.act = Tanh()
            self.gain = nn.Parameter(lib.full((n,), 1.5, dtype=lib.float64))
            self.register_buffer("seen", lib.zeros(n, dtype=lib.float64))

        def forward(self, x):
            return self.act(self.fc(x)) * self.gain + x

        def extra_repr(self):
            return "residual=True\nlines=2"

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = Affine(3, 4)
            self.body = Block(4)
            self.head = nn.Module()
            self.head.proj = Affine(4, 2)
            self.head.shared = self.body.act  # a module under two names
            self.head.again = self.inp  # one with parameters and buffers
            self.tied = self.body.gain  # a parameter under two names
            self.add_module("unused", None)
            self.register_parameter("empty", None)
            self.register_buffer("none_buf", None)

        def forward(self, x):
            return self.head.proj(self.head.shared(self.body(self.inp(x))))

    class TwoWay(nn.Module):
        """Several tensor and non-tensor inputs and outputs, one output unused downstream."""

        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64))

        def forward(self, a, k, b, c):
            return a * self.w * k + b, (c * self.w).sum(), a.exp()

    return Net, Block, Affine, TwoWay


def both(fn):
    """fn(lib) for torch and for ember."""
    return fn(torch), fn(ember)


def np_of(t):
    return None if t is None else np.asarray(t.detach().numpy())


def copy_weights(src, dst):
    """Copy every state_dict value from a torch module into an ember one through NumPy; a key
    mismatch fails the strict load."""
    sd = {k: ember.tensor(v.detach().numpy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(sd)


# ---- structure ---------------------------------------------------------------------------------
def test_repr_is_identical():
    t, e = both(lambda lib: repr(build(lib)[0]()))
    assert e == t
    assert "  (body): Block(\n    residual=True\n    lines=2\n    (fc): Affine(in=4, out=4)" in e


@pytest.mark.parametrize("index,args", [(0, ()), (1, (4,)), (2, (3, 2)), (3, ())])
def test_repr_of_each_kind_of_module(index, args):
    t, e = both(lambda lib: repr(build(lib)[index](*args)))
    assert e == t


def test_member_names_are_identical():
    for method in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        for kwargs in ({}, {"prefix": "m"}, {"remove_duplicate": False}, {"recurse": False}):
            if method == "named_children" and kwargs:
                continue
            if method == "named_modules" and "recurse" in kwargs:
                continue

            def names(lib, method=method, kwargs=kwargs):
                return [n for n, _ in getattr(build(lib)[0](), method)(**kwargs)]

            t, e = both(names)
            assert e == t, (method, kwargs)


def test_state_dict_keys_and_metadata_are_identical():
    def keys(lib):
        sd = build(lib)[0]().state_dict(prefix="root.")
        return list(sd), dict(sd._metadata)

    t, e = both(keys)
    assert e == t


def test_state_dict_values_copy_across_and_outputs_match():
    tn, en = build(torch)[0](), build(ember)[0]()
    for p in tn.parameters():
        with torch.no_grad():
            p.add_(torch.randn_like(p) * 0.1)
    copy_weights(tn, en)
    x = np.linspace(-1, 1, 6).reshape(2, 3)
    out_t = tn(torch.tensor(x))
    out_e = en(ember.tensor(x))
    np.testing.assert_allclose(np_of(out_e), out_t.detach().numpy(), rtol=1e-12)


def test_apply_order_is_identical():
    def order(lib):
        net = build(lib)[0]()
        names = {m: n for n, m in net.named_modules()}
        seen = []
        net.apply(lambda m: seen.append(names[m]))
        return seen

    t, e = both(order)
    assert e == t


def test_train_eval_propagation_is_identical():
    def modes(lib):
        net = build(lib)[0]()
        net.eval()
        net.body.train()
        return [(n, m.training) for n, m in net.named_modules(remove_duplicate=False)]

    t, e = both(modes)
    assert e == t


# ---- hooks across a nested tree --------------------------------------------------------------
def record_all_hooks(lib, net, events):
    handles = []
    for name, m in net.named_modules():
        handles += [
            m.register_forward_pre_hook(lambda mod, a, name=name: events.append((name, "pre"))),
            m.register_forward_hook(lambda mod, a, o, name=name: events.append((name, "fwd"))),
            m.register_full_backward_pre_hook(
                lambda mod, go, name=name: events.append((name, "bw_pre"))
            ),
            m.register_full_backward_hook(
                lambda mod, gi, go, name=name: events.append((name, "bw"))
            ),
        ]
    return handles


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_hook_call_order_is_identical(input_requires_grad):
    def run(lib):
        net = build(lib)[0]()
        events = []
        record_all_hooks(lib, net, events)
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=input_requires_grad)
        if input_requires_grad:
            net(x).sum().backward()
        else:
            import warnings

            with warnings.catch_warnings():
                # The root's input does not require grad: both libraries warn for it.
                warnings.filterwarnings("ignore", message="Full backward hook is firing")
                net(x).sum().backward()
        return events

    t, e = both(run)
    assert e == t
    assert e[0] == ("", "pre") and ("head.proj", "bw") in e


def test_global_hook_order_is_identical():
    def run(lib):
        mm = lib.nn.modules.module
        net = build(lib)[0]()
        names = {m: n for n, m in net.named_modules()}
        events = []
        handles = [
            mm.register_module_forward_pre_hook(lambda m, a: events.append((names[m], "gpre"))),
            mm.register_module_forward_hook(lambda m, a, o: events.append((names[m], "gfwd"))),
            mm.register_module_full_backward_pre_hook(
                lambda m, go: events.append((names[m], "gbw_pre"))
            ),
            mm.register_module_full_backward_hook(
                lambda m, gi, go: events.append((names[m], "gbw"))
            ),
        ]
        record_all_hooks(lib, net, events)
        try:
            net(lib.ones(1, 3, dtype=lib.float64, requires_grad=True)).sum().backward()
        finally:
            for h in handles:
                h.remove()
            mm._global_is_full_backward_hook = None
        return events

    t, e = both(run)
    assert e == t


def test_backward_hook_gradients_are_identical():
    source = build(torch)[0]()
    with torch.no_grad():
        for p in source.parameters():
            p.mul_(1.3)

    def run(lib):
        net = build(lib)[0]()
        if lib is torch:
            net.load_state_dict(source.state_dict())
        else:
            copy_weights(source, net)
        grads = []
        for name, m in net.named_modules():
            m.register_full_backward_pre_hook(
                lambda mod, go, name=name: grads.append((name, "pre", to_np(go)))
            )
            m.register_full_backward_hook(
                lambda mod, gi, go, name=name: grads.append((name, "full", to_np(gi), to_np(go)))
            )
        x = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        (net(x) ** 2).sum().backward()
        return grads, to_np((x.grad, *[p.grad for p in net.parameters()]))

    (t_grads, t_rest), (e_grads, e_rest) = both(run)
    assert [g[:2] for g in e_grads] == [g[:2] for g in t_grads]
    for te, ee in zip(t_grads, e_grads, strict=True):
        assert_same(ee[2:], te[2:])
    assert_same(e_rest, t_rest)


def to_np(ts):
    return tuple(None if t is None else t.detach().numpy().copy() for t in ts)


def assert_same(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    elif a is None or b is None:
        assert a is None and b is None, (a, b)
    else:
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("use", ["all", "first", "second"])
def test_backward_hooks_with_several_inputs_and_outputs(use):
    def run(lib):
        m = build(lib)[3]()
        seen = []
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", to_np(go))))
        m.register_full_backward_hook(
            lambda mod, gi, go: seen.append(("full", to_np(gi), to_np(go)))
        )
        a = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, 0.5, 0.5], dtype=lib.float64)  # does not require grad
        c = lib.tensor([1.0, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        o1, o2, o3 = m(a, 3, b, c)
        loss = {"all": o1.sum() + o2 + o3.sum(), "first": (o1 * o1).sum(), "second": o2}[use]
        loss.backward()
        return seen, to_np((a.grad, c.grad, m.w.grad))

    (t_seen, t_g), (e_seen, e_g) = both(run)
    assert [s[0] for s in e_seen] == [s[0] for s in t_seen]
    for te, ee in zip(t_seen, e_seen, strict=True):
        assert_same(ee[1:], te[1:])
    assert_same(e_g, t_g)


def test_backward_hook_replacement_is_identical():
    def run(lib):
        net = build(lib)[0]()
        net.body.register_full_backward_hook(lambda m, gi, go: tuple(g * 3 for g in gi))
        net.head.proj.register_full_backward_pre_hook(lambda m, go: tuple(g * -1 for g in go))
        x = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        (net(x) ** 2).sum().backward()
        return to_np((x.grad, *[p.grad for p in net.parameters()]))

    t, e = both(run)
    assert_same(e, t)


def test_forward_hook_replacements_are_identical():
    def run(lib):
        net = build(lib)[0]()
        net.body.register_forward_pre_hook(lambda m, a: (a[0] * 2,))
        net.body.fc.register_forward_hook(lambda m, a, o: o - 1)
        net.head.register_forward_hook(lambda m, a, o: None)  # never called: head not run
        x = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3))
        return to_np((net(x),))

    t, e = both(run)
    assert_same(e, t)


# ---- errors -----------------------------------------------------------------------------------
def message(fn):
    """(exception type, text) of what fn raises, with ember's names spelled as torch's
    (ember.Size, ember.int32, ember.nn.modules... are the same names)."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type and text are what is compared
        return type(exc).__name__, str(exc).replace("ember.", "torch.")
    return None


def test_strict_load_error_text_is_identical():
    def run(lib):
        Net = build(lib)[0]
        net = Net()
        sd = Net().state_dict()
        del sd["inp.weight"]
        sd["junk"] = lib.ones(1)
        sd["body.fc.bias"] = lib.ones(7, dtype=lib.float64)
        return message(lambda: net.load_state_dict(sd))

    t, e = both(run)
    assert e == t and e[0] == "RuntimeError"


def test_non_strict_load_result_is_identical():
    def run(lib):
        Net = build(lib)[0]
        sd = Net().state_dict()
        del sd["inp.weight"]
        sd["junk"] = lib.ones(1)
        return repr(Net().load_state_dict(sd, strict=False)), repr(
            Net().load_state_dict(Net().state_dict())
        )

    t, e = both(run)
    assert e == t


REGISTRATION_ERRORS = [
    lambda lib, m: m.register_buffer("a.b", lib.zeros(1)),
    lambda lib, m: m.register_buffer("", lib.zeros(1)),
    lambda lib, m: m.register_buffer(3, lib.zeros(1)),
    lambda lib, m: m.register_buffer("train", lib.zeros(1)),
    lambda lib, m: m.register_buffer("x", [1]),
    lambda lib, m: m.register_parameter("a.b", None),
    lambda lib, m: m.register_parameter("", None),
    lambda lib, m: m.register_parameter("bias", lib.zeros(1)),
    lambda lib, m: m.register_parameter("weight_", lib.zeros(1)),
    lambda lib, m: m.add_module("a.b", lib.nn.Module()),
    lambda lib, m: m.add_module("", lib.nn.Module()),
    lambda lib, m: m.add_module(None, lib.nn.Module()),
    lambda lib, m: m.add_module("weight", lib.nn.Module()),
    lambda lib, m: m.add_module("x", "not a module"),
    lambda lib, m: setattr(m, "weight", lib.zeros(1)),
    lambda lib, m: setattr(m, "weight", lib.nn.Module()),
    lambda lib, m: setattr(m, "calls", 3),
    lambda lib, m: m.get_submodule("nope"),
    lambda lib, m: m.get_parameter("calls"),
    lambda lib, m: m.get_buffer("weight"),
    lambda lib, m: m.set_submodule("weight", lib.nn.Module()),
    lambda lib, m: m.to(lib.int32),
    lambda lib, m: m.train(1),
    lambda lib, m: m.nope,
]


@pytest.mark.parametrize("case", range(len(REGISTRATION_ERRORS)))
def test_error_messages_are_identical(case):
    def run(lib):
        m = build(lib)[2](2, 2)
        return message(lambda: REGISTRATION_ERRORS[case](lib, m))

    t, e = both(run)
    assert t is not None and e == t


def test_parameter_repr_is_identical():
    def run(lib):
        return [
            repr(lib.nn.Parameter(lib.tensor([1.0, 2.5]))),
            repr(lib.nn.Parameter(lib.tensor([[1, 2]]), requires_grad=False)),
            repr(lib.nn.Parameter()),
        ]

    t, e = both(run)
    assert e == t
