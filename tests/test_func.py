"""ember.func.functional_call (and the deprecated ember.nn.utils.stateless alias): behaviour,
and parity with torch.func.functional_call (MLP, MAML, Hessian-vector products, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.func
import ember.nn.utils
from ember.func import functional_call

try:
    import torch
    import torch.func
    import torch.nn.utils.stateless
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

F64 = "float64"


# ---- the same small modules for ember and torch -------------------------------------------------
def classes(lib):
    """Module classes written once, for ``lib`` = ember or torch."""
    nn = lib.nn
    f64 = lib.float64

    class Affine(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(lib.zeros(n_out, n_in, dtype=f64))
            self.bias = nn.Parameter(lib.zeros(n_out, dtype=f64))

        def forward(self, x):
            return x @ self.weight.T + self.bias

    class MLP(nn.Module):
        def __init__(self, linear=Affine):
            super().__init__()
            self.l1 = linear(3, 8)
            self.l2 = linear(8, 2)

        def forward(self, x):
            return self.l2(self.l1(x).tanh())

    class Tied(nn.Module):
        """One Parameter under two names (as tied embedding/output weights)."""

        def __init__(self):
            super().__init__()
            self.foo = nn.Parameter(lib.ones(2, dtype=f64))
            self.foo_tied = self.foo

        def forward(self, x):
            return x + self.foo + self.foo_tied

    class Running(nn.Module):
        """A BatchNorm-like buffer updated in place, and a counter that forward reassigns."""

        def __init__(self, n=3):
            super().__init__()
            self.scale = nn.Parameter(lib.ones(n, dtype=f64))
            self.register_buffer("running_mean", lib.zeros(n, dtype=f64))
            self.register_buffer("num_batches_tracked", lib.tensor(0))
            self.register_buffer("calls", lib.zeros((), dtype=f64))

        def forward(self, x):
            with lib.no_grad():
                self.running_mean.mul_(0.9).add_(x.mean(0), alpha=0.1)
                self.num_batches_tracked.add_(1)
            self.calls = self.calls + 1
            return (x - self.running_mean) * self.scale

    return Affine, MLP, Tied, Running


E_Affine, E_MLP, E_Tied, E_Running = classes(ember)


def randn(*shape, seed=0):
    return ember.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def fill(module, seed=0):
    """Deterministic float64 weights for every floating-point entry of the state dict."""
    rng = np.random.default_rng(seed)
    state = {
        k: rng.standard_normal(tuple(v.shape)) * 0.5
        if v.is_floating_point()
        else v.detach().numpy()
        for k, v in module.state_dict().items()
    }
    module.load_state_dict({k: ember.from_numpy(a) for k, a in state.items()})
    return state


def snapshot(module):
    """Identity of everything a functional call could touch, and the values of all tensors."""
    out = []
    for name, mod in module.named_modules(remove_duplicate=False):
        out.append(
            (
                name,
                id(mod),
                [(k, id(v)) for k, v in mod.__dict__.items()],
                [(k, id(v)) for k, v in mod._parameters.items()],
                [(k, id(v)) for k, v in mod._buffers.items()],
                [(k, id(v)) for k, v in mod._modules.items()],
            )
        )
    values = {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}
    return out, values


def assert_unchanged(module, before):
    ids, values = snapshot(module)
    assert ids == before[0]
    assert values.keys() == before[1].keys()
    for k in values:
        np.testing.assert_array_equal(values[k], before[1][k])


def new_values(module, seed=1):
    return {k: randn(*v.shape, seed=seed + i) for i, (k, v) in enumerate(module.named_parameters())}


# ---- behaviour ---------------------------------------------------------------------------------
def test_exports():
    assert ember.func.functional_call is functional_call
    assert "functional_call" in ember.func.__all__
    if torch is not None:  # the same public names as torch.func (order aside)
        assert sorted(ember.func.__all__) == sorted(torch.func.__all__)
    assert ember.nn.utils.stateless.__all__ == ["functional_call"]


def test_full_dict_replaces_everything_and_module_is_unchanged():
    m = E_MLP()
    fill(m)
    before = snapshot(m)
    x = randn(4, 3, seed=9)
    own = m(x).detach().numpy()
    p = new_values(m)
    out = functional_call(m, p, x)
    expect = (x @ p["l1.weight"].T + p["l1.bias"]).tanh() @ p["l2.weight"].T + p["l2.bias"]
    np.testing.assert_allclose(out.detach().numpy(), expect.detach().numpy(), rtol=0, atol=1e-14)
    assert_unchanged(m, before)
    np.testing.assert_array_equal(m(x).detach().numpy(), own)


def test_partial_dict_keeps_the_rest():
    m = E_MLP()
    fill(m)
    x = randn(4, 3, seed=9)
    w = randn(2, 8, seed=5)
    out = functional_call(m, {"l2.weight": w}, x)
    expect = m.l1(x).tanh() @ w.T + m.l2.bias
    np.testing.assert_allclose(out.detach().numpy(), expect.detach().numpy(), rtol=0, atol=1e-14)
    # empty dict: the module's own tensors
    np.testing.assert_array_equal(functional_call(m, {}, x).detach().numpy(), m(x).detach().numpy())


def test_module_unchanged_when_forward_raises():
    class Boom(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = E_Affine(3, 2)
            self.register_buffer("buf", ember.zeros(2))

        def forward(self, x):
            self.inner(x)
            raise ValueError("boom")

    m = Boom()
    before = snapshot(m)
    given = {"inner.weight": randn(2, 3), "buf": ember.ones(2), "extra": ember.ones(1)}
    with pytest.raises(ValueError, match="boom"):
        functional_call(m, given, randn(1, 3))
    assert_unchanged(m, before)
    assert "extra" not in m.__dict__


def test_gradients_flow_to_given_tensors_not_to_module_params():
    m = E_MLP()
    fill(m)
    p = {k: v.requires_grad_() for k, v in new_values(m).items()}  # plain tensors
    functional_call(m, p, randn(4, 3, seed=9)).pow(2).sum().backward()
    for k, v in p.items():
        assert v.grad is not None and v.grad.shape == v.shape, k
    for k, v in m.named_parameters():
        assert v.grad is None, k


def test_partial_dict_gradients_split_between_given_and_own():
    m = E_MLP()
    fill(m)
    w = randn(2, 8, seed=5).requires_grad_()
    functional_call(m, {"l2.weight": w}, randn(4, 3, seed=9)).sum().backward()
    assert w.grad is not None
    assert m.l2.weight.grad is None
    assert m.l1.weight.grad is not None and m.l2.bias.grad is not None


def test_non_leaf_tensors_are_accepted_and_differentiated_through():
    m = E_Affine(3, 2)
    fill(m)
    w = m.weight
    x = randn(5, 3, seed=2)
    fast = w * 2.0  # non-leaf, not a Parameter
    out = functional_call(m, {"weight": fast}, x)
    (g,) = ember.autograd.grad(out.sum(), [w])
    # d/dw sum(x @ (2w).T) = 2 * column sums of x, for every output row
    np.testing.assert_allclose(g.numpy(), np.tile(2 * x.numpy().sum(0), (2, 1)), atol=1e-12)
    assert m.weight is w and type(m._parameters["weight"]) is ember.nn.Parameter


def test_calling_twice_with_different_dicts():
    m = E_MLP()
    fill(m)
    x = randn(4, 3, seed=9)
    p1, p2 = new_values(m, seed=1), new_values(m, seed=20)
    o1 = functional_call(m, p1, x)
    o2 = functional_call(m, p2, x)
    o1b = functional_call(m, p1, x)
    assert not np.allclose(o1.detach().numpy(), o2.detach().numpy())
    np.testing.assert_array_equal(o1.detach().numpy(), o1b.detach().numpy())


def test_nested_submodules_and_dotted_names():
    class Outer(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = E_MLP()
            self.head = E_Affine(2, 1)

        def forward(self, x):
            return self.head(self.block(x))

    m = Outer()
    fill(m)
    x = randn(4, 3, seed=9)
    w = randn(8, 3, seed=3)
    out = functional_call(m, {"block.l1.weight": w}, x)
    h = (x @ w.T + m.block.l1.bias).tanh()
    expect = m.head(m.block.l2(h))
    np.testing.assert_allclose(out.detach().numpy(), expect.detach().numpy(), atol=1e-14)


def test_args_and_kwargs():
    class Args(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = ember.nn.Parameter(ember.ones(2))

        def forward(self, *args, scale=1.0):
            return args, self.w * scale

    m = Args()
    w = ember.tensor([2.0, 3.0])
    args, out = functional_call(m, {"w": w}, None)
    assert args == ()
    lst = [1, 2]
    args, _ = functional_call(m, {"w": w}, lst)  # not a tuple: one argument
    assert args == (lst,)
    args, out = functional_call(m, {"w": w}, (1, 2), {"scale": 10.0})
    assert args == (1, 2)
    np.testing.assert_array_equal(out.detach().numpy(), [20.0, 30.0])
    args, out = functional_call(m, {"w": w}, kwargs={"scale": 0.5})
    np.testing.assert_array_equal(out.detach().numpy(), [1.0, 1.5])


def test_list_or_tuple_of_dicts_is_merged():
    m = E_MLP()
    fill(m)
    x = randn(4, 3, seed=9)
    p = new_values(m)
    a = {k: v for k, v in p.items() if k.startswith("l1")}
    b = {k: v for k, v in p.items() if k.startswith("l2")}
    full = functional_call(m, p, x).detach().numpy()
    np.testing.assert_array_equal(functional_call(m, (a, b), x).detach().numpy(), full)
    np.testing.assert_array_equal(functional_call(m, [a, b], x).detach().numpy(), full)
    np.testing.assert_array_equal(functional_call(m, (), x).detach().numpy(), m(x).detach().numpy())


def test_bad_dict_arguments():
    m = E_MLP()
    w = ember.zeros(8, 3)
    with pytest.raises(ValueError, match=r"\['l1.weight'\] appeared in multiple dictionaries"):
        functional_call(m, ({"l1.weight": w}, {"l1.weight": w}), randn(1, 3))
    with pytest.raises(ValueError, match="Expected all elements"):
        functional_call(m, [{"l1.weight": w}, 3], randn(1, 3))
    with pytest.raises(ValueError, match="to be a dict, or a list/tuple of dicts"):
        functional_call(m, 3, randn(1, 3))


def test_bad_keys_and_values():
    m = E_MLP()
    x = randn(1, 3)
    before = snapshot(m)
    with pytest.raises(TypeError, match="l1.weight"):
        functional_call(m, {"l1.weight": np.zeros((8, 3))}, x)
    with pytest.raises(AttributeError, match="MLP has no attribute `nope`"):
        functional_call(m, {"nope.weight": ember.zeros(1)}, x)
    with pytest.raises(TypeError, match="not a Module"):
        functional_call(m, {"l1.weight.x": ember.zeros(1)}, x)
    with pytest.raises(TypeError, match="submodule"):
        functional_call(m, {"l1": ember.zeros(1)}, x)
    with pytest.raises(TypeError, match="training"):
        functional_call(m, {"training": ember.zeros(1)}, x)
    # a bad key after good ones: nothing was swapped in
    with pytest.raises(AttributeError):
        functional_call(m, {"l1.weight": ember.zeros(8, 3), "nope.w": ember.zeros(1)}, x)
    assert_unchanged(m, before)


def test_none_replaces_a_parameter():
    class MaybeBias(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.bias = ember.nn.Parameter(ember.ones(2))

        def forward(self, x):
            return x if self.bias is None else x + self.bias

    m = MaybeBias()
    x = ember.zeros(2)
    out = functional_call(m, {"bias": None}, x)
    np.testing.assert_array_equal(out.detach().numpy(), [0.0, 0.0])
    assert isinstance(m.bias, ember.nn.Parameter)


def test_unexpected_key_is_an_attribute_for_the_call_only():
    class Reads(ember.nn.Module):
        def forward(self, x):
            return x + self.extra

    m = Reads()
    out = functional_call(m, {"extra": ember.ones(2)}, ember.zeros(2))
    np.testing.assert_array_equal(out.detach().numpy(), [1.0, 1.0])
    assert not hasattr(m, "extra") and "extra" not in m.__dict__


def test_plain_tensor_attribute_is_swapped_without_registration_warning():
    class Attr(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.set_point = ember.zeros(2)  # a plain (unregistered) tensor attribute

        def forward(self, x):
            return x - self.set_point

    m = Attr()
    orig = m.set_point
    t = ember.ones(2).requires_grad_()  # a leaf that requires grad: setattr would warn
    out = functional_call(m, {"set_point": t}, ember.zeros(2))  # warnings are errors here
    out.sum().backward()
    np.testing.assert_array_equal(t.grad.detach().numpy(), [-1.0, -1.0])
    assert m.set_point is orig and list(m._parameters) == [] and list(m._buffers) == []


def test_property_with_setter_is_set_through_it():
    class Prop(ember.nn.Module):
        def __init__(self):
            super().__init__()
            object.__setattr__(self, "_w", ember.ones(2))

        @property
        def w(self):
            return self._w

        @w.setter
        def w(self, value):
            object.__setattr__(self, "_w", value)

        def forward(self, x):
            return x * self.w

    m = Prop()
    orig = m.w
    out = functional_call(m, {"w": ember.full((2,), 3.0)}, ember.ones(2))
    np.testing.assert_array_equal(out.detach().numpy(), [3.0, 3.0])
    assert m.w is orig and "w" not in m.__dict__


def test_tied_weights_one_name_given_ties_both():
    m = E_Tied()
    x = ember.zeros(2, dtype=ember.float64)
    np.testing.assert_array_equal(m(x).detach().numpy(), [2.0, 2.0])
    z = ember.zeros(2, dtype=ember.float64)
    for key in ("foo", "foo_tied"):
        np.testing.assert_array_equal(functional_call(m, {key: z}, x).detach().numpy(), [0.0, 0.0])
        np.testing.assert_array_equal(
            functional_call(m, {key: z}, x, tie_weights=False).detach().numpy(), [1.0, 1.0]
        )
    # the same tensor for both names is fine
    np.testing.assert_array_equal(
        functional_call(m, {"foo": z, "foo_tied": z}, x).detach().numpy(), [0.0, 0.0]
    )
    assert m.foo is m.foo_tied and isinstance(m.foo, ember.nn.Parameter)


def test_tied_weights_gradient_goes_to_the_one_given_tensor():
    m = E_Tied()
    z = ember.zeros(2, dtype=ember.float64).requires_grad_()
    functional_call(m, {"foo": z}, ember.zeros(2, dtype=ember.float64)).sum().backward()
    np.testing.assert_array_equal(z.grad.detach().numpy(), [2.0, 2.0])
    assert m.foo.grad is None


def test_tied_weights_different_values_raise():
    m = E_Tied()
    before = snapshot(m)
    a, b = ember.zeros(2, dtype=ember.float64), ember.zeros(2, dtype=ember.float64)
    with pytest.raises(
        ValueError,
        match=r"multiple values for keys \['foo', 'foo_tied'\], "
        r"which are tied. Consider using tie_weights=False",
    ):
        functional_call(m, {"foo": a, "foo_tied": b}, a)
    assert_unchanged(m, before)
    out = functional_call(m, {"foo": a, "foo_tied": b + 5}, a, tie_weights=False)
    np.testing.assert_array_equal(out.detach().numpy(), [5.0, 5.0])


def test_three_way_tie_with_two_names_given():
    # NOTE: torch raises KeyError here (it looks up every tied name in the given dict);
    # ember checks only the names given.
    m = E_Tied()
    m.third = m.foo
    z = ember.zeros(2, dtype=ember.float64)
    out = functional_call(m, {"foo": z, "third": z}, z)
    np.testing.assert_array_equal(out.detach().numpy(), [0.0, 0.0])
    with pytest.raises(ValueError, match="which are tied"):
        functional_call(m, {"foo": z, "third": z + 1}, z)


def test_shared_submodule_is_tied_and_restored():
    class Shared(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = E_Affine(2, 2)
            self.b = self.a

        def forward(self, x):
            return self.a(x) + self.b(x)

    m = Shared()
    fill(m)
    before = snapshot(m)
    x = randn(3, 2)
    w1, w2 = randn(2, 2, seed=1), randn(2, 2, seed=2)
    out = functional_call(m, {"a.weight": w1}, x)
    close(out, 2 * (x @ w1.T + m.a.bias), tol=1e-14)
    with pytest.raises(ValueError, match=r"\['a.weight', 'b.weight'\]"):
        functional_call(m, {"a.weight": w1, "b.weight": w2}, x)
    # untied, both names write the same slot: the last one wins, and the original comes back
    out = functional_call(m, {"a.weight": w1, "b.weight": w2}, x, tie_weights=False)
    close(out, 2 * (x @ w2.T + m.a.bias), tol=1e-14)
    assert_unchanged(m, before)


def test_strict_errors_name_the_keys():
    m = E_MLP()
    x = randn(1, 3)
    p = new_values(m)
    functional_call(m, p, x, strict=True)
    partial = {k: v for k, v in p.items() if k != "l2.bias"}
    with pytest.raises(RuntimeError) as e:
        functional_call(m, partial, x, strict=True)
    assert str(e.value) == "Error(s) in reparametrizing for MLP:\n\tMissing key(s): 'l2.bias'."
    extra = dict(p, zz=ember.zeros(1), **{"l1.extra": ember.zeros(1)})
    with pytest.raises(RuntimeError) as e:
        functional_call(m, extra, x, strict=True)
    assert str(e.value) == (
        "Error(s) in reparametrizing for MLP:\n\tUnexpected key(s): 'l1.extra', 'zz'."
    )
    with pytest.raises(RuntimeError) as e:
        functional_call(m, {"zz": ember.zeros(1)}, x, strict=True)
    assert str(e.value) == (
        "Error(s) in reparametrizing for MLP:\n\tUnexpected key(s): 'zz'.\n"
        "\tMissing key(s): 'l1.bias', 'l1.weight', 'l2.bias', 'l2.weight'."
    )


def test_strict_counts_tied_names_and_buffers():
    m = E_Tied()
    z = ember.zeros(2, dtype=ember.float64)
    functional_call(m, {"foo": z}, z, strict=True)  # foo_tied comes from the tie
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'foo_tied'"):
        functional_call(m, {"foo": z}, z, strict=True, tie_weights=False)
    r = E_Running()
    with pytest.raises(RuntimeError, match="'calls', 'num_batches_tracked', 'running_mean'"):
        functional_call(r, {"scale": ember.ones(3, dtype=ember.float64)}, randn(2, 3), strict=True)


def test_buffers_updated_in_place_land_in_the_given_tensor():
    m = E_Running()
    before = snapshot(m)
    x = randn(4, 3)
    mean = ember.zeros(3, dtype=ember.float64)
    count = ember.tensor(5)
    calls = ember.zeros((), dtype=ember.float64)
    given = {"running_mean": mean, "num_batches_tracked": count, "calls": calls}
    functional_call(m, given, x)
    np.testing.assert_allclose(mean.detach().numpy(), 0.1 * x.detach().numpy().mean(0), atol=1e-15)
    assert count.item() == 6
    # forward reassigned self.calls: the new tensor is written back into the given dict
    assert given["calls"] is not calls and given["calls"].item() == 1.0 and calls.item() == 0
    assert given["running_mean"] is mean
    assert_unchanged(m, before)
    # with a tuple of dicts the user's dicts are not written to (as torch: they were merged)
    d1, d2 = {"running_mean": mean, "num_batches_tracked": count}, {"calls": calls}
    functional_call(m, (d1, d2), x)
    assert d2["calls"] is calls
    assert_unchanged(m, before)


def test_data_parallel_is_refused():
    parallel = pytest.importorskip(
        "ember.nn.parallel", reason="ember.nn.parallel (DataParallel) is not built yet"
    )
    m = parallel.DataParallel(E_Affine(2, 2))
    with pytest.raises(RuntimeError, match="can't be used with nn.DataParallel"):
        functional_call(m, {}, ember.ones(1, 2))


def test_forward_hooks_see_the_given_tensors():
    m = E_Affine(2, 2)
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(mod.weight))
    w = ember.ones(2, 2)
    functional_call(m, {"weight": w}, ember.ones(1, 2))
    assert seen[0] is w and isinstance(m.weight, ember.nn.Parameter)


def test_stateless_alias_warns_and_agrees():
    m = E_MLP()
    fill(m)
    p, x = new_values(m), randn(4, 3)
    with pytest.warns(FutureWarning, match="ember.func.functional_call"):
        out = ember.nn.utils.stateless.functional_call(m, p, x)
    np.testing.assert_array_equal(out.detach().numpy(), functional_call(m, p, x).detach().numpy())
    with pytest.warns(FutureWarning):
        with pytest.raises(RuntimeError, match="Missing key"):
            ember.nn.utils.stateless.functional_call(m, {}, x, strict=True)
    assert "deprecated" in ember.nn.utils.stateless.functional_call.__deprecated__


# ---- parity with torch -------------------------------------------------------------------------
def pair(kind="affine", seed=0):
    """The same MLP in ember and torch, weights copied through the state dict."""
    T_Affine, T_MLP, _, _ = classes(torch)
    if kind == "linear":
        if not hasattr(ember.nn, "Linear"):
            pytest.skip("ember.nn.Linear is not built yet")
        em = E_MLP(lambda i, o: ember.nn.Linear(i, o, dtype=ember.float64))
        tm = T_MLP(lambda i, o: torch.nn.Linear(i, o, dtype=torch.float64))
    else:
        em, tm = E_MLP(), T_MLP()
    state = fill(em, seed)
    tm.load_state_dict({k: torch.from_numpy(a) for k, a in state.items()})
    return em, tm


def both(*arrays):
    return [ember.from_numpy(a) for a in arrays], [torch.from_numpy(a) for a in arrays]


def close(e, t, tol=1e-10):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("kind", ["affine", "linear"])
def test_parity_mlp_output_and_gradients(kind):
    em, tm = pair(kind)
    rng = np.random.default_rng(3)
    (ex,), (tx,) = both(rng.standard_normal((5, 3)))
    new = {k: rng.standard_normal(tuple(v.shape)) for k, v in em.named_parameters()}
    ep = {k: ember.from_numpy(a).requires_grad_() for k, a in new.items()}
    tp = {k: torch.from_numpy(a).requires_grad_() for k, a in new.items()}
    eo = functional_call(em, ep, ex)
    to = torch.func.functional_call(tm, tp, tx)
    close(eo, to)
    eg = ember.autograd.grad(eo.pow(2).sum(), list(ep.values()))
    tg = torch.autograd.grad(to.pow(2).sum(), list(tp.values()))
    for a, b in zip(eg, tg, strict=True):
        close(a, b)
    # partial dict
    close(
        functional_call(em, {"l1.bias": ep["l1.bias"]}, ex),
        torch.func.functional_call(tm, {"l1.bias": tp["l1.bias"]}, tx),
    )


def maml_outer_grad(lib, fc, model, xs, ys, xq, yq, steps=2, lr=0.1):
    params = dict(model.named_parameters())
    fast = params
    for _ in range(steps):
        inner = ((fc(model, fast, xs) - ys) ** 2).mean()
        grads = lib.autograd.grad(inner, fast.values(), create_graph=True)
        fast = {n: p - lr * g for (n, p), g in zip(fast.items(), grads, strict=True)}
    outer = ((fc(model, fast, xq) - yq) ** 2).mean()
    return outer, lib.autograd.grad(outer, params.values())


@needs_torch
@pytest.mark.parametrize("kind", ["affine", "linear"])
def test_parity_maml_outer_gradient(kind):
    em, tm = pair(kind, seed=4)
    rng = np.random.default_rng(7)
    data = [rng.standard_normal(s) for s in ((6, 3), (6, 2), (5, 3), (5, 2))]
    e_data, t_data = both(*data)
    e_loss, e_grads = maml_outer_grad(ember, functional_call, em, *e_data)
    t_loss, t_grads = maml_outer_grad(torch, torch.func.functional_call, tm, *t_data)
    close(e_loss, t_loss)
    assert len(e_grads) == 4
    for a, b in zip(e_grads, t_grads, strict=True):
        assert a.dtype == ember.float64
        close(a, b)
    # the module's own parameters were never written to
    for (_, p), (_, q) in zip(em.named_parameters(), tm.named_parameters(), strict=True):
        assert p.grad is None
        close(p, q)


@needs_torch
def test_parity_hessian_vector_product():
    em, tm = pair(seed=5)
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    v = {k: rng.standard_normal(tuple(p.shape)) for k, p in em.named_parameters()}

    def hvp(lib, fc, model, x, y):
        params = {k: p.detach().clone().requires_grad_() for k, p in model.named_parameters()}
        loss = ((fc(model, params, x) - y) ** 2).sum()
        grads = lib.autograd.grad(loss, params.values(), create_graph=True)
        gv = sum((g * lib.from_numpy(v[k])).sum() for k, g in zip(params, grads, strict=True))
        return lib.autograd.grad(gv, params.values())

    (ex, ey), (tx, ty) = both(x, y)
    e_hvp = hvp(ember, functional_call, em, ex, ey)
    t_hvp = hvp(torch, torch.func.functional_call, tm, tx, ty)
    for a, b in zip(e_hvp, t_hvp, strict=True):
        close(a, b)
    assert any(np.abs(a.detach().numpy()).max() > 1e-3 for a in e_hvp)


@needs_torch
def test_parity_buffers():
    _, _, _, T_Running = classes(torch)
    em, tm = E_Running(), T_Running()
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3))
    mean = rng.standard_normal(3)
    results = []
    for lib, fc, m in ((ember, functional_call, em), (torch, torch.func.functional_call, tm)):
        given = {
            "running_mean": lib.from_numpy(mean.copy()),
            "num_batches_tracked": lib.tensor(3),
            "calls": lib.zeros((), dtype=lib.float64),
        }
        keep = dict(given)
        out = fc(m, given, lib.from_numpy(x))
        results.append((out, given, keep, m))
    (eo, eg, ek, em), (to, tg, tk, tm) = results
    close(eo, to)
    for k in eg:
        close(eg[k], tg[k])
        assert (eg[k] is ek[k]) == (tg[k] is tk[k]), k  # same write-back as torch
    for k in ("running_mean", "num_batches_tracked", "calls"):
        close(em.get_buffer(k), tm.get_buffer(k))


@needs_torch
def test_parity_tied_weights():
    _, _, T_Tied, _ = classes(torch)
    em, tm = E_Tied(), T_Tied()
    for tie in (True, False):
        for keys in (("foo",), ("foo_tied",), ("foo", "foo_tied")):
            ez = ember.zeros(2, dtype=ember.float64)
            tz = torch.zeros(2, dtype=torch.float64)
            close(
                functional_call(em, dict.fromkeys(keys, ez), ez, tie_weights=tie),
                torch.func.functional_call(tm, dict.fromkeys(keys, tz), tz, tie_weights=tie),
            )


def error_of(fn, *args):
    with pytest.raises(Exception) as e:
        fn(*args)
    return type(e.value), str(e.value)


@needs_torch
def test_parity_error_types_and_messages():
    T_Affine, T_MLP, T_Tied, _ = classes(torch)
    em, tm = E_MLP(), T_MLP()
    et, tt = E_Tied(), T_Tied()
    cases = [
        lambda lib, fc, m, t: fc(m, {"zz": lib.zeros(1)}, lib.zeros(1, 3), strict=True),
        lambda lib, fc, m, t: fc(m, {"l1.weight": lib.zeros(8, 3)}, lib.zeros(1, 3), strict=True),
        lambda lib, fc, m, t: fc(t, {"foo": lib.zeros(2), "foo_tied": lib.ones(2)}, lib.zeros(2)),
        lambda lib, fc, m, t: fc(
            m,
            ({"a": lib.zeros(1), "b": lib.zeros(1)}, {"b": lib.zeros(1), "a": lib.zeros(1)}),
            lib.zeros(1, 3),
        ),
        lambda lib, fc, m, t: fc(m, [{}, 3], lib.zeros(1, 3)),
        lambda lib, fc, m, t: fc(m, 3, lib.zeros(1, 3)),
    ]
    for case in cases:
        assert error_of(case, ember, functional_call, em, et) == error_of(
            case, torch, torch.func.functional_call, tm, tt
        )
    # same error types where ember's message names the key
    typed = [
        lambda lib, fc, m: fc(m, {"l1.weight": 3}, lib.zeros(1, 3)),
        lambda lib, fc, m: fc(m, {"nope.w": lib.zeros(1)}, lib.zeros(1, 3)),
        lambda lib, fc, m: fc(m, {"l1.weight.x": lib.zeros(1)}, lib.zeros(1, 3)),
        lambda lib, fc, m: fc(m, {"forward": lib.zeros(1)}, lib.zeros(1, 3)),
    ]
    for case in typed:
        assert (
            error_of(case, ember, functional_call, em)[0]
            is error_of(case, torch, torch.func.functional_call, tm)[0]
        )


@needs_torch
@pytest.mark.parametrize("name", ["func.functional_call", "nn.utils.stateless.functional_call"])
def test_parity_signature(name):
    import inspect

    def sig(lib):
        obj = lib
        for part in name.split("."):
            obj = getattr(obj, part)
        return [(p.name, p.kind, p.default) for p in inspect.signature(obj).parameters.values()]

    assert sig(ember) == sig(torch)


@needs_torch
def test_parity_stateless_alias_warns():
    _, T_MLP, _, _ = classes(torch)
    with pytest.warns(FutureWarning, match="is deprecated"):
        torch.nn.utils.stateless.functional_call(
            T_MLP(), {}, torch.zeros(1, 3, dtype=torch.float64)
        )
    with pytest.warns(FutureWarning, match="is deprecated"):
        ember.nn.utils.stateless.functional_call(
            E_MLP(), {}, ember.zeros(1, 3, dtype=ember.float64)
        )
