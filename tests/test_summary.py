"""ember.summary: the table, its numbers, the meta forward over many layers (shapes against
torch's real forward), a 10-billion-parameter model built on meta, and the model left as it
was."""

from __future__ import annotations

import math
import resource
import time
import tracemalloc

import pytest

import ember
import ember.nn as enn
import ember.nn.functional as EF
from ember.nn.utils.rnn import pack_padded_sequence

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _known_model(nn):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2)
            )
            self.fc = nn.Linear(8 * 4 * 4, 10)
            self.fc.bias.requires_grad_(False)

        def forward(self, x):
            return self.fc(self.features(x).flatten(1))

    return Net()


KNOWN_TABLE = """\
===============================================================================================
Layer (type)                              Output Shape               Param #          Trainable
===============================================================================================
Net                                       [2, 10]                    --               Partial
├─features (Sequential)                   [2, 8, 4, 4]               --               True
│    └─0 (Conv2d)                         [2, 8, 8, 8]               80               True
│    └─1 (BatchNorm2d)                    [2, 8, 8, 8]               16               True
│    └─2 (ReLU)                           [2, 8, 8, 8]               --               --
│    └─3 (MaxPool2d)                      [2, 8, 4, 4]               --               --
├─fc (Linear)                             [2, 10]                    1,290            Partial
===============================================================================================
Total params: 1,386
Trainable params: 1,376
Non-trainable params: 10
===============================================================================================
Input size (MB): 0.00
Forward/backward pass size (MB): 0.03
Params size (MB): 0.01
Estimated Total Size (MB): 0.03
==============================================================================================="""


def test_known_model_table_and_numbers():
    s = ember.summary(_known_model(enn), input_size=(2, 1, 8, 8))
    assert str(s) == KNOWN_TABLE
    assert repr(s) == KNOWN_TABLE
    assert s.summary_list is s.layers
    # by hand: conv 8*9+8, batch norm 2*8, linear 128*10+10 (its bias frozen)
    assert s.total_params == 80 + 16 + 1290
    assert s.trainable_params == 80 + 16 + 1280
    assert s.non_trainable_params == 10
    assert s.total_param_bytes == 4 * 1386
    assert s.total_input_bytes == 4 * 2 * 64
    # the innermost modules' outputs (conv, bn, relu: 2*8*8*8; pool 2*8*4*4; fc 2*10), x2
    assert s.total_output_bytes == 2 * 4 * (3 * 1024 + 256 + 20)
    assert s.total_bytes == s.total_param_bytes + s.total_input_bytes + s.total_output_bytes
    assert s.params_size_mb == pytest.approx(4 * 1386 / 1e6)
    assert [
        (r.name, r.type_name, r.depth, r.output_shape, r.num_params, r.trainable) for r in s.layers
    ] == [
        ("", "Net", 0, (2, 10), 0, "Partial"),
        ("features", "Sequential", 1, (2, 8, 4, 4), 0, "True"),
        ("features.0", "Conv2d", 2, (2, 8, 8, 8), 80, "True"),
        ("features.1", "BatchNorm2d", 2, (2, 8, 8, 8), 16, "True"),
        ("features.2", "ReLU", 2, (2, 8, 8, 8), 0, "--"),
        ("features.3", "MaxPool2d", 2, (2, 8, 4, 4), 0, "--"),
        ("fc", "Linear", 1, (2, 10), 1290, "Partial"),
    ]


@needs_torch
def test_known_model_counts_match_torch():
    s = ember.summary(_known_model(enn), input_size=(2, 1, 8, 8))
    t = _known_model(torch.nn)
    assert s.total_params == sum(p.numel() for p in t.parameters())
    assert s.trainable_params == sum(p.numel() for p in t.parameters() if p.requires_grad)


def test_depth_limits_rows_and_counts_subtrees():
    s = ember.summary(_known_model(enn), input_size=(2, 1, 8, 8), depth=1)
    assert [(r.name, r.num_params) for r in s.layers] == [("", 0), ("features", 96), ("fc", 1290)]
    assert s.total_params == 1386
    s0 = ember.summary(_known_model(enn), input_size=(2, 1, 8, 8), depth=0)
    assert [(r.name, r.num_params) for r in s0.layers] == [("", 1386)]
    assert "features" not in str(s0)


# ---- the meta forward over many layers, shapes against torch's real forward -------------------
L = "long"
LAYERS = [
    ("Linear", lambda nn: nn.Linear(4, 5), [(2, 4)], None),
    ("Conv1d", lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1), [(2, 3, 10)], None),
    ("Conv2d", lambda nn: nn.Conv2d(3, 4, 3, dilation=2, groups=1), [(2, 3, 10, 9)], None),
    ("Conv3d", lambda nn: nn.Conv3d(3, 4, 3, padding=1), [(2, 3, 5, 6, 4)], None),
    (
        "ConvTranspose2d",
        lambda nn: nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1),
        [(2, 3, 5, 6)],
        None,
    ),
    ("BatchNorm1d", lambda nn: nn.BatchNorm1d(3), [(4, 3, 5)], None),
    ("BatchNorm2d", lambda nn: nn.BatchNorm2d(3), [(4, 3, 5, 5)], None),
    ("LayerNorm", lambda nn: nn.LayerNorm([3, 5]), [(2, 3, 5)], None),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 4), [(2, 4, 5, 5)], None),
    ("MaxPool2d", lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True), [(2, 3, 9, 8)], None),
    ("AvgPool1d", lambda nn: nn.AvgPool1d(2), [(2, 3, 9)], None),
    ("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((3, 2)), [(2, 3, 8, 7)], None),
    ("AdaptiveMaxPool1d", lambda nn: nn.AdaptiveMaxPool1d(4), [(2, 3, 9)], None),
    ("Embedding", lambda nn: nn.Embedding(10, 4, padding_idx=0), [(2, 5)], [L]),
    ("EmbeddingBag", lambda nn: nn.EmbeddingBag(10, 4), [(2, 5)], [L]),
    ("RNN", lambda nn: nn.RNN(4, 6, nonlinearity="relu"), [(5, 2, 4)], None),
    (
        "RNN_bi_2layer",
        lambda nn: nn.RNN(4, 6, 2, bidirectional=True, batch_first=True),
        [(2, 5, 4)],
        None,
    ),
    ("GRU", lambda nn: nn.GRU(4, 6), [(5, 2, 4)], None),
    ("GRU_bi_2layer", lambda nn: nn.GRU(4, 6, 2, bidirectional=True), [(5, 2, 4)], None),
    ("LSTM", lambda nn: nn.LSTM(4, 6), [(5, 2, 4)], None),
    (
        "LSTM_bi_2layer",
        lambda nn: nn.LSTM(4, 6, 2, bidirectional=True, batch_first=True),
        [(2, 5, 4)],
        None,
    ),
    ("LSTM_proj", lambda nn: nn.LSTM(4, 6, proj_size=3), [(5, 2, 4)], None),
    ("LSTM_unbatched", lambda nn: nn.LSTM(4, 6, 2), [(5, 4)], None),
    ("LSTMCell", lambda nn: nn.LSTMCell(4, 6), [(2, 4)], None),
    ("GRUCell", lambda nn: nn.GRUCell(4, 6), [(2, 4)], None),
    ("MultiheadAttention", lambda nn: nn.MultiheadAttention(8, 2), [(5, 2, 8)] * 3, None),
    (
        "MultiheadAttention_kv",
        lambda nn: nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=4),
        [(2, 5, 8), (2, 7, 6), (2, 7, 4)],
        None,
    ),
    (
        "TransformerEncoder",
        lambda nn: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True),
            2,
            enable_nested_tensor=False,
        ),
        [(2, 5, 8)],
        None,
    ),
    (
        "TransformerDecoder",
        lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2),
        [(5, 2, 8), (6, 2, 8)],
        None,
    ),
    (
        "Transformer",
        lambda nn: nn.Transformer(8, 2, 1, 1, 16, batch_first=True),
        [(2, 5, 8), (2, 6, 8)],
        None,
    ),
    ("Dropout", lambda nn: nn.Dropout(0.3), [(2, 3)], None),
    ("Flatten", lambda nn: nn.Flatten(), [(2, 3, 4)], None),
    ("Bilinear", lambda nn: nn.Bilinear(3, 4, 5), [(2, 3), (2, 4)], None),
    ("PixelShuffle", lambda nn: nn.PixelShuffle(2), [(2, 8, 3, 3)], None),
    ("Upsample", lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), [(2, 3, 4, 4)], None),
]


def _torch_shapes(out):
    if isinstance(out, torch.Tensor):
        return tuple(out.shape)
    if isinstance(out, (tuple, list)):
        return [_torch_shapes(v) for v in out]
    if isinstance(out, dict):
        return {k: _torch_shapes(v) for k, v in out.items()}
    return None


def _torch_inputs(shapes, dtypes):
    dtypes = dtypes or [None] * len(shapes)
    return [
        torch.zeros(s, dtype=torch.long) if d == L else torch.zeros(s, dtype=torch.float64)
        for s, d in zip(shapes, dtypes, strict=True)
    ]


@needs_torch
@pytest.mark.parametrize("mode", ["eval", "train"])
@pytest.mark.parametrize("name,make,shapes,dtypes", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_shapes_match_torch(name, make, shapes, dtypes, mode):
    m = make(enn)
    ed = (
        [ember.long if d == L else ember.float64 for d in dtypes]
        if dtypes
        else [ember.float64] * len(shapes)
    )
    s = ember.summary(
        m.double(), input_size=shapes if len(shapes) > 1 else shapes[0], dtypes=ed, mode=mode
    )
    t = make(torch.nn).double()
    t.train(mode == "train")
    torch.manual_seed(0)
    ref = t(*_torch_inputs(shapes, dtypes))
    assert s.layers[0].output_shape == _torch_shapes(ref)
    assert s.total_params == sum(p.numel() for p in t.parameters())
    assert s.total_param_bytes == 8 * s.total_params
    assert s.total_input_bytes == sum(8 * math.prod(sh) for sh in shapes)


class _Fn:
    """A module calling ``f`` (made for either library)."""

    def __new__(cls, nn, f):
        class Fn(nn.Module):
            def forward(self, *args, **kwargs):
                return f(*args, **kwargs)

        return Fn()


def _extra_cases():
    # (name, lib -> (module, positional inputs, keyword inputs)); inputs given as input_data
    def sdpa(lib):
        F = lib.nn.functional
        mask = lib.ones(5, 5, dtype=lib.bool).tril()
        return (
            _Fn(lib.nn, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)),
            [lib.zeros(2, 4, 5, 8)] * 3,
            {},
        )

    def one_hot(lib):
        return (
            _Fn(lib.nn, lambda x: lib.nn.functional.one_hot(x, 5)),
            [lib.zeros(4, 3, dtype=lib.long)],
            {},
        )

    def emb_max_norm(lib):
        return lib.nn.Embedding(10, 4, max_norm=1.0), [lib.ones(2, 3, dtype=lib.long)], {}

    def bag_offsets(lib):
        return (
            lib.nn.EmbeddingBag(10, 4, mode="max"),
            [lib.tensor([1, 2, 3, 4]), lib.tensor([0, 1, 3])],
            {},
        )

    def mha_kpm(lib):
        return (
            lib.nn.MultiheadAttention(8, 2, batch_first=True),
            [lib.zeros(2, 5, 8)] * 3,
            {"key_padding_mask": lib.zeros(2, 5, dtype=lib.bool), "average_attn_weights": False},
        )

    def enc_kpm(lib):
        nn = lib.nn
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
        return enc, [lib.zeros(2, 5, 8)], {"src_key_padding_mask": lib.zeros(2, 5, dtype=lib.bool)}

    def packed_gru(lib):
        pack = lib.nn.utils.rnn.pack_padded_sequence
        return lib.nn.GRU(4, 6), [pack(lib.zeros(5, 3, 4), lib.tensor([5, 3, 2]))], {}

    def loss(lib):
        F = lib.nn.functional
        return (
            _Fn(lib.nn, lambda x, t: F.cross_entropy(x, t, ignore_index=1, label_smoothing=0.1)),
            [lib.zeros(4, 3), lib.zeros(4, dtype=lib.long)],
            {},
        )

    return [sdpa, one_hot, emb_max_norm, bag_offsets, mha_kpm, enc_kpm, packed_gru, loss]


def _shape_tree(out, lib):
    if isinstance(out, lib.nn.utils.rnn.PackedSequence):
        return _shape_tree(out.data, lib)
    if isinstance(out, lib.Tensor):
        return tuple(out.shape)
    if isinstance(out, (tuple, list)):
        return [_shape_tree(v, lib) for v in out]
    return None


@needs_torch
@pytest.mark.parametrize("case", _extra_cases(), ids=lambda c: c.__name__)
def test_more_meta_paths_match_torch(case):
    m, args, kwargs = case(ember)
    m.eval()
    s = ember.summary(m, input_data=args, **kwargs)
    tm, targs, tkwargs = case(torch)
    tm.eval()
    ref = _shape_tree(tm(*targs, **tkwargs), torch)
    got = s.layers[0].output_shape
    got = got.shape if hasattr(got, "shape") else got  # a PackedSequence: its data's shape
    if isinstance(got, list) and got and hasattr(got[0], "shape"):
        got = [got[0].shape, *got[1:]]
    assert got == ref
    assert s.total_params == sum(p.numel() for p in tm.parameters())


# ---- a nanoGPT-style model and a ResNet-like block --------------------------------------------
def _gpt(nn, F, vocab=65, block=16, n_layer=2, n_head=4, n_embd=32, device=None):
    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.attn_dropout = nn.Dropout(0.1)
            self.register_buffer("bias", torch_like_tril(nn, block))

        def forward(self, x):
            b, t, c = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q, k, v = (z.view(b, t, n_head, c // n_head).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd),
                nn.GELU(),
                nn.Linear(4 * n_embd, n_embd),
                nn.Dropout(0.1),
            )

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(
                dict(
                    wte=nn.Embedding(vocab, n_embd),
                    wpe=nn.Embedding(block, n_embd),
                    drop=nn.Dropout(0.1),
                    h=nn.ModuleList([Block() for _ in range(n_layer)]),
                    ln_f=nn.LayerNorm(n_embd),
                )
            )
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # tied

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = torch_like_arange(nn, t, idx)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for blk in self.transformer.h:
                x = blk(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            loss = None
            if targets is not None:
                loss = F.cross_entropy(
                    logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
                )
            return logits, loss

    return GPT()


def _lib(nn):
    return ember if nn is enn else torch


def torch_like_tril(nn, n):
    lib = _lib(nn)
    return lib.tril(lib.ones(n, n)).view(1, 1, n, n)


def torch_like_arange(nn, t, idx):
    return _lib(nn).arange(0, t, dtype=_lib(nn).long, device=idx.device)


def test_gpt_rows_tied_weights_and_containers():
    m = _gpt(enn, EF)
    s = ember.summary(m, input_size=[(2, 16), (2, 16)], dtypes=[ember.long] * 2, depth=4)
    rows = {r.name: r for r in s.layers}
    # ModuleDict / ModuleList are never called: rows of their own, no output
    assert rows["transformer"].output_shape is None
    assert rows["transformer.h"].depth == 2 and rows["transformer.h.0"].depth == 3
    assert rows["transformer.h.1.attn"].output_shape == (2, 16, 32)
    assert s.layers[0].output_shape == [(2, 16, 65), ()]  # (logits, scalar loss)
    # the tied weight is counted once: at wte, which forward reaches first
    assert rows["transformer.wte"].num_params == 65 * 32
    assert rows["lm_head"].num_params == 0 and rows["lm_head"].note == "(tied)"
    assert "(tied)" in str(s)
    unique = {id(p): p.numel() for p in m.parameters()}
    assert s.total_params == sum(unique.values())
    assert sum(r.num_params for r in s.layers) == s.total_params
    assert "attn (CausalSelfAttention)" in str(s)
    assert "c_attn" not in str(s)  # depth 5: hidden
    # 2 * (LN 64 + attn 32*96+96 + 32*32+32 + LN 64 + mlp 32*128+128 + 128*32+32) + ...
    per_block = 64 + (32 * 96 + 96) + (32 * 32 + 32) + 64 + (32 * 128 + 128) + (128 * 32 + 32)
    assert s.total_params == 65 * 32 + 16 * 32 + 2 * per_block + 64


@needs_torch
def test_gpt_counts_match_torch():
    s = ember.summary(_gpt(enn, EF), input_size=(2, 16), dtypes=[ember.long])
    t = _gpt(torch.nn, torch.nn.functional)
    assert s.total_params == sum(p.numel() for p in t.parameters())  # torch dedups tied too
    logits, _ = t(torch.zeros(2, 16, dtype=torch.long))
    assert s.layers[0].output_shape == [tuple(logits.shape), None]


def _resnet_block(nn):
    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
            )

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))  # relu called twice: two rows
            out = self.bn2(self.conv2(out))
            return self.relu(out + self.downsample(x))

    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        BasicBlock(8, 16, 2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 10),
    )


def test_resnet_block_rows_and_repeated_module():
    s = ember.summary(_resnet_block(enn), input_size=(2, 3, 16, 16))
    names = [(r.name, r.output_shape) for r in s.layers]
    assert names == [
        ("", (2, 10)),
        ("0", (2, 8, 16, 16)),
        ("1", (2, 16, 8, 8)),
        ("1.conv1", (2, 16, 8, 8)),
        ("1.bn1", (2, 16, 8, 8)),
        ("1.relu", (2, 16, 8, 8)),
        ("1.conv2", (2, 16, 8, 8)),
        ("1.bn2", (2, 16, 8, 8)),
        ("1.downsample", (2, 16, 8, 8)),
        ("1.downsample.0", (2, 16, 8, 8)),
        ("1.downsample.1", (2, 16, 8, 8)),
        ("1.relu", (2, 16, 8, 8)),
        ("2", (2, 16, 1, 1)),
        ("3", (2, 16)),
        ("4", (2, 10)),
    ]
    assert sum(r.num_params for r in s.layers) == s.total_params


@needs_torch
def test_resnet_block_matches_torch():
    s = ember.summary(_resnet_block(enn), input_size=(2, 3, 16, 16))
    t = _resnet_block(torch.nn)
    assert s.total_params == sum(p.numel() for p in t.parameters())
    assert s.layers[0].output_shape == tuple(t(torch.zeros(2, 3, 16, 16)).shape)


def test_shared_module_called_twice_is_recursive():
    class Twice(enn.Module):
        def __init__(self):
            super().__init__()
            self.block = enn.Sequential(enn.Linear(4, 4), enn.Tanh())
            self.alias = self.block  # one module under two names
            self.unused = enn.Linear(4, 2)

        def forward(self, x):
            return self.alias(self.block(x))

    s = ember.summary(Twice(), input_size=(3, 4))
    rows = [(r.name, r.depth, r.num_params, r.note, r.output_shape) for r in s.layers]
    assert rows == [
        ("", 0, 0, "", (3, 4)),
        ("block", 1, 0, "", (3, 4)),
        ("block.0", 2, 20, "", (3, 4)),
        ("block.1", 2, 0, "", (3, 4)),
        ("block", 1, 0, "", (3, 4)),
        ("block.0", 2, 0, "(recursive)", (3, 4)),
        ("block.1", 2, 0, "", (3, 4)),
        ("unused", 1, 10, "", None),  # never called: listed, counted, no shape
    ]
    assert s.total_params == 30
    assert "(recursive)" in str(s)


def test_module_called_from_outside_its_parent():
    class Caller(enn.Module):
        def __init__(self, target):
            super().__init__()
            object.__setattr__(self, "target", target)  # held, not registered

        def forward(self, x):
            return self.target(x)

    class M(enn.Module):
        def __init__(self):
            super().__init__()
            self.a = enn.Linear(3, 3)
            self.b = Caller(self.a)

        def forward(self, x):
            return self.b(x)

    s = ember.summary(M(), input_size=(2, 3))
    assert [(r.name, r.depth, r.num_params) for r in s.layers] == [
        ("", 0, 0),
        ("b", 1, 0),
        ("a", 2, 12),
    ]
    s = ember.summary(M(), input_size=(2, 3), depth=1)  # b's row covers the hidden row of a
    assert [(r.name, r.num_params, r.trainable) for r in s.layers] == [
        ("", 0, "True"),
        ("b", 12, "True"),
    ]
    assert s.total_params == 12


# ---- 10 billion parameters on meta ------------------------------------------------------------
def test_ten_billion_parameters_on_meta_fast_and_no_memory():
    with ember.device("meta"):
        big = enn.Sequential(*[enn.Linear(31623, 31623) for _ in range(10)])
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    t0 = time.perf_counter()
    s = ember.summary(big, input_size=(64, 31623))
    elapsed = time.perf_counter() - t0
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0
    assert s.total_params == 10 * (31623 * 31623 + 31623) > 10**10
    assert s.total_param_bytes == 4 * s.total_params
    assert s.layers[0].output_shape == (64, 31623)
    assert elapsed < 2.0
    assert grown < 50 * 1024  # peak RSS grew by less than 50 MB (the weights are 40 GB)
    assert all(p.is_meta for p in big.parameters())
    tracemalloc.start()  # NumPy reports its allocations to tracemalloc: none of them big
    try:
        ember.summary(big, input_size=(64, 31623), depth=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


# ---- the model is left as it was --------------------------------------------------------------
def test_model_unchanged():
    m = _resnet_block(enn)
    m[1].bn1.train(False)  # mixed training flags must come back exactly
    seen = []
    handle = m[4].register_forward_hook(lambda mod, a, out: seen.append(out.shape))
    params = list(m.parameters())
    data = [p.detach().clone() for p in params]
    bufs = {k: (b, b.detach().clone()) for k, b in m.named_buffers()}
    flags = [x.training for x in m.modules()]
    hooks = [(dict(x._forward_hooks), dict(x._forward_pre_hooks)) for x in m.modules()]
    for mode in ("train", "eval", "same"):
        ember.summary(m, input_size=(2, 3, 16, 16), mode=mode)
    assert seen == [(2, 10)] * 3  # the user's hook ran (on the meta forward) and is kept
    assert list(m.parameters()) == params and all(
        a is b for a, b in zip(m.parameters(), params, strict=True)
    )
    for p, d in zip(params, data, strict=True):
        assert p.device.type == "cpu" and ember.equal(p, d)
    for k, b in m.named_buffers():  # running stats and num_batches_tracked untouched
        assert b is bufs[k][0] and b.tolist() == bufs[k][1].tolist()
    assert [x.training for x in m.modules()] == flags
    assert [(dict(x._forward_hooks), dict(x._forward_pre_hooks)) for x in m.modules()] == hooks
    handle.remove()
    assert all(not x._forward_hooks and not x._forward_pre_hooks for x in m.modules())


def test_model_unchanged_after_a_failing_forward():
    class Bad(enn.Module):
        def forward(self, x):
            return x * x.sum().item()

    m = enn.Sequential(enn.Linear(3, 3), enn.Sequential(enn.ReLU(), Bad()))
    w = m[0].weight
    with pytest.raises(RuntimeError, match=r"forward of 1\.1 \(Bad\) failed on the meta device"):
        ember.summary(m, input_size=(2, 3))
    assert m[0].weight is w and w.device.type == "cpu" and m.training
    assert all(not x._forward_hooks and not x._forward_pre_hooks for x in m.modules())


# ---- inputs and outputs -----------------------------------------------------------------------
class _TwoInDictOut(enn.Module):
    def __init__(self):
        super().__init__()
        self.a = enn.Linear(3, 4)
        self.b = enn.Linear(5, 4)

    def forward(self, x, y, scale=1.0):
        h = self.a(x) + self.b(y)
        return {"logits": h * scale, "features": [h, h.sum(-1)]}


def test_multiple_inputs_and_dict_outputs():
    s = ember.summary(_TwoInDictOut(), input_size=[(2, 3), (2, 5)])
    assert s.layers[0].output_shape == {"logits": (2, 4), "features": [(2, 4), (2,)]}
    assert "{logits: [2, 4], features: ([2, 4], [2])}" in str(s)
    assert s.total_input_bytes == 4 * (6 + 10)


def test_input_data_tensor_list_dict():
    x, y = ember.randn(2, 3), ember.randn(2, 5)
    m = _TwoInDictOut()
    by_list = ember.summary(m, input_data=[x, y, 2.0])
    by_dict = ember.summary(m, input_data={"x": x, "y": y})
    by_kw = ember.summary(m, input_data=[x], y=y)
    for s in (by_list, by_dict, by_kw):
        assert s.layers[0].output_shape["logits"] == (2, 4)
        assert s.total_input_bytes == 4 * (6 + 10)
    lin = ember.summary(enn.Linear(3, 1), input_data=x)
    assert lin.layers[0].output_shape == (2, 1)


def test_lstm_tuple_outputs_and_packed_sequence():
    lstm = enn.LSTM(4, 6, num_layers=2, bidirectional=True)
    s = ember.summary(lstm, input_size=(5, 3, 4))
    assert s.layers[0].output_shape == [(5, 3, 12), [(4, 3, 6), (4, 3, 6)]]
    assert "([5, 3, 12], ([4, 3, 6], [4, 3, 6]))" in str(s)
    packed = pack_padded_sequence(ember.zeros(5, 3, 4), ember.tensor([5, 3, 2]))
    for data in ([packed], packed):  # a PackedSequence is one input, not a tuple of four
        s = ember.summary(enn.LSTM(4, 6), input_data=data)
        out, (h, c) = s.layers[0].output_shape
        assert (h, c) == ((1, 3, 6), (1, 3, 6))
        assert "PackedSequence(data=[10, 6])" in str(s)
        assert s.total_input_bytes == 4 * 10 * 4


def test_dtypes_for_token_inputs():
    m = enn.Sequential(enn.Embedding(100, 8), enn.Flatten(), enn.Linear(40, 2))
    s = ember.summary(m, input_size=(3, 5), dtypes=[ember.long])
    assert s.layers[0].output_shape == (3, 2)
    assert s.total_input_bytes == 8 * 15


# ---- errors -----------------------------------------------------------------------------------
def test_errors():
    m = enn.Linear(3, 2)
    with pytest.raises(ValueError, match="input_size=.*input_data="):
        ember.summary(m)
    with pytest.raises(ValueError, match="not both"):
        ember.summary(m, input_size=(1, 3), input_data=ember.ones(1, 3))
    with pytest.raises(ValueError, match="depth must be a non-negative int, got -1"):
        ember.summary(m, input_size=(1, 3), depth=-1)
    with pytest.raises(ValueError, match="mode must be"):
        ember.summary(m, input_size=(1, 3), mode="test")
    with pytest.raises(ValueError, match="input_size must be a shape"):
        ember.summary(m, input_size="3")
    with pytest.raises(ValueError, match="negative dimension"):
        ember.summary(m, input_size=(-1, 3))
    with pytest.raises(ValueError, match="dtypes goes with input_size"):
        ember.summary(m, input_data=ember.ones(1, 3), dtypes=[ember.float32])
    with pytest.raises(ValueError, match="2 dtypes for 1 input shapes"):
        ember.summary(m, input_size=(1, 3), dtypes=[ember.float32, ember.float32])
    with pytest.raises(TypeError, match="model must be an nn.Module"):
        ember.summary(lambda x: x, input_size=(1, 3))
    # a shape mismatch names the layer
    seq = enn.Sequential(enn.Linear(3, 4), enn.Linear(5, 2))
    with pytest.raises(RuntimeError, match=r"forward of 1 \(Linear\) failed.*4.*5"):
        ember.summary(seq, input_size=(2, 3))


def test_lazy_module_is_refused():
    m = enn.Sequential(enn.LazyLinear(4), enn.ReLU())
    with pytest.raises(ValueError, match=r"0\.weight, 0\.bias not initialized yet"):
        ember.summary(m, input_size=(2, 3))
    assert enn.parameter.is_lazy(m[0].weight)  # untouched


# ---- the meta shape rules summary needed, against NumPy -----------------------------------------
@pytest.mark.parametrize(
    "a,b",
    [
        ((3, 4), (4, 5)),
        ((2, 3, 4), (4,)),
        ((2, 3, 4), (5, 4, 6)),
        ((), (3,)),
        ((4,), (4,)),
        ((4,), (4, 2)),
    ],
)
def test_meta_dot_matches_numpy(a, b):
    import numpy as np

    from ember.backend import meta

    got = np.dot(meta.MetaArray(a, "float32"), meta.MetaArray(b, "float64"))
    ref = np.dot(np.zeros(a, "float32"), np.zeros(b, "float64"))
    assert (got.shape, got.dtype) == (ref.shape, ref.dtype)
    out = meta.MetaArray(ref.shape, "float64")
    assert np.dot(meta.MetaArray(a, "float64"), meta.MetaArray(b, "float64"), out) is out
    with pytest.raises(ValueError, match="not aligned"):
        np.dot(meta.MetaArray((3, 4), "float32"), meta.MetaArray((5, 2), "float32"))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_meta_take_and_ascontiguousarray_match_numpy(axis):
    import numpy as np

    from ember.backend import meta

    for idx in ([[1, 2]], np.zeros((2, 3), np.int64)):
        got = np.take(meta.MetaArray((5, 4), "float32"), idx, axis=axis)
        ref = np.take(np.zeros((5, 4), "float32"), idx, axis=axis)
        assert (got.shape, got.dtype) == (ref.shape, ref.dtype)
    got = np.take(meta.MetaArray((5, 4), "int64"), meta.MetaArray((3,), "int64"), axis=axis)
    assert got.shape == np.take(np.zeros((5, 4)), np.zeros(3, np.int64), axis=axis).shape
    c = meta.ascontiguousarray(meta.MetaArray((2, 3), "float32").T)
    assert (c.shape, c.dtype) == ((3, 2), np.dtype("float32"))
