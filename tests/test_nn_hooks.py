"""Module calling and hooks: the no-hook fast path, forward pre-hooks and forward hooks
(with_kwargs, prepend, always_call), full backward pre-hooks and full backward hooks, the legacy
register_backward_hook, the global hooks of ember.nn.modules.module, and RemovableHandle."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import Parameter
from ember.nn.modules import module as module_mod


class Affine(nn.Module):
    def __init__(self, n: int = 2):
        super().__init__()
        self.weight = Parameter(ember.arange(1.0, n * n + 1, dtype=ember.float64).reshape(n, n))
        self.bias = Parameter(ember.full((n,), 0.5, dtype=ember.float64))

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class Identity(nn.Module):
    def forward(self, x):
        return x


def x64(*values, rg=True):
    return ember.tensor(list(values), dtype=ember.float64, requires_grad=rg)


def vals(t):
    return None if t is None else t.detach().numpy().tolist()


# ---- calling ---------------------------------------------------------------------------------
def test_no_hook_call_is_the_fast_path(monkeypatch):
    def boom(self, args, kwargs):
        raise AssertionError("slow path taken")

    monkeypatch.setattr(nn.Module, "_call_with_hooks", boom)
    m = Affine()
    out = m(x64(1.0, 2.0))
    assert vals(out) == [5.5, 11.5]
    h = m.register_forward_hook(lambda *a: None)
    with pytest.raises(AssertionError, match="slow path"):
        m(x64(1.0, 2.0))
    h.remove()
    m(x64(1.0, 2.0))
    g = module_mod.register_module_forward_pre_hook(lambda *a: None)
    try:
        with pytest.raises(AssertionError, match="slow path"):
            m(x64(1.0, 2.0))
    finally:
        g.remove()


def test_call_passes_args_and_kwargs():
    class K(nn.Module):
        def forward(self, a, b=1, *, c=2):
            return (a, b, c)

    assert K()(0) == (0, 1, 2)
    assert K()(0, 5, c=7) == (0, 5, 7)


def test_calling_forward_directly_skips_hooks():
    m = Affine()
    events = []
    m.register_forward_pre_hook(lambda *a: events.append("pre"))
    m.register_forward_hook(lambda *a: events.append("fwd"))
    m.register_full_backward_hook(lambda *a: events.append("bwd"))
    x = x64(1.0, 2.0)
    m.forward(x).sum().backward()
    assert events == []
    m(x).sum().backward()
    assert events == ["pre", "fwd", "bwd"]


# ---- forward pre-hooks ------------------------------------------------------------------------
def test_forward_pre_hook_sees_and_replaces_args():
    m = Affine()
    seen = []

    def double(mod, args):
        seen.append((mod, len(args)))
        return (args[0] * 2,)

    m.register_forward_pre_hook(double)
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)  # a non-tuple is wrapped
    assert vals(m(x64(1.0, 0.0, rg=False))) == [5.5, 13.5]  # (2*x + 1) @ W.T + b
    assert seen == [(m, 1)]


def test_forward_pre_hook_with_kwargs():
    class K(nn.Module):
        def forward(self, x, *, y=0):
            return x + y

    k = K()
    seen = []

    def hook(mod, args, kwargs):
        seen.append((args, dict(kwargs)))
        return (args[0] * 10,), {"y": 5}

    k.register_forward_pre_hook(hook, with_kwargs=True)
    assert k(1, y=1) == 15
    assert seen == [((1,), {"y": 1})]


def test_forward_pre_hook_with_kwargs_bad_return():
    k = Identity()
    k.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    with pytest.raises(
        RuntimeError,
        match=r"forward pre-hook must return None or a tuple of "
        r"\(new_args, new_kwargs\), but got \(1,\)",
    ):
        k(1)


def test_prepend_orders_hooks():
    m = Identity()
    events = []
    m.register_forward_pre_hook(lambda *a: events.append("pre1"))
    m.register_forward_pre_hook(lambda *a: events.append("pre0"), prepend=True)
    m.register_forward_hook(lambda *a: events.append("fwd1"))
    m.register_forward_hook(lambda *a: events.append("fwd0"), prepend=True)
    m.register_forward_hook(lambda *a: events.append("fwd2"))
    m(1)
    assert events == ["pre0", "pre1", "fwd0", "fwd1", "fwd2"]


# ---- forward hooks ----------------------------------------------------------------------------
def test_forward_hook_replaces_output_and_sees_kwargs():
    class K(nn.Module):
        def forward(self, x, y=0):
            return x + y

    k = K()
    seen = []
    k.register_forward_hook(lambda mod, args, out: out * 2)
    k.register_forward_hook(
        lambda mod, args, kwargs, out: seen.append((args, kwargs, out)), with_kwargs=True
    )
    k.register_forward_hook(lambda mod, args, out: out + 1)
    assert k(1, y=2) == 7
    assert seen == [((1,), {"y": 2}, 6)]


def test_forward_hook_sees_args_after_pre_hooks():
    m = Identity()
    seen = []
    m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
    m.register_forward_hook(lambda mod, args, out: seen.append((args, out)))
    m(1)
    assert seen == [((2,), 2)]


def test_always_call_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x, y=0):
            raise ValueError("boom")

    m = Boom()
    events = []
    m.register_forward_hook(
        lambda mod, args, out: events.append(("always", args, out)), always_call=True
    )
    m.register_forward_hook(lambda mod, args, out: events.append("normal"))
    m.register_forward_hook(
        lambda mod, args, kwargs, out: events.append(("kw", kwargs)),
        always_call=True,
        with_kwargs=True,
    )
    with pytest.raises(ValueError, match="boom"):
        m(1, y=3)
    assert events == [("always", (1,), None), ("kw", {"y": 3})]


def test_always_call_hook_runs_when_a_pre_hook_raises():
    m = Identity()
    events = []

    def bad(mod, args):
        raise KeyError("pre")

    m.register_forward_pre_hook(bad)
    m.register_forward_hook(lambda mod, args, out: events.append((args, out)), always_call=True)
    with pytest.raises(KeyError):
        m(1)
    assert events == [((1,), None)]


def test_always_call_hook_is_not_run_twice():
    m = Identity()
    events = []

    def bad(mod, args, out):
        raise KeyError("late")

    m.register_forward_hook(lambda mod, args, out: events.append("always"), always_call=True)
    m.register_forward_hook(bad)
    with pytest.raises(KeyError):
        m(1)
    assert events == ["always"]


def test_always_call_hook_error_during_failure_becomes_a_warning():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    def bad(mod, args, out):
        raise KeyError("inner")

    m = Boom()
    m.register_forward_hook(bad, always_call=True)
    with pytest.warns(
        UserWarning,
        match="module forward hook with ``always_call=True`` raised an exception that was silenced",
    ):
        with pytest.raises(ValueError, match="boom"):
            m(1)


# ---- handles ----------------------------------------------------------------------------------
def test_handle_remove_is_idempotent_and_clears_the_flags():
    m = Identity()
    events = []
    h = m.register_forward_hook(lambda *a: events.append(1), always_call=True, with_kwargs=False)
    m(1)
    h.remove()
    m(1)
    h.remove()
    assert events == [1]
    assert len(m._forward_hooks) == 0 and len(m._forward_hooks_always_called) == 0
    h2 = m.register_forward_pre_hook(lambda mod, a, k: None, with_kwargs=True)
    h2.remove()
    assert not m._forward_pre_hooks and not m._forward_pre_hooks_with_kwargs


def test_handle_as_context_manager():
    m = Identity()
    events = []
    with m.register_forward_pre_hook(lambda *a: events.append(1)) as h:
        m(1)
    m(1)
    assert events == [1] and not m._forward_pre_hooks
    assert isinstance(h, ember.utils.hooks.RemovableHandle)


def test_every_hook_kind_returns_the_utils_hooks_handle():
    # ``from torch.utils.hooks import RemovableHandle`` in ported code finds ember's class
    from ember.utils.hooks import RemovableHandle

    m = Identity()
    x = ember.ones(1, requires_grad=True)
    handles = [
        m.register_forward_hook(lambda *a: None),
        m.register_full_backward_hook(lambda *a: None),
        m.register_state_dict_pre_hook(lambda *a: None),
        x.register_hook(lambda g: None),
        (x * 1).grad_fn.register_hook(lambda *a: None),
    ]
    assert all(isinstance(h, RemovableHandle) for h in handles)


def test_handles_have_distinct_ids():
    m = Identity()
    a = m.register_forward_hook(lambda *x: None)
    b = m.register_forward_pre_hook(lambda *x: None)
    assert a.id != b.id


# ---- full backward hooks ----------------------------------------------------------------------
def test_full_backward_hook_receives_grad_input_and_grad_output():
    m = Affine()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((mod, gi, go)))
    x = x64(1.0, -1.0)
    (m(x) * ember.tensor([1.0, 3.0], dtype=ember.float64)).sum().backward()
    ((mod, gi, go),) = seen
    assert mod is m and isinstance(gi, tuple) and isinstance(go, tuple)
    assert vals(go[0]) == [1.0, 3.0]
    assert vals(gi[0]) == [10.0, 14.0]  # W.T @ go
    assert vals(x.grad) == [10.0, 14.0]
    assert vals(m.weight.grad) == [[1.0, -1.0], [3.0, -3.0]]


def test_full_backward_hook_replacing_grad_input_changes_the_input_gradient():
    m = Affine()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0 + 3,))
    x = x64(1.0, 2.0)
    m(x).sum().backward()
    assert vals(x.grad) == [3.0, 3.0]
    assert vals(m.weight.grad) == [[1.0, 2.0], [1.0, 2.0]]  # parameters are not affected


def test_full_backward_hook_may_return_a_list():
    m = Affine()
    m.register_full_backward_hook(lambda mod, gi, go: [ember.ones_like(g) * 42 for g in gi])
    x = x64(1.0, 2.0)
    m(x).sum().backward()
    assert vals(x.grad) == [42.0, 42.0]


def test_backward_pre_hook_replaces_grad_output():
    m = Affine()
    seen = []
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(vals(go[0])))
    x = x64(1.0, 1.0)
    m(x).sum().backward()
    assert seen == [[2.0, 2.0]]
    assert vals(x.grad) == [8.0, 12.0] and vals(m.bias.grad) == [2.0, 2.0]


def test_multiple_inputs_and_outputs():
    class Multi(nn.Module):
        def forward(self, a, k, b, c):
            return a * b * k, c.exp(), a + 1

    m = Multi()
    events = []
    m.register_full_backward_pre_hook(lambda mod, go: events.append(("pre", go)))
    m.register_full_backward_hook(lambda mod, gi, go: events.append(("full", gi, go)))
    a = x64(1.0, 2.0)
    b = x64(3.0, 4.0, rg=False)
    c = x64(0.0)
    o1, o2, o3 = m(a, 2, b, c)
    (o1.sum() + o2.sum()).backward()
    (_, pre_go), (_, gi, go) = events
    assert len(gi) == 4 and len(go) == 3
    # grad_output: None for the output no gradient reached.
    assert [vals(g) for g in go] == [[1.0, 1.0], [1.0], None]
    assert [vals(g) for g in pre_go] == [[1.0, 1.0], [1.0], None]
    # grad_input: None for the non-tensor argument; NOTE: matches torch: zeros for a tensor
    # argument that does not require grad.
    assert [vals(g) for g in gi] == [[6.0, 8.0], None, [0.0, 0.0], [1.0]]
    assert vals(a.grad) == [6.0, 8.0] and vals(c.grad) == [1.0] and b.grad is None


def test_unused_input_gets_zeros_and_unused_output_none():
    class Two(nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3

    m = Two()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    a, b = x64(1.0, 2.0), x64(3.0, 4.0)
    o1, _ = m(a, b)
    o1.sum().backward()
    ((gi, go),) = seen
    assert [vals(g) for g in gi] == [[2.0, 2.0], [0.0, 0.0]]
    assert [vals(g) for g in go] == [[1.0, 1.0], None]
    # NOTE: matches torch: the input node materializes zeros for b, which reach b.grad.
    assert vals(b.grad) == [0.0, 0.0]


def test_integer_tensor_input_gets_integer_zeros():
    class Scale(nn.Module):
        def forward(self, a, idx):
            return a * idx

    m = Scale()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    m(x64(1.0, 1.0), ember.tensor([1, 2])).sum().backward()
    assert seen[0][1].dtype == ember.int64 and vals(seen[0][1]) == [0, 0]


def test_kwargs_are_not_in_grad_input():
    class K(nn.Module):
        def forward(self, x, y=None):
            return x * y

    m = K()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    y = x64(2.0, 3.0)
    m(x64(1.0, 1.0), y=y).sum().backward()
    assert [vals(g) for g in seen[0]] == [[2.0, 3.0]]
    assert vals(y.grad) == [1.0, 1.0]  # the kwarg still gets its gradient


def test_no_input_requires_grad_warns_and_gives_none_grad_input():
    m = Affine()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    with pytest.warns(
        UserWarning,
        match="Full backward hook is firing when gradients are "
        "computed with respect to module outputs since no "
        "inputs require gradients",
    ):
        m(x64(1.0, 1.0, rg=False)).sum().backward()
    ((gi, go),) = seen
    assert gi == (None,) and vals(go[0]) == [1.0, 1.0]
    assert m.weight.grad is not None


def test_no_input_requires_grad_hook_must_not_return_gradients():
    m = Affine()
    m.register_full_backward_hook(lambda mod, gi, go: (ember.ones(2, dtype=ember.float64),))
    with pytest.warns(UserWarning, match="Full backward hook is firing"):
        with pytest.raises(
            RuntimeError,
            match="Backward hook for Modules where no input "
            "requires gradient should always return None",
        ):
            m(x64(1.0, 1.0, rg=False)).sum().backward()


def test_wrong_number_of_gradients_returned():
    m = Affine()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(
        RuntimeError,
        match="Backward hook returned an invalid number of grad_input, got 2, but expected 1",
    ):
        m(x64(1.0, 1.0)).sum().backward()
    m = Affine()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    with pytest.raises(
        RuntimeError,
        match="Backward pre hook returned an invalid number of grad_output, got 2, but expected 1",
    ):
        m(x64(1.0, 1.0)).sum().backward()


def test_backward_hook_order_and_prepend():
    m = Affine()
    events = []
    m.register_full_backward_hook(lambda *a: events.append("full1"))
    m.register_full_backward_hook(lambda *a: events.append("full0"), prepend=True)
    m.register_full_backward_pre_hook(lambda *a: events.append("pre1"))
    m.register_full_backward_pre_hook(lambda *a: events.append("pre0"), prepend=True)
    m(x64(1.0, 1.0)).sum().backward()
    assert events == ["pre0", "pre1", "full0", "full1"]


def test_backward_hooks_per_call():
    m = Affine()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((vals(gi[0]), vals(go[0]))))
    x = x64(1.0, 1.0)
    (m(x).sum() + 2 * m(x * 3).sum()).backward()
    assert sorted(seen) == sorted([([4.0, 6.0], [1.0, 1.0]), ([8.0, 12.0], [2.0, 2.0])])


def test_backward_hook_with_retained_graph_runs_each_time():
    m = Affine()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(vals(go[0])))
    y = m(x64(1.0, 1.0)).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert seen == [[1.0, 1.0], [1.0, 1.0]]


def test_no_grad_call_does_not_wire_backward_hooks():
    m = Affine()
    m.register_full_backward_hook(lambda *a: pytest.fail("called"))
    with ember.no_grad():
        y = m(x64(1.0, 1.0))
    assert not y.requires_grad and y.grad_fn is None


def test_output_that_is_not_a_tensor_or_tuple_warns():
    class ListOut(nn.Module):
        def forward(self, x):
            return [x * 2]

    m = ListOut()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.warns(
        UserWarning,
        match="For backward hooks to be called, module output "
        "should be a Tensor or a tuple of Tensors but "
        "received <class 'list'>",
    ):
        out = m(x64(1.0))
    assert isinstance(out, list)


def test_hooks_see_the_forward_hook_output():
    m = Affine()
    seen = []
    m.register_forward_hook(lambda mod, args, out: out * 2)
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((vals(gi[0]), vals(go[0]))))
    x = x64(1.0, 1.0)
    m(x).sum().backward()
    assert seen == [([8.0, 12.0], [1.0, 1.0])] and vals(x.grad) == [8.0, 12.0]


def test_cannot_mix_full_and_legacy_backward_hooks():
    m = Affine()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(
        RuntimeError,
        match="Cannot use both regular backward hooks and full backward hooks on a single Module",
    ):
        m.register_backward_hook(lambda *a: None)
    m = Affine()
    m.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        m.register_full_backward_hook(lambda *a: None)


def test_inplace_on_output_of_hooked_identity_module_raises():
    m = Identity()
    m.register_full_backward_hook(lambda *a: None)
    x = x64(1.0, 1.0)
    y = m(x)
    with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
        y.add_(1)


# ---- legacy register_backward_hook ------------------------------------------------------------
def test_legacy_backward_hook_sees_the_last_node():
    class Scale(nn.Module):
        def forward(self, x):
            return x * 2

    m = Scale()
    seen = []
    m.register_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    x = x64(1.0, 2.0)
    with pytest.warns(
        FutureWarning,
        match="Using a non-full backward hook when the forward "
        "contains multiple autograd Nodes is deprecated",
    ):
        y = m(x)
    y.sum().backward()
    ((gi, go),) = seen
    assert vals(gi[0]) == [2.0, 2.0] and gi[1] is None  # (x, the scalar 2), as torch
    assert [vals(g) for g in go] == [[1.0, 1.0]]


def test_legacy_backward_hook_may_replace_grad_input():
    class Scale(nn.Module):
        def forward(self, x):
            return x * 2

    m = Scale()
    m.register_backward_hook(lambda mod, gi, go: (gi[0] * 10, None))
    x = x64(1.0, 2.0)
    with pytest.warns(FutureWarning):
        y = m(x)
    y.sum().backward()
    assert vals(x.grad) == [20.0, 20.0]


def test_legacy_backward_hook_warns_for_non_tensor_inputs():
    class Scale(nn.Module):
        def forward(self, x, k):
            return x * k

    m = Scale()
    m.register_backward_hook(lambda *a: None)
    with pytest.warns(
        FutureWarning,
        match="does not take as input a single Tensor or a tuple of Tensors is deprecated",
    ):
        m(x64(1.0), 3)


def test_legacy_backward_hook_does_not_warn_when_forward_is_one_node():
    class Mul(nn.Module):
        def forward(self, x, y):
            return x * y

    m = Mul()
    seen = []
    m.register_backward_hook(lambda mod, gi, go: seen.append(gi))
    a, b = x64(1.0, 2.0), x64(3.0, 4.0)
    x, y = a * 1, b * 1  # non-leaf inputs: their nodes are exactly the next functions
    m(x, y).sum().backward()
    assert [vals(g) for g in seen[0]] == [[3.0, 4.0], [1.0, 2.0]]


# ---- global hooks -----------------------------------------------------------------------------
@pytest.fixture
def global_handles():
    handles = []
    yield handles
    for h in handles:
        h.remove()
    # Reset the full/legacy choice that a global backward hook makes.
    module_mod._global_is_full_backward_hook = None


def test_global_forward_hooks_run_before_module_hooks(global_handles):
    events = []
    m = Identity()
    m.register_forward_pre_hook(lambda mod, a: events.append("pre"))
    m.register_forward_hook(lambda mod, a, o: events.append("fwd"))
    global_handles += [
        module_mod.register_module_forward_pre_hook(lambda mod, a: events.append("gpre")),
        module_mod.register_module_forward_hook(lambda mod, a, o: events.append("gfwd")),
    ]
    m(1)
    assert events == ["gpre", "pre", "gfwd", "fwd"]
    for h in global_handles:
        h.remove()
    events.clear()
    m(1)
    assert events == ["pre", "fwd"]


def test_global_forward_hooks_replace_args_and_output(global_handles):
    global_handles += [
        module_mod.register_module_forward_pre_hook(lambda mod, a: (a[0] * 2,)),
        module_mod.register_module_forward_hook(lambda mod, a, o: o + 1),
    ]
    assert Identity()(3) == 7


def test_global_forward_hook_with_kwargs_and_always_call(global_handles):
    class K(nn.Module):
        def forward(self, x, y=1):
            if y < 0:
                raise ValueError("negative")
            return x + y

    seen = []
    global_handles += [
        module_mod.register_module_forward_hook(
            lambda mod, a, kw, o: seen.append((a, kw, o)), with_kwargs=True
        ),
        module_mod.register_module_forward_hook(
            lambda mod, a, o: seen.append(("always", a, o)), always_call=True
        ),
    ]
    assert K()(1, y=2) == 3
    with pytest.raises(ValueError):
        K()(1, y=-1)
    assert seen == [((1,), {"y": 2}, 3), ("always", (1,), 3), ("always", (1,), None)]


def test_global_backward_hooks(global_handles):
    outer_events = []
    m = Affine()
    global_handles += [
        module_mod.register_module_full_backward_pre_hook(
            lambda mod, go: outer_events.append(("gpre", vals(go[0])))
        ),
        module_mod.register_module_full_backward_hook(
            lambda mod, gi, go: outer_events.append(("gfull", vals(gi[0])))
        ),
    ]
    m.register_full_backward_pre_hook(lambda mod, go: outer_events.append(("pre", None)))
    m.register_full_backward_hook(lambda mod, gi, go: outer_events.append(("full", None)))
    m(x64(1.0, 1.0)).sum().backward()
    assert outer_events == [
        ("gpre", [1.0, 1.0]),
        ("pre", None),
        ("gfull", [4.0, 6.0]),
        ("full", None),
    ]


def test_global_full_and_legacy_backward_hooks_do_not_mix(global_handles):
    global_handles.append(module_mod.register_module_full_backward_hook(lambda *a: None))
    with pytest.raises(
        RuntimeError,
        match="Cannot use both regular backward hooks and full "
        "backward hooks as a global Module hook",
    ):
        module_mod.register_module_backward_hook(lambda *a: None)


def test_global_hooks_reach_every_module_of_a_tree(global_handles):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Affine()
            self.b = Affine()

        def forward(self, x):
            return self.b(self.a(x))

    net = Net()
    names = {m: n for n, m in net.named_modules()}
    events = []
    global_handles += [
        module_mod.register_module_forward_pre_hook(lambda m, a: events.append(names[m])),
    ]
    net(x64(1.0, 1.0))
    assert events == ["", "a", "b"]


def test_exported_global_hook_names():
    for name in (
        "register_module_forward_pre_hook",
        "register_module_forward_hook",
        "register_module_backward_hook",
        "register_module_full_backward_pre_hook",
        "register_module_full_backward_hook",
        "register_module_buffer_registration_hook",
        "register_module_module_registration_hook",
        "register_module_parameter_registration_hook",
    ):
        assert name in module_mod.__all__ and callable(getattr(module_mod, name))


def test_numpy_values_of_hooked_module_equal_unhooked():
    m = Affine()
    x = x64(0.5, -1.5)
    plain = m(x).detach().numpy()
    m.register_forward_pre_hook(lambda *a: None)
    m.register_full_backward_hook(lambda *a: None)
    np.testing.assert_array_equal(m(x).detach().numpy(), plain)
