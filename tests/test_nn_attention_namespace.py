"""ember.nn.attention (sdpa_kernel, bias, flex_attention, varlen), nn.common_types and
nn.factory_kwargs against torch."""

import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from ember.nn import attention as EA
from ember.nn.attention import bias as EB
from ember.nn.attention import flex_attention as EX
from ember.nn.attention import varlen as EV

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")


def _pair(*shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.tensor(a), (torch.tensor(a) if torch is not None else None)


def test_sdpbackend_members_and_all():
    assert [(n, int(v)) for n, v in EA.SDPBackend.__members__.items()] == [
        ("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1), ("EFFICIENT_ATTENTION", 2),
        ("CUDNN_ATTENTION", 3), ("OVERRIDEABLE", 4),
    ]  # fmt: skip
    if torch is not None:
        import torch.nn.attention as TA

        assert EA.__all__ == TA.__all__
        assert EB.__all__ == TA.bias.__all__ if hasattr(TA, "bias") else True


B = EA.SDPBackend
CASES = {
    "plain": lambda m: (m((2, 3, 4, 8)),) * 3,
    "3d": lambda m: (m((3, 4, 8)),) * 3,
    "vdim": lambda m: (m((2, 3, 4, 8)), m((2, 3, 4, 8)), m((2, 3, 4, 5))),
    "bcast": lambda m: (m((2, 3, 4, 8)), m((1, 3, 4, 8)), m((1, 3, 4, 8))),
    "empty": lambda m: (m((2, 3, 0, 8)), m((2, 3, 4, 8)), m((2, 3, 4, 8))),
}


def _run(lib, backends, case, **kw):
    rng = np.random.default_rng(0)
    mk = (lambda s: lib.tensor(rng.standard_normal(s))) if lib is ember else None
    if lib is not ember:
        mk = lambda s: torch.tensor(rng.standard_normal(s))  # noqa: E731
    q, k, v = CASES[case](mk)
    A = EA if lib is ember else torch.nn.attention
    F = EF if lib is ember else torch.nn.functional
    bs = [getattr(A.SDPBackend, b) for b in backends]
    with A.sdpa_kernel(bs), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = F.scaled_dot_product_attention(q, k, v, **kw).numpy()
        except RuntimeError as e:
            out = str(e)
    msgs = [str(x.message).split(" (Triggered internally")[0] for x in w]
    return out, msgs


@needs_torch
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize(
    "backends",
    [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION"], ["CUDNN_ATTENTION"], [],
     ["CUDNN_ATTENTION", "FLASH_ATTENTION"], ["OVERRIDEABLE", "MATH"]],
)  # fmt: skip
@pytest.mark.parametrize("dropout", [0.0, 0.5])
def test_sdpa_kernel_cpu_choice_matches_torch(backends, case, dropout):
    e, ew = _run(ember, backends, case, dropout_p=dropout)
    t, tw = _run(torch, backends, case, dropout_p=dropout)
    assert type(e) is type(t)
    if isinstance(t, str):
        assert e == t
        assert ew == tw
    elif dropout == 0.0:
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-12)


def test_sdpa_kernel_restores_flags_and_priority():
    cuda = ember.backends.cuda
    before = EA._cur_sdpa_kernel_backends(with_priority=True)
    with EA.sdpa_kernel([B.CUDNN_ATTENTION, B.MATH], set_priority=True) as r:
        assert r == {}
        assert not cuda.flash_sdp_enabled() and cuda.math_sdp_enabled()
        assert EA._priority[:2] == [3, 0]
    assert EA._cur_sdpa_kernel_backends(with_priority=True) == before

    @EA.sdpa_kernel(B.FLASH_ATTENTION)
    def inner():
        return cuda.math_sdp_enabled()

    assert inner() is False and cuda.math_sdp_enabled()


def test_can_use_and_flash_registry(caplog):
    q = ember.randn(2, 3, 4, 8)
    p = EA.SDPAParams(q, q, q, None, 0.0, False, False)
    assert EA.can_use_flash_attention(p) is False
    assert EA.can_use_efficient_attention(p, True) is False
    assert EA.WARN_FOR_UNFUSED_KERNELS is False
    assert EA.list_flash_attention_impls()[:2] == ["FA3", "FA4"]
    assert EA.current_flash_attention_impl() is None
    removed = []

    class Handle:
        def remove(self):
            removed.append(1)

    EA.register_flash_attention_impl("Mine", register_fn=Handle)
    try:
        EA.activate_flash_attention_impl("Mine")
        assert EA.current_flash_attention_impl() == "Mine"
        EA.restore_flash_attention_impl()
        assert removed == [1] and EA.current_flash_attention_impl() is None
        EA.restore_flash_attention_impl()
        assert "no custom impl was activated" in caplog.text
    finally:
        del EA._FLASH_ATTENTION_IMPLS["Mine"]


@needs_torch
@pytest.mark.parametrize("variant", ["causal_upper_left", "causal_lower_right"])
@pytest.mark.parametrize("lq,lk", [(3, 5), (4, 4)])
def test_causal_bias_values(variant, lq, lk):
    import torch.nn.attention.bias as TB

    eq, tq = _pair(2, 3, lq, 8, seed=1)
    ek, tk = _pair(2, 3, lk, 8, seed=2)
    eb, tb = getattr(EB, variant)(lq, lk), getattr(TB, variant)(lq, lk)
    assert isinstance(eb, ember.Tensor) and tuple(eb.shape) == tuple(tb.shape)
    assert repr(eb) == repr(tb)
    e = EF.scaled_dot_product_attention(eq, ek, ek, eb)
    t = torch.nn.functional.scaled_dot_product_attention(tq, tk, tk, tb)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="causal=True"):
        EF.scaled_dot_product_attention(eq, ek, ek, eb, is_causal=True)


def _attention(lib):
    """(attention, its bias and varlen modules) of ember or torch."""
    if lib is ember:
        return EA, EB, EV
    import torch.nn.attention as TA
    from torch.nn.attention import bias as TB
    from torch.nn.attention import varlen as TV

    return TA, TB, TV


def _varlen(lib):
    q = lib.randn(6, 2, 4)
    cu = lib.tensor([0, 2, 6], dtype=lib.int32)
    return _attention(lib)[2].varlen_attn(q, q, q, cu, cu, 4, 4)


BAD_CALLS = {
    "lower_right_q_longer": lambda L: _attention(L)[1].causal_lower_right(5, 3),
    "upper_left_3d": lambda L: _attention(L)[1].causal_upper_left(1, 2, 3),
    "variant_not_enum": lambda L: _attention(L)[1].CausalBias(1, 2, 3),
    "flash_impl_missing": lambda L: _attention(L)[0].activate_flash_attention_impl("FA3"),
    "flash_impl_unknown": lambda L: _attention(L)[0].activate_flash_attention_impl("XX"),
    "varlen_on_cpu": _varlen,
    "sdpa_kernel_of_a_str": lambda L: _enter(_attention(L)[0].sdpa_kernel("math")),
}


def _enter(context):
    with context:
        pass


def _outcome(call, lib):
    """The error (type, message) of ``call``, or the warnings it gave."""
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call(lib)
    except Exception as e:  # the outcome is what is compared
        return type(e).__name__, str(e)
    return "warned", [(w.category.__name__, str(w.message)) for w in seen]


@needs_torch
@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_attention_errors_and_warnings_match_torch(name):
    ours, theirs = _outcome(BAD_CALLS[name], ember), _outcome(BAD_CALLS[name], torch)
    if name == "varlen_on_cpu":  # torch's goes on to list its dispatcher's registrations
        assert ours[0] == theirs[0] and theirs[1].startswith(ours[1])
    else:
        assert ours == theirs
    assert ours[0] != "warned" or ours[1]  # each call warns or raises


@needs_torch
def test_flex_attention_matches_torch():
    import torch.nn.attention.flex_attention as TX

    def mask(b, h, q, k):
        return (q >= k) & (k != 2)

    def score(s, b, h, q, k):
        return s * (h + 1) - 0.1 * (q - k).abs()

    for L, S, bs in [(8, 8, 4), (8, 6, 4), (5, 7, 128)]:
        tb = TX.create_block_mask(mask, 2, None, L, S, device="cpu", BLOCK_SIZE=bs)
        eb = EX.create_block_mask(mask, 2, None, L, S, BLOCK_SIZE=bs)
        for a in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices"):
            np.testing.assert_array_equal(getattr(eb, a).numpy(), getattr(tb, a).numpy())
        assert eb.shape == tb.shape and eb.sparsity() == pytest.approx(tb.sparsity())
        np.testing.assert_array_equal(eb.to_dense().numpy(), tb.to_dense().numpy())
        eq, tq = _pair(2, 3, L, 4, seed=3)
        ek, tk = _pair(2, 3, S, 4, seed=4)
        with warnings.catch_warnings():  # the eager warning: once per process, in both
            warnings.simplefilter("ignore", UserWarning)
            eo, ea = EX.flex_attention(eq, ek, ek, score, eb, return_aux=EX.AuxRequest(lse=True))
            to, ta = TX.flex_attention(tq, tk, tk, score, tb, return_aux=TX.AuxRequest(lse=True))
        el, tl = ea.lse, ta.lse
        np.testing.assert_allclose(eo.numpy(), to.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(el.numpy(), tl.numpy(), rtol=1e-9, atol=1e-12)
    m = EX.and_masks(mask, EX.or_masks(EX.noop_mask))
    np.testing.assert_array_equal(
        EX.create_mask(m, 1, 2, 4, 4).numpy(), TX.create_mask(mask, 1, 2, 4, 4).numpy()
    )


@needs_torch
def test_varlen_all_is_torchs():
    assert EV.__all__ == _attention(torch)[2].__all__


@needs_torch
def test_common_types_and_factory_kwargs():
    import torch.nn.common_types as TC

    from ember.nn import common_types as EC

    for n in dir(TC):
        if n.startswith("_s") or n.startswith("_r"):
            assert repr(getattr(EC, n)) == repr(getattr(TC, n)), n
    f64 = {"dtype": ember.float64, "factory_kwargs": {"device": "cpu"}}
    assert ember.nn.factory_kwargs(f64) == {"device": "cpu", "dtype": ember.float64}
    assert ember.nn.factory_kwargs(None) == {}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        ember.nn.factory_kwargs({"foo": 1})
    with pytest.raises(TypeError, match="dtype specified twice"):
        ember.nn.factory_kwargs({"dtype": 1, "factory_kwargs": {"dtype": 2}})


def test_flex_return_lse_is_deprecated():
    q = ember.randn(1, 1, 4, 8)
    EX._warned[0] = False
    with pytest.warns(UserWarning, match="without torch.compile"):
        EX.flex_attention(q, q, q)
    with pytest.warns(FutureWarning, match="return_lse is deprecated"):
        out, lse = EX.flex_attention(q, q, q, return_lse=True)
    assert tuple(lse.shape) == (1, 1, 4)
