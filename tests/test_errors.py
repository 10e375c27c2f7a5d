"""Errors as PyTorch gives them: shape mismatches in element-wise ops, products, joins and views
raise torch's exception type with torch's text (NumPy's ValueError never reaches a user), and an
index out of range is an IndexError."""

from __future__ import annotations

import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

# (name, call on a module m (ember or torch), whether the message is torch's word for word)
CASES = [
    ("add", lambda m: m.ones(3) + m.ones(4), True),
    ("mul 2-D", lambda m: m.ones(3, 2) * m.ones(4, 2), True),
    ("sub, 1-D against 2-D", lambda m: m.ones(3) - m.ones(2, 4), True),
    ("add recording", lambda m: m.ones(3, requires_grad=True) + m.ones(2, 4), True),
    ("add_", lambda m: m.ones(3).add_(m.ones(4)), True),
    ("add_ recording", lambda m: m.ones(3, requires_grad=True).clone().add_(m.ones(4)), True),
    ("add_ needs broadcast of self", lambda m: m.ones(1).add_(m.ones(4)), True),
    ("eq", lambda m: m.ones(3) == m.ones(4), True),
    ("lt", lambda m: m.lt(m.ones(3), m.ones(4)), True),
    ("logical_and", lambda m: m.logical_and(m.ones(3), m.ones(4)), True),
    ("maximum", lambda m: m.maximum(m.ones(3), m.ones(4)), True),
    ("atan2", lambda m: m.atan2(m.ones(3), m.ones(4)), True),
    ("pow", lambda m: m.pow(m.ones(3), m.ones(4)), True),
    ("where", lambda m: m.where(m.ones(3) > 0, m.ones(4), m.ones(3)), True),
    ("addcmul", lambda m: m.addcmul(m.ones(3), m.ones(4), m.ones(3)), True),
    ("lerp", lambda m: m.lerp(m.ones(3), m.ones(4), 0.5), True),
    ("matmul", lambda m: m.ones(3, 4) @ m.ones(5, 6), True),
    ("matmul 1-D", lambda m: m.ones(3) @ m.ones(4), True),
    ("mm", lambda m: m.mm(m.ones(3, 4), m.ones(5, 6)), True),
    ("bmm", lambda m: m.bmm(m.ones(2, 3, 4), m.ones(2, 5, 6)), True),
    ("linear", lambda m: m.nn.functional.linear(m.ones(2, 3), m.ones(4, 5)), True),
    ("Linear, wrong in_features", lambda m: m.nn.Linear(5, 4)(m.ones(2, 3)), True),
    ("cat", lambda m: m.cat([m.ones(3, 4), m.ones(3, 5)]), True),
    ("stack", lambda m: m.stack([m.ones(3, 4), m.ones(3, 5)]), True),
    ("view", lambda m: m.ones(3, 4).view(5), True),
    ("reshape", lambda m: m.ones(3, 4).reshape(5, -1), True),
    ("expand", lambda m: m.ones(3).expand(4), True),
    ("einsum", lambda m: m.einsum("ij,jk->ik", m.ones(3, 4), m.ones(5, 6)), True),
    ("index", lambda m: m.ones(3, 4)[5], True),
    ("index dim 1", lambda m: m.ones(3, 4)[:, 7], True),
    ("tensor index", lambda m: m.ones(3, 4)[m.tensor([5])], True),
    ("dim out of range", lambda m: m.ones(3, 4).sum(5), True),
    ("transpose dim", lambda m: m.ones(3, 4).transpose(0, 3), True),
    ("gather", lambda m: m.ones(3, 4).gather(1, m.tensor([[9]])), True),
    ("index_select", lambda m: m.ones(3, 4).index_select(0, m.tensor([9])), False),
    ("masked_fill", lambda m: m.ones(3, 4).masked_fill(m.ones(5) > 0, 0.0), False),
    ("setitem", lambda m: m.ones(3, 4).__setitem__(slice(None), m.ones(5)), False),
    ("copy_", lambda m: m.ones(3, 4).copy_(m.ones(5)), False),
    ("add, float alpha on integers", lambda m: m.add(m.ones(2, dtype=m.long), 2, alpha=0.5), True),
    (
        "sub, float alpha on integers",
        lambda m: m.sub(m.ones(2, dtype=m.long), m.ones(2, dtype=m.long), alpha=0.5),
        True,
    ),
    (
        "add_, float alpha on integers",
        lambda m: m.ones(2, dtype=m.long).add_(m.ones(2, dtype=m.long), alpha=0.5),
        True,
    ),
    ("addcdiv on integers", lambda m: m.addcdiv(*(m.ones(2, dtype=m.long),) * 3), True),
]


def _raise(fn, mod):
    with pytest.raises(Exception) as info:
        fn(mod)
    return info.value


@needs_torch
@pytest.mark.parametrize("name, fn, same_text", CASES, ids=[c[0] for c in CASES])
def test_error_type_and_text_match_torch(name, fn, same_text):
    ours, theirs = _raise(fn, ember), _raise(fn, torch)
    assert type(ours) is type(theirs), (name, ours, theirs)
    if same_text:
        assert str(ours) == str(theirs)


def test_broadcast_failure_is_a_runtime_error_naming_the_sizes():
    with pytest.raises(
        RuntimeError,
        match=r"tensor a \(3\) must match the size of tensor b "
        r"\(4\) at non-singleton dimension 0",
    ):
        ember.ones(3) + ember.ones(4)
    # ``except RuntimeError`` in user code catches it; nothing NumPy leaks through
    try:
        ember.ones(2, 3) * ember.ones(2, 4)
    except RuntimeError as e:
        assert "numpy" not in str(e).lower() and "operands could not" not in str(e)


# A layer given the wrong rank, channel count, size or dtype: torch's exception type, and a
# message that says what was expected and what came (torch's text where it gives one).
LAYER_CASES = [
    ("Conv2d channels", lambda m: m.nn.Conv2d(3, 8, 3)(m.ones(1, 4, 8, 8))),
    ("Conv2d rank", lambda m: m.nn.Conv2d(3, 8, 3)(m.ones(8, 8))),
    ("ConvTranspose2d channels", lambda m: m.nn.ConvTranspose2d(3, 8, 3)(m.ones(1, 4, 8, 8))),
    ("BatchNorm2d channels", lambda m: m.nn.BatchNorm2d(3)(m.ones(2, 4, 5, 5))),
    ("BatchNorm2d rank", lambda m: m.nn.BatchNorm2d(3)(m.ones(2, 3))),
    ("LSTM input size", lambda m: m.nn.LSTM(4, 5)(m.ones(3, 2, 6))),
    ("LSTM rank", lambda m: m.nn.LSTM(4, 5)(m.ones(3, 2, 4, 1))),
    ("Embedding float indices", lambda m: m.nn.Embedding(10, 3)(m.ones(2))),
    ("Embedding index range", lambda m: m.nn.Embedding(10, 3)(m.tensor([10]))),
    ("LayerNorm shape", lambda m: m.nn.LayerNorm(5)(m.ones(2, 4))),
    ("GroupNorm groups", lambda m: m.nn.GroupNorm(2, 4)(m.ones(2, 3, 5))),
    ("MaxPool2d rank", lambda m: m.nn.MaxPool2d(2)(m.ones(4))),
    (
        "CrossEntropyLoss target range",
        lambda m: m.nn.CrossEntropyLoss()(m.ones(2, 3), m.tensor([0, 3])),
    ),
    (
        "CrossEntropyLoss target dtype",
        lambda m: m.nn.CrossEntropyLoss()(m.ones(2, 3), m.tensor([0.0, 1.0])),
    ),
    (
        "MultiheadAttention embed dim",
        lambda m: m.nn.MultiheadAttention(8, 2)(m.ones(3, 2, 6), m.ones(3, 2, 6), m.ones(3, 2, 6)),
    ),
    ("Linear dtype", lambda m: m.nn.Linear(3, 2)(m.ones(2, 3, dtype=m.float64))),
    ("ReflectionPad2d too wide", lambda m: m.nn.ReflectionPad2d(5)(m.ones(1, 1, 3, 3))),
    ("Upsample rank", lambda m: m.nn.Upsample(scale_factor=2, mode="bilinear")(m.ones(1, 4))),
    (
        "nll_loss integer input",
        lambda m: m.nn.functional.nll_loss(m.ones(2, 3, dtype=m.int64), m.tensor([0, 1])),
    ),
]


@needs_torch
@pytest.mark.parametrize("name, fn", LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_layer_errors_match_torch(name, fn):
    ours, theirs = _raise(fn, ember), _raise(fn, torch)
    assert type(ours) is type(theirs), (name, ours, theirs)
    # torch's words lead ember's message wherever torch says what it expected
    first = str(theirs).split(" (")[0].replace("torch.", "ember.")[:40]
    if name != "MaxPool2d rank":  # torch's says only "non-empty 3D or 4D ... expected"
        assert str(ours).startswith(first), (str(ours), str(theirs))
