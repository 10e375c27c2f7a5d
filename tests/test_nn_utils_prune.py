"""ember.nn.utils.prune against torch.nn.utils.prune: the pruning tutorial's flow on a LeNet
built in both libraries with the same weights (masks, reparametrization, hooks, state_dict,
forward outputs, remove), iterative and global pruning, torch's choice among tied scores,
errors (types and messages), and a short training run on a pruned network."""

import copy
import pickle

import numpy as np
import pytest

import ember
import ember.nn.utils.prune as prune

try:
    import torch
    import torch.nn.utils.prune as tprune
except ImportError:  # pragma: no cover
    torch = None
    tprune = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed (parity oracle)")


def lenet(lib):
    nn, F = lib.nn, lib.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet()


def to_ember(sd):
    return {k: ember.tensor(v.detach().numpy().copy()) for k, v in sd.items()}


def to_torch(sd):
    return {k: torch.tensor(v.detach().numpy().copy()) for k, v in sd.items()}


def arr(t):
    return t.detach().numpy()


def same(a, b):
    np.testing.assert_array_equal(arr(a), arr(b))


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(arr(a), arr(b), rtol=rtol, atol=atol)


def pair(seed=0):
    torch.manual_seed(seed)
    t = lenet(torch)
    e = lenet(ember)
    e.load_state_dict(to_ember(t.state_dict()))
    return e, t


def the_hook(module, name="weight"):
    hooks = [
        h
        for h in module._forward_pre_hooks.values()
        if isinstance(h, prune.BasePruningMethod) and h._tensor_name == name
    ]
    assert len(hooks) == 1
    return hooks[0]


def image(seed=1):
    x = np.random.default_rng(seed).standard_normal((2, 1, 32, 32)).astype(np.float32)
    return ember.tensor(x), torch.tensor(x)


# ---- the tutorial's flow -------------------------------------------------------------------------
@needs_torch
def test_random_unstructured_reparametrizes_as_torch():
    e, t = pair()
    weight = e.conv1.weight
    ember.manual_seed(0)
    assert prune.random_unstructured(e.conv1, name="weight", amount=0.3) is e.conv1
    tprune.random_unstructured(t.conv1, name="weight", amount=0.3)

    c = e.conv1
    assert [n for n, _ in c.named_parameters()] == [n for n, _ in t.conv1.named_parameters()]
    assert [n for n, _ in c.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in c.named_buffers()] == ["weight_mask"]
    assert c.weight_orig is weight and isinstance(c.weight_orig, ember.nn.Parameter)
    assert not isinstance(c.weight, ember.nn.Parameter) and "weight" not in c._parameters
    assert c.weight.grad_fn is not None
    same(c.weight_orig, t.conv1.weight_orig)
    # round(0.3 * 150) = 45 entries pruned, the rest kept, as torch's mask
    assert int((c.weight_mask == 0).sum()) == int((t.conv1.weight_mask == 0).sum()) == 45
    assert set(np.unique(arr(c.weight_mask))) == {0.0, 1.0}
    same(c.weight, c.weight_orig * c.weight_mask)
    assert c.weight_mask.dtype == ember.float32
    hook = the_hook(c)
    assert type(hook) is prune.RandomUnstructured and hook.amount == 0.3
    assert list(c.state_dict()) == list(t.conv1.state_dict())
    assert list(e.state_dict()) == list(t.state_dict())
    assert prune.is_pruned(e) and prune.is_pruned(c) and not prune.is_pruned(e.fc1)

    # the hook recomputes the plain attribute before every forward
    with ember.no_grad():
        c.weight_mask.zero_()
    e(image()[0])
    assert float(c.weight.abs().sum()) == 0.0


def test_random_unstructured_is_seeded_by_ember():
    masks = []
    for _ in range(2):
        m = ember.nn.Linear(10, 10)
        ember.manual_seed(3)
        prune.random_unstructured(m, "weight", amount=17)
        masks.append(arr(m.weight_mask))
    np.testing.assert_array_equal(*masks)
    assert int((masks[0] == 0).sum()) == 17


@needs_torch
def test_l1_unstructured_bias_mask_is_torchs():
    e, t = pair()
    prune.l1_unstructured(e.conv1, name="bias", amount=3)
    tprune.l1_unstructured(t.conv1, name="bias", amount=3)
    same(e.conv1.bias_mask, t.conv1.bias_mask)
    same(e.conv1.bias, t.conv1.bias)
    assert list(e.conv1.state_dict()) == list(t.conv1.state_dict())
    assert type(the_hook(e.conv1, "bias")) is prune.L1Unstructured


@needs_torch
def test_iterative_pruning_composes_masks_as_torch():
    e, t = pair()
    ember.manual_seed(0)
    prune.random_unstructured(e.conv1, name="weight", amount=0.3)
    tprune.random_unstructured(t.conv1, name="weight", amount=0.3)
    prune.l1_unstructured(e.conv1, name="bias", amount=3)
    tprune.l1_unstructured(t.conv1, name="bias", amount=3)
    # the random mask is torch's from here on (its random stream is not ember's)
    e.load_state_dict(to_ember(t.state_dict()))
    same(e.conv1.weight_mask, t.conv1.weight_mask)
    # NOTE: as in torch, the plain `weight` is stale until the next forward recomputes it
    x, tx = image()
    e(x), t(tx)
    same(e.conv1.weight, t.conv1.weight)

    prune.ln_structured(e.conv1, name="weight", amount=0.5, n=2, dim=0)
    tprune.ln_structured(t.conv1, name="weight", amount=0.5, n=2, dim=0)
    same(e.conv1.weight_mask, t.conv1.weight_mask)
    same(e.conv1.weight, t.conv1.weight)
    # the earlier random zeros survive, and 3 of 6 output channels are gone
    assert (arr(e.conv1.weight_mask) <= arr(t.conv1.weight_mask)).all()
    assert int((e.conv1.weight_mask.sum(dim=(1, 2, 3)) == 0).sum()) == 3

    container = the_hook(e.conv1)
    assert type(container) is prune.PruningContainer and len(container) == 2
    assert [type(m) for m in container] == [prune.RandomUnstructured, prune.LnStructured]
    assert container[1].n == 2 and container[1].dim == 0 and container._tensor_name == "weight"
    assert len(e.conv1._forward_pre_hooks) == len(t.conv1._forward_pre_hooks) == 2

    # a third method joins the same container
    prune.l1_unstructured(e.conv1, name="weight", amount=10)
    tprune.l1_unstructured(t.conv1, name="weight", amount=10)
    same(e.conv1.weight_mask, t.conv1.weight_mask)
    assert the_hook(e.conv1) is container and len(container) == 3

    x, tx = image()
    close(e(x), t(tx))
    assert list(e.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        close(e.state_dict()[k], v, 0, 0)


@needs_torch
@pytest.mark.parametrize("n", [1, 2, 3, 0.5, float("inf"), float("-inf"), "fro"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_norms_and_dims(n, dim):
    e, t = pair(seed=2)
    amount = 0.4 if dim == 0 else 2
    for sub in ["conv2", "fc2"]:
        em, tm = getattr(e, sub), getattr(t, sub)
        if n == "fro" and sub == "conv2":
            # NOTE: matches torch: "fro" is a matrix norm, refused over three dims
            with pytest.raises(RuntimeError, match="matrix_norm"):
                prune.ln_structured(em, "weight", amount=amount, n=n, dim=dim)
            with pytest.raises(RuntimeError, match="matrix_norm"):
                tprune.ln_structured(tm, "weight", amount=amount, n=n, dim=dim)
            continue
        prune.ln_structured(em, "weight", amount=amount, n=n, dim=dim)
        tprune.ln_structured(tm, "weight", amount=amount, n=n, dim=dim)
        same(em.weight_mask, tm.weight_mask)


@needs_torch
def test_ln_structured_on_top_of_l1_with_importance_scores():
    e, t = pair(seed=3)
    prune.l1_unstructured(e.fc1, "weight", amount=0.6)
    tprune.l1_unstructured(t.fc1, "weight", amount=0.6)
    scores = np.random.default_rng(0).random((120, 400)).astype(np.float32)
    prune.ln_structured(e.fc1, "weight", 30, 1, 1, importance_scores=ember.tensor(scores))
    tprune.ln_structured(t.fc1, "weight", 30, 1, 1, importance_scores=torch.tensor(scores))
    same(e.fc1.weight_mask, t.fc1.weight_mask)
    prune.l1_unstructured(e.fc2, "weight", 0.5, importance_scores=ember.tensor(scores[:84, :120]))
    tprune.l1_unstructured(t.fc2, "weight", 0.5, importance_scores=torch.tensor(scores[:84, :120]))
    same(e.fc2.weight_mask, t.fc2.weight_mask)


@needs_torch
def test_global_unstructured_masks_are_torchs():
    e, t = pair(seed=4)
    names = ["conv1", "conv2", "fc1", "fc2", "fc3"]
    # an earlier pruning on conv1 is respected: its zeros are not ranked again
    prune.l1_unstructured(e.conv1, "weight", amount=20)
    tprune.l1_unstructured(t.conv1, "weight", amount=20)

    prune.global_unstructured(
        [(getattr(e, n), "weight") for n in names], pruning_method=prune.L1Unstructured, amount=0.2
    )
    tprune.global_unstructured(
        [(getattr(t, n), "weight") for n in names], pruning_method=tprune.L1Unstructured, amount=0.2
    )
    total = 0
    for n in names:
        same(getattr(e, n).weight_mask, getattr(t, n).weight_mask)
        total += int((getattr(e, n).weight_mask == 0).sum())
    size = sum(getattr(e, n).weight.numel() for n in names)
    # 20 pruned first, then round(0.2 * (size - 20)) of the rest
    assert total == 20 + round(0.2 * (size - 20))
    assert [type(m) for m in the_hook(e.conv1)] == [prune.L1Unstructured, prune.CustomFromMask]
    assert type(the_hook(e.fc1)) is prune.CustomFromMask

    # a generator of pairs works too (ember reads it once), and importance scores by pair
    scores = {(e.fc3, "weight"): ember.ones(10, 84)}
    prune.global_unstructured(
        ((getattr(e, n), "weight") for n in ["fc2", "fc3"]),
        prune.L1Unstructured,
        importance_scores=scores,
        amount=100,
    )
    tprune.global_unstructured(
        [(t.fc2, "weight"), (t.fc3, "weight")],
        tprune.L1Unstructured,
        importance_scores={(t.fc3, "weight"): torch.ones(10, 84)},
        amount=100,
    )
    same(e.fc2.weight_mask, t.fc2.weight_mask)
    same(e.fc3.weight_mask, t.fc3.weight_mask)
    x, tx = image()
    close(e(x), t(tx))


@needs_torch
def test_state_dict_crosses_both_ways_and_forward_matches():
    e, t = pair(seed=5)
    for lib, p, m in [(prune, ember, e), (tprune, torch, t)]:
        lib.l1_unstructured(m.conv1, "weight", amount=0.3)
        lib.ln_structured(m.conv2, "weight", amount=0.25, n=1, dim=1)
        lib.l1_unstructured(m.fc1, "bias", amount=0.5)
        lib.custom_from_mask(m.fc3, "bias", p.tensor([1.0, 0.0] * 5))
    assert list(e.state_dict()) == list(t.state_dict())
    assert "conv1.weight_orig" in e.state_dict() and "conv1.weight_mask" in e.state_dict()
    assert "conv1.weight" not in e.state_dict()
    for k, v in t.state_dict().items():
        same(e.state_dict()[k], v)
    x, tx = image()
    close(e(x), t(tx))

    # torch's checkpoint of a pruned network loads into a pruned ember network and back
    t2 = lenet(torch)
    e2 = lenet(ember)
    for lib, m in [(prune, e2), (tprune, t2)]:
        lib.identity(m.conv1, "weight")
        lib.identity(m.conv2, "weight")
        lib.identity(m.fc1, "bias")
        lib.identity(m.fc3, "bias")
    e2.load_state_dict(to_ember(t.state_dict()))
    close(e2(x), t(tx))
    t2.load_state_dict(to_torch(e.state_dict()))
    close(e(x), t2(tx))


@needs_torch
def test_remove_makes_pruning_permanent_as_torch():
    e, t = pair(seed=6)
    for lib, m in [(prune, e), (tprune, t)]:
        lib.l1_unstructured(m.conv1, "weight", amount=0.3)
        lib.ln_structured(m.conv1, "weight", amount=2, n=2, dim=0)
        lib.l1_unstructured(m.conv1, "bias", amount=2)
    orig = e.conv1.weight_orig
    assert prune.remove(e.conv1, "weight") is e.conv1
    tprune.remove(t.conv1, "weight")
    c = e.conv1
    assert [n for n, _ in c.named_parameters()] == [n for n, _ in t.conv1.named_parameters()]
    assert [n for n, _ in c.named_parameters()] == ["bias_orig", "weight"]
    assert [n for n, _ in c.named_buffers()] == ["bias_mask"]
    assert c.weight is orig and isinstance(c.weight, ember.nn.Parameter) and c.weight.is_leaf
    assert not hasattr(c, "weight_orig") and not hasattr(c, "weight_mask")
    same(c.weight, t.conv1.weight)
    assert len(c._forward_pre_hooks) == len(t.conv1._forward_pre_hooks) == 1
    assert list(e.state_dict()) == list(t.state_dict())
    assert prune.is_pruned(e)
    prune.remove(c, "bias")
    tprune.remove(t.conv1, "bias")
    assert [n for n, _ in c.named_parameters()] == [n for n, _ in t.conv1.named_parameters()]
    assert not prune.is_pruned(e) and not c._forward_pre_hooks
    x, tx = image()
    close(e(x), t(tx))
    # removed: pruning starts afresh
    prune.l1_unstructured(c, "weight", amount=0.1)
    assert type(the_hook(c)) is prune.L1Unstructured


@needs_torch
def test_custom_from_mask_and_identity():
    e, t = pair(seed=7)
    mask = (np.arange(6) % 2).astype(np.float32)
    prune.custom_from_mask(e.conv1, name="bias", mask=ember.tensor(mask))
    tprune.custom_from_mask(t.conv1, name="bias", mask=torch.tensor(mask))
    same(e.conv1.bias_mask, t.conv1.bias_mask)
    same(e.conv1.bias, t.conv1.bias)
    assert type(the_hook(e.conv1, "bias")) is prune.CustomFromMask
    # on top of an earlier mask: multiplied in; a bool mask is cast
    bool_mask = np.array([True, True, False, True, True, True])
    prune.custom_from_mask(e.conv1, "bias", ember.tensor(bool_mask))
    tprune.custom_from_mask(t.conv1, "bias", torch.tensor(bool_mask))
    same(e.conv1.bias_mask, t.conv1.bias_mask)
    assert arr(e.conv1.bias_mask).tolist() == [0, 1, 0, 1, 0, 1]

    prune.identity(e.fc1, "weight")
    tprune.identity(t.fc1, "weight")
    same(e.fc1.weight_mask, t.fc1.weight_mask)
    same(e.fc1.weight, t.fc1.weight)
    assert type(the_hook(e.fc1)) is prune.Identity


@needs_torch
def test_prune_method_on_a_plain_tensor():
    rng = np.random.default_rng(8)
    w = rng.standard_normal((4, 6)).astype(np.float32)
    default = (rng.random((4, 6)) > 0.3).astype(np.float32)
    scores = rng.random((4, 6)).astype(np.float32)
    cases = [
        (prune.L1Unstructured(7), tprune.L1Unstructured(7)),
        (prune.LnStructured(0.5, 2, dim=1), tprune.LnStructured(0.5, 2, dim=1)),
        (prune.CustomFromMask(ember.tensor(default)), tprune.CustomFromMask(torch.tensor(default))),
        (prune.Identity(), tprune.Identity()),
    ]
    for em, tm in cases:
        same(em.prune(ember.tensor(w)), tm.prune(torch.tensor(w)))
        same(
            em.prune(ember.tensor(w), ember.tensor(default), ember.tensor(scores)),
            tm.prune(torch.tensor(w), torch.tensor(default), torch.tensor(scores)),
        )


# ---- torch's choice among tied scores ------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("size", [5, 12, 40, 150, 700, 3000])
@pytest.mark.parametrize("levels", [1, 2, 5])
def test_l1_ties_pick_torchs_entries(size, levels):
    rng = np.random.default_rng(size * 10 + levels)
    # few distinct magnitudes (and signed zeros), so the cut falls inside a tie
    w = (rng.integers(-levels, levels + 1, size) * 0.5).astype(np.float32)
    for amount in sorted({1, size // 64 or 1, size // 3, size // 2, size - 1, 0.37}):
        em = prune.L1Unstructured(amount).compute_mask(ember.tensor(w), ember.ones(size))
        tm = tprune.L1Unstructured(amount).compute_mask(torch.tensor(w), torch.ones(size))
        same(em, tm)


@needs_torch
def test_ties_after_remove_and_in_containers_pick_torchs_entries():
    e, t = pair(seed=9)
    for lib, m in [(prune, e), (tprune, t)]:
        lib.l1_unstructured(m.fc1, "weight", amount=0.5)
        lib.remove(m.fc1, "weight")  # half the weights are now exact zeros
        lib.l1_unstructured(m.fc1, "weight", amount=0.3)  # all picked among tied zeros
        with (ember if lib is prune else torch).no_grad():
            m.fc2.weight[:, ::2] = 1.0  # tied nonzero magnitudes, ranked inside a container
        lib.identity(m.fc2, "weight")
        lib.l1_unstructured(m.fc2, "weight", amount=0.7)
        m.conv2.weight.data[::3] = 0.0  # whole channels of equal (zero) norm
        lib.ln_structured(m.conv2, "weight", amount=3, n=2, dim=0)
    same(e.fc1.weight_mask, t.fc1.weight_mask)
    same(e.fc2.weight_mask, t.fc2.weight_mask)
    same(e.conv2.weight_mask, t.conv2.weight_mask)


@needs_torch
def test_nan_scores_rank_as_torch():
    w = np.array([1.0, np.nan, 0.5, np.nan, 2.0, 0.5, np.nan, 0.1], dtype=np.float32)
    for amount in range(9):
        em = prune.L1Unstructured(amount).compute_mask(ember.tensor(w), ember.ones(8))
        tm = tprune.L1Unstructured(amount).compute_mask(torch.tensor(w), torch.ones(8))
        same(em, tm)
    w2 = np.stack([w, w[::-1], np.ones(8, np.float32)])
    for amount in range(4):
        em = prune.LnStructured(amount, 1, 0).compute_mask(ember.tensor(w2), ember.ones(3, 8))
        tm = tprune.LnStructured(amount, 1, 0).compute_mask(torch.tensor(w2), torch.ones(3, 8))
        same(em, tm)


# ---- random structured ---------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_random_structured_prunes_whole_channels(dim):
    ember.manual_seed(4)
    m = ember.nn.Conv2d(3, 8, 3)
    prune.l1_unstructured(m, "weight", amount=20)
    before = arr(m.weight_mask)
    prune.random_structured(m, "weight", amount=0.5, dim=dim)
    mask = arr(m.weight_mask)
    channels = m.weight.shape[dim]
    other = tuple(d for d in range(4) if d != range(4)[dim])
    alive = mask.sum(axis=other) != 0
    assert alive.sum() == channels - round(0.5 * channels)
    # a pruned channel is zero throughout; a kept one keeps the earlier mask
    kept = np.moveaxis(mask, dim, 0)[alive]
    np.testing.assert_array_equal(kept, np.moveaxis(before, dim, 0)[alive])
    assert type(the_hook(m)) is prune.PruningContainer
    # same seed, same channels
    ember.manual_seed(11)
    a = prune.RandomStructured(3, dim).compute_mask(m.weight_orig, ember.ones_like(m.weight))
    ember.manual_seed(11)
    b = prune.RandomStructured(3, dim).compute_mask(m.weight_orig, ember.ones_like(m.weight))
    same(a, b)


def test_random_unstructured_in_a_container_prunes_only_unpruned_entries():
    ember.manual_seed(5)
    m = ember.nn.Linear(20, 10)
    prune.l1_unstructured(m, "weight", amount=50)
    first = arr(m.weight_mask)
    prune.random_unstructured(m, "weight", amount=0.5)  # half of the 150 left
    mask = arr(m.weight_mask)
    assert (mask <= first).all() and int((mask == 0).sum()) == 50 + 75


def test_amount_zero_keeps_every_entry():
    for method in [
        prune.RandomUnstructured(0),
        prune.L1Unstructured(0.0),
        prune.RandomStructured(0, 0),
        prune.LnStructured(0.0, 2, 0),
    ]:
        default = ember.tensor([[1.0, 0.0], [1.0, 1.0]])
        same(method.compute_mask(ember.ones(2, 2), default), default)
    whole = prune.LnStructured(1.0, 2, 0).compute_mask(ember.ones(2, 2), ember.ones(2, 2))
    assert float(whole.sum()) == 0.0


# ---- errors, as torch raises them ----------------------------------------------------------------
def _raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def _both_raise(efn, tfn):
    ee, te = _raised(efn), _raised(tfn)
    assert type(ee) is type(te)
    assert str(ee) == str(te).replace("torch.Size", "ember.Size").replace("torch.nn.", "ember.nn.")
    return ee


@needs_torch
@pytest.mark.parametrize("amount", [-1, -0.1, 1.5, 2.0, "half", None, [0.2]])
@pytest.mark.parametrize("method", ["random_unstructured", "l1_unstructured"])
def test_invalid_amount_raises_as_torch(method, amount):
    e, t = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    _both_raise(
        lambda: getattr(prune, method)(e, "weight", amount),
        lambda: getattr(tprune, method)(t, "weight", amount),
    )
    # nothing changed
    assert [n for n, _ in e.named_parameters()] == ["weight", "bias"]
    assert not e._forward_pre_hooks


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda p, m: p.l1_unstructured(m, "weight", amount=7),  # 6 entries
        lambda p, m: p.random_unstructured(m, "bias", amount=3),  # 2 entries
        lambda p, m: p.ln_structured(m, "weight", amount=3, n=2, dim=0),  # 2 rows
        lambda p, m: p.random_structured(m, "weight", amount=4, dim=1),  # 3 columns
        lambda p, m: p.ln_structured(m, "weight", amount=-2, n=2, dim=0),
        lambda p, m: p.l1_unstructured(m, "nonexistent", amount=0.2),
        lambda p, m: p.ln_structured(m, "bias", amount=1, n=2, dim=0),  # 1-d
        lambda p, m: p.ln_structured(m, "weight", amount=1, n=2, dim=2),
        lambda p, m: p.random_structured(m, "weight", amount=1, dim=-3),
        lambda p, m: p.remove(m, "weight"),  # never pruned
        lambda p, m: p.global_unstructured(3, p.L1Unstructured, amount=2),
        lambda p, m: p.global_unstructured([(m, "weight")], p.RandomStructured, amount=2),
        lambda p, m: p.global_unstructured(
            [(m, "weight")], p.L1Unstructured, importance_scores=[1], amount=2
        ),
        lambda p, m: p.global_unstructured([(m, "weight")], p.L1Unstructured, amount=1.5),
        lambda p, m: p.custom_from_mask(m, "weight", mask=m.bias.detach()),
    ],
)
def test_errors_match_torchs(call):
    e, t = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    _both_raise(lambda: call(prune, e), lambda: call(tprune, t))
    # a failed first pruning leaves the module as it was
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert len(e._forward_pre_hooks) == len(t._forward_pre_hooks) == 0
    assert isinstance(e.weight, ember.nn.Parameter)


@needs_torch
def test_importance_scores_of_another_shape_raise_as_torch():
    e, t = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    _both_raise(
        lambda: prune.l1_unstructured(e, "weight", 0.2, importance_scores=ember.ones(3)),
        lambda: tprune.l1_unstructured(t, "weight", 0.2, importance_scores=torch.ones(3)),
    )
    _both_raise(
        lambda: prune.L1Unstructured(1).prune(ember.ones(3), importance_scores=ember.ones(2)),
        lambda: tprune.L1Unstructured(1).prune(torch.ones(3), importance_scores=torch.ones(2)),
    )


@needs_torch
def test_a_failed_repruning_leaves_the_mask_and_drops_the_hook_as_torch():
    e, t = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    for lib, m in [(prune, e), (tprune, t)]:
        lib.l1_unstructured(m, "weight", amount=2)
    _both_raise(
        lambda: prune.l1_unstructured(e, "weight", amount=5),  # 4 left
        lambda: tprune.l1_unstructured(t, "weight", amount=5),
    )
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert len(e._forward_pre_hooks) == len(t._forward_pre_hooks) == 0
    assert "weight_mask" in dict(e.named_buffers())


@needs_torch
def test_container_errors_and_protocol():
    a, b = prune.L1Unstructured(0.2), prune.L1Unstructured(1)
    a._tensor_name, b._tensor_name = "weight", "weight"
    c = prune.PruningContainer(a)
    c.add_pruning_method(b)
    assert len(c) == 2 and list(c) == [a, b] and c[1] is b and c._tensor_name == "weight"
    ta = tprune.L1Unstructured(0.2)
    ta._tensor_name = "weight"
    tc = tprune.PruningContainer(ta)
    _both_raise(lambda: c.add_pruning_method(3), lambda: tc.add_pruning_method(3))
    other, tother = prune.L1Unstructured(1), tprune.L1Unstructured(1)
    other._tensor_name = tother._tensor_name = "bias"
    err = _raised(lambda: c.add_pruning_method(other))
    terr = _raised(lambda: tc.add_pruning_method(tother))
    assert type(err) is type(terr) is ValueError
    assert "Can only add pruning methods acting on the parameter named 'weight'" in str(err)
    assert str(err).endswith("Found 'bias'") and str(terr).endswith("Found 'bias'")

    class Odd(prune.BasePruningMethod):
        PRUNING_TYPE = "sideways"

        def compute_mask(self, t, default_mask):
            return default_mask

    odd = Odd()
    odd._tensor_name = "weight"
    c.add_pruning_method(odd)
    with pytest.raises(ValueError, match="Unrecognized PRUNING_TYPE sideways"):
        c.compute_mask(ember.ones(3), ember.ones(3))
    with pytest.raises(TypeError, match="abstract"):
        prune.BasePruningMethod()
    assert not hasattr(prune.BasePruningMethod, "PRUNING_TYPE")


@needs_torch
def test_structured_on_a_1d_tensor_inside_a_container_as_torch():
    # torch's quirk: the channel sum over no dims reduces all of them
    e, t = ember.nn.Linear(3, 4), torch.nn.Linear(3, 4)
    e.load_state_dict(to_ember(t.state_dict()))
    for lib, m in [(prune, e), (tprune, t)]:
        lib.l1_unstructured(m, "bias", amount=1)
        lib.ln_structured(m, "bias", amount=1, n=2, dim=0)
    same(e.bias_mask, t.bias_mask)


# ---- copies, pickles, dtypes ---------------------------------------------------------------------
@needs_torch
def test_pickle_keeps_the_pruning_and_deepcopy_refuses_as_torch():
    m = ember.nn.Linear(4, 3)
    prune.l1_unstructured(m, "weight", amount=5)
    prune.ln_structured(m, "weight", amount=1, n=1, dim=0)
    twin = pickle.loads(pickle.dumps(m))
    assert type(the_hook(twin)) is prune.PruningContainer and the_hook(twin) is not the_hook(m)
    same(twin.weight_mask, m.weight_mask)
    x = ember.randn(2, 4)
    with ember.no_grad():
        twin.weight_mask.zero_()
    same(twin(x), twin.bias.expand(2, 3))  # the copy's own hook reads the copy's mask
    assert int((m.weight_mask == 0).sum()) >= 5
    # NOTE: matches torch: the pruned `weight` is a non-leaf, which deepcopy refuses
    tm = torch.nn.Linear(4, 3)
    tprune.l1_unstructured(tm, "weight", amount=5)
    for module in (m, tm):
        with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
            copy.deepcopy(module)


@needs_torch
def test_float64_module():
    e, t = ember.nn.Linear(5, 4).double(), torch.nn.Linear(5, 4).double()
    e.load_state_dict(to_ember(t.state_dict()))
    for lib, m in [(prune, e), (tprune, t)]:
        lib.l1_unstructured(m, "weight", amount=0.45)
        lib.ln_structured(m, "weight", amount=1, n=2, dim=1)
    assert e.weight_mask.dtype == ember.float64
    same(e.weight_mask, t.weight_mask)
    same(e.weight, t.weight)


# ---- a training program --------------------------------------------------------------------------
@needs_torch
def test_training_a_pruned_network_matches_torch():
    e, t = pair(seed=10)
    for lib, m in [(prune, e), (tprune, t)]:
        lib.l1_unstructured(m.conv1, "weight", amount=0.4)
        lib.ln_structured(m.conv2, "weight", amount=0.5, n=2, dim=0)
        lib.global_unstructured(
            [(m.fc1, "weight"), (m.fc2, "weight")], lib.L1Unstructured, amount=0.6
        )
    eopt = ember.optim.SGD(e.parameters(), lr=0.05, momentum=0.9)
    topt = torch.optim.SGD(t.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(12)
    for _ in range(4):
        x = rng.standard_normal((8, 1, 32, 32)).astype(np.float32)
        y = rng.integers(0, 10, 8)
        eloss = ember.nn.functional.cross_entropy(e(ember.tensor(x)), ember.tensor(y))
        tloss = torch.nn.functional.cross_entropy(t(torch.tensor(x)), torch.tensor(y))
        close(eloss, tloss)
        eopt.zero_grad()
        topt.zero_grad()
        eloss.backward()
        tloss.backward()
        for (n, ep), (tn, tp) in zip(e.named_parameters(), t.named_parameters()):
            assert n == tn
            close(ep.grad, tp.grad, 1e-4, 1e-6)
        # gradients flow to `_orig`, and are zero where the mask is
        g = arr(e.conv1.weight_orig.grad)
        assert (g[arr(e.conv1.weight_mask) == 0] == 0).all() and (g != 0).any()
        assert e.conv1.weight.grad is None  # a non-leaf: its gradient lands in weight_orig
        eopt.step()
        topt.step()
    for sub in ["conv1", "conv2", "fc1", "fc2"]:
        em, tm = getattr(e, sub), getattr(t, sub)
        close(em.weight_orig, tm.weight_orig, 1e-4, 1e-5)
        e(ember.tensor(x))  # the hook refreshes the effective weight
        w, mask = arr(em.weight), arr(em.weight_mask)
        assert (w[mask == 0] == 0).all()
    for sub in ["conv1", "conv2", "fc1", "fc2"]:
        prune.remove(getattr(e, sub), "weight")
        tprune.remove(getattr(t, sub), "weight")
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert not prune.is_pruned(e)
    x = rng.standard_normal((2, 1, 32, 32)).astype(np.float32)
    close(e(ember.tensor(x)), t(torch.tensor(x)), 1e-4, 1e-5)


def test_meta_modules_prune_without_data():
    # a first pruning only (re-pruning selects entries by a boolean mask: data-dependent)
    m = ember.nn.Conv2d(2, 4, 3, device="meta")
    prune.l1_unstructured(m, "weight", amount=0.5)
    prune.random_unstructured(m, "bias", amount=1)
    assert m.weight_mask.device.type == "meta" and m.weight_mask.shape == (4, 2, 3, 3)
    assert m.weight.shape == (4, 2, 3, 3) and type(the_hook(m)) is prune.L1Unstructured
    c = ember.nn.Conv2d(2, 4, 3, device="meta")
    prune.ln_structured(c, "weight", amount=1, n=2, dim=0)
    assert c.weight_mask.shape == (4, 2, 3, 3)


def test_import_forms():
    import ember.nn.utils.prune as p

    assert p is ember.nn.utils.prune is prune
    assert "prune" in dir(ember.nn.utils)
