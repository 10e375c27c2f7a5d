"""ember.utils.data: datasets, samplers, default_collate and the single-process DataLoader against
torch.utils.data (batches, dtypes, lengths, errors and warnings), shuffling checked as
permutations and for reproducibility (ember's Generator is PCG64, so orders differ from torch's),
and one epoch of training fed by a shuffled DataLoader. Worker processes: test_data_workers.py."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.optim
import ember.utils.data as ed
from ember.utils.data._utils.collate import collate

try:
    import torch
    import torch.utils.data as td
except ImportError:  # pragma: no cover - CI installs torch
    torch = td = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

Point = collections.namedtuple("Point", ["x", "y"])


def _pair(data):
    """The same array as an ember tensor and a torch tensor."""
    return ember.tensor(data), torch.tensor(data)


def _same(e, t):
    """Assert that an ember structure equals a torch one: same container types, tensors with the
    same dtype, shape and values."""
    if isinstance(e, ember.Tensor):
        assert isinstance(t, torch.Tensor), (e, t)
        assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    elif isinstance(e, dict):
        assert type(e) is type(t) and list(e) == list(t)
        for k in e:
            _same(e[k], t[k])
    elif isinstance(e, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), (type(e), type(t))
        for a, b in zip(e, t):
            _same(a, b)
    elif isinstance(e, np.ndarray):
        np.testing.assert_array_equal(e, t)
    else:
        assert type(e) is type(t) and e == t, (e, t)


def _raises_like(fn_e, fn_t):
    """Both raise the same exception type; torch's message is part of ember's."""
    with pytest.raises(Exception) as te:
        fn_t()
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value) is type(te.value), (ee.value, te.value)
    assert str(te.value) in str(ee.value), (str(ee.value), str(te.value))


# ---- datasets ----------------------------------------------------------------------------------
@needs_torch
def test_tensor_dataset_items_and_size_mismatch():
    x = np.arange(12.0).reshape(6, 2)
    y = np.arange(6)
    ex, tx = _pair(x)
    ey, ty = _pair(y)
    eds, tds = ed.TensorDataset(ex, ey), td.TensorDataset(tx, ty)
    assert len(eds) == len(tds) == 6
    for i in (0, 3, -1, slice(1, 4)):
        _same(eds[i], tds[i])
    _raises_like(
        lambda: ed.TensorDataset(ex, ember.zeros(5)), lambda: td.TensorDataset(tx, torch.zeros(5))
    )


@needs_torch
def test_concat_dataset_indexing_and_errors():
    parts = [list(range(3)), list(range(10, 12)), [], list(range(20, 24))]
    e, t = ed.ConcatDataset(parts), td.ConcatDataset(parts)
    assert len(e) == len(t) == 9 and e.cumulative_sizes == t.cumulative_sizes
    assert [e[i] for i in range(-9, 9)] == [t[i] for i in range(-9, 9)]
    _raises_like(lambda: e[-10], lambda: t[-10])
    _raises_like(lambda: e[9], lambda: t[9])
    _raises_like(lambda: ed.ConcatDataset([]), lambda: td.ConcatDataset([]))

    class EStream(ed.IterableDataset):
        def __iter__(self):
            yield 1

    class TStream(td.IterableDataset):
        def __iter__(self):
            yield 1

    _raises_like(lambda: ed.ConcatDataset([EStream()]), lambda: td.ConcatDataset([TStream()]))
    with pytest.warns(FutureWarning, match="cumulative_sizes"):
        assert e.cummulative_sizes == t.cumulative_sizes


class _Squares(ed.Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return i * i


def test_dataset_add_subset_and_base_errors():
    both = _Squares() + _Squares()
    assert (
        isinstance(both, ed.ConcatDataset) and [both[i] for i in range(10)] == [0, 1, 4, 9, 16] * 2
    )
    sub = ed.Subset(_Squares(), [4, 0, 2])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [16, 0, 4]
    assert sub.__getitems__([0, 2]) == [16, 4]
    with pytest.raises(NotImplementedError, match="should implement __getitem__"):
        ed.Dataset()[0]

    class Shifted(ed.Subset):
        def __getitem__(self, i):
            return 0

    with pytest.raises(NotImplementedError, match="Shifted overrides __getitem__"):
        Shifted(_Squares(), [0])


@needs_torch
def test_stack_dataset_tuple_dict_and_errors():
    a, b = list(range(4)), list("abcd")
    assert ed.StackDataset(a, b)[2] == td.StackDataset(a, b)[2] == (2, "c")
    assert ed.StackDataset(x=a, y=b)[1] == td.StackDataset(x=a, y=b)[1]
    assert ed.StackDataset(ed.Subset(a, [3, 2, 1, 0]), b).__getitems__([0, 1]) == td.StackDataset(
        td.Subset(a, [3, 2, 1, 0]), b
    ).__getitems__([0, 1])
    assert ed.StackDataset(x=a, y=b).__getitems__([0, 3]) == [
        {"x": 0, "y": "a"},
        {"x": 3, "y": "d"},
    ]
    _raises_like(lambda: ed.StackDataset(a, y=b), lambda: td.StackDataset(a, y=b))
    _raises_like(lambda: ed.StackDataset(), lambda: td.StackDataset())
    _raises_like(lambda: ed.StackDataset(a, b[:3]), lambda: td.StackDataset(a, b[:3]))


class _Count(ed.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class _NoLen(ed.IterableDataset):
    def __iter__(self):
        return iter(range(3))


def test_chain_dataset():
    chain = _Count(2) + _Count(3)
    assert isinstance(chain, ed.ChainDataset)
    assert list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ed.ChainDataset([[1, 2]]))
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(ed.ChainDataset([_Count(1), [1]]))


@needs_torch
@pytest.mark.parametrize(
    "n, lengths",
    [
        (10, [0.3, 0.3, 0.4]),
        (11, [0.5, 0.5]),
        (7, [0.2, 0.2, 0.2, 0.2, 0.2]),
        (10, [3, 7]),
        (100, [0.333, 0.333, 0.334]),
        (5, [1.0]),
        (13, [0.1, 0.6, 0.3]),
    ],
)
def test_random_split_lengths_match_torch(n, lengths):
    g = ember.Generator().manual_seed(3)
    e = ed.random_split(range(n), lengths, generator=g)
    t = td.random_split(range(n), lengths, generator=torch.Generator().manual_seed(3))
    assert [len(s) for s in e] == [len(s) for s in t]
    assert sorted(i for s in e for i in s) == list(range(n))
    again = ed.random_split(range(n), lengths, generator=ember.Generator().manual_seed(3))
    assert [list(s) for s in e] == [list(s) for s in again]


@needs_torch
def test_random_split_warnings_and_errors():
    with pytest.warns(UserWarning, match="Length of split at index") as ew:
        ed.random_split(range(2), [0.5, 0.25, 0.25])
    with pytest.warns(UserWarning) as tw:
        td.random_split(range(2), [0.5, 0.25, 0.25])
    assert [str(w.message) for w in ew] == [str(w.message) for w in tw]
    _raises_like(
        lambda: ed.random_split(range(10), [3, 4]), lambda: td.random_split(range(10), [3, 4])
    )
    _raises_like(
        lambda: ed.random_split(range(10), [1.5, -0.5]),
        lambda: td.random_split(range(10), [1.5, -0.5]),
    )


def test_random_split_default_generator_follows_manual_seed():
    ember.manual_seed(11)
    a = [list(s) for s in ed.random_split(range(20), [0.5, 0.5])]
    ember.manual_seed(11)
    b = [list(s) for s in ed.random_split(range(20), [0.5, 0.5])]
    c = [list(s) for s in ed.random_split(range(20), [0.5, 0.5])]
    assert a == b and a != c


# ---- samplers ----------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "n, bs, drop",
    [
        (10, 3, False),
        (10, 3, True),
        (9, 3, True),
        (2, 5, False),
        (2, 5, True),
        (0, 2, False),
        (7, 1, True),
    ],
)
def test_batch_sampler_matches_torch(n, bs, drop):
    e = ed.BatchSampler(ed.SequentialSampler(range(n)), bs, drop)
    t = td.BatchSampler(td.SequentialSampler(range(n)), bs, drop)
    assert list(e) == list(t) and len(e) == len(t)
    assert list(ed.SequentialSampler(range(n))) == list(range(n))


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {"batch_size": 0, "drop_last": False},
        {"batch_size": -2, "drop_last": False},
        {"batch_size": True, "drop_last": False},
        {"batch_size": 2.0, "drop_last": False},
        {"batch_size": 2, "drop_last": 1},
    ],
)
def test_batch_sampler_errors_match_torch(kwargs):
    _raises_like(
        lambda: ed.BatchSampler(range(4), **kwargs), lambda: td.BatchSampler(range(4), **kwargs)
    )


@needs_torch
@pytest.mark.parametrize(
    "cls, kwargs",
    [
        ("RandomSampler", {"replacement": 1}),
        ("RandomSampler", {"num_samples": 0}),
        ("RandomSampler", {"num_samples": 2.0}),
        ("WeightedRandomSampler", {"num_samples": 0}),
        ("WeightedRandomSampler", {"num_samples": True}),
        ("WeightedRandomSampler", {"num_samples": 2, "replacement": 0}),
        ("WeightedRandomSampler", {"num_samples": 2, "weights": [[1.0, 2.0]]}),
    ],
)
def test_sampler_errors_match_torch(cls, kwargs):
    kwargs = dict(kwargs)
    if cls == "WeightedRandomSampler":
        kwargs.setdefault("weights", [1.0, 2.0])
        first = kwargs.pop("weights")
    else:
        first = range(4)
    _raises_like(
        lambda: getattr(ed, cls)(first, **kwargs), lambda: getattr(td, cls)(first, **kwargs)
    )


def test_random_sampler_permutations_reproducibility_and_epochs():
    s = ed.RandomSampler(range(50), generator=ember.Generator().manual_seed(5))
    e1, e2 = list(s), list(s)
    assert sorted(e1) == sorted(e2) == list(range(50)) and e1 != e2  # fresh shuffle per epoch
    t = ed.RandomSampler(range(50), generator=ember.Generator().manual_seed(5))
    assert list(t) == e1 and list(t) == e2
    assert len(s) == 50


def test_random_sampler_num_samples_and_replacement():
    g = ember.Generator().manual_seed(0)
    without = list(ed.RandomSampler(range(4), num_samples=10, generator=g))
    assert len(without) == 10 and sorted(without[:4]) == sorted(without[4:8]) == [0, 1, 2, 3]
    assert len(set(without[8:])) == 2
    drawn = list(ed.RandomSampler(range(7), replacement=True, num_samples=1000, generator=g))
    assert len(drawn) == 1000 and set(drawn) == set(range(7))
    counts = np.bincount(drawn, minlength=7)
    assert counts.min() > 100  # uniform: about 143 each


def test_random_sampler_without_generator_draws_one_seed_from_the_default():
    # NOTE: matches torch: with generator=None an epoch draws one int64 seed from the default
    # generator and shuffles with a private Generator seeded with it
    ember.manual_seed(7)
    order = list(ed.RandomSampler(range(30)))
    after = ember.get_rng_state()
    ember.manual_seed(7)
    seed = int(ember.empty((), dtype=ember.int64).random_().item())
    assert bool((ember.get_rng_state() == after).all())
    assert order == ember.randperm(30, generator=ember.Generator().manual_seed(seed)).tolist()
    ember.manual_seed(7)
    assert list(ed.RandomSampler(range(30))) == order


def test_subset_and_weighted_samplers():
    g = ember.Generator().manual_seed(1)
    idx = [10, 3, 7, 42]
    sub = ed.SubsetRandomSampler(idx, generator=g)
    assert sorted(sub) == sorted(idx) and len(sub) == 4
    w = ed.WeightedRandomSampler([0.0, 1.0, 3.0, 0.0], 4000, generator=g)
    drawn = list(w)
    assert len(w) == 4000 and set(drawn) == {1, 2}
    assert 0.70 < drawn.count(2) / 4000 < 0.80  # 3:1 odds
    assert w.weights.dtype == ember.float64
    once = list(ed.WeightedRandomSampler([1.0, 2.0, 3.0, 4.0], 4, replacement=False, generator=g))
    assert sorted(once) == [0, 1, 2, 3]


# ---- collate -----------------------------------------------------------------------------------
def _cases():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    return {
        "tensor float64": lambda m: [m.tensor(a), m.tensor(b)],
        "tensor float32": lambda m: [m.tensor(a, dtype=m.float32), m.tensor(b, dtype=m.float32)],
        "tensor int 0-d": lambda m: [m.tensor(3), m.tensor(-1)],
        "tensor bool": lambda m: [m.tensor([True, False]), m.tensor([False, False])],
        "numpy float32": lambda m: [a.astype(np.float32), b.astype(np.float32)],
        "numpy int32": lambda m: [np.arange(3, dtype=np.int32), np.ones(3, dtype=np.int32)],
        "numpy scalars f32": lambda m: [np.float32(1.5), np.float32(2.0)],
        "numpy scalars i64": lambda m: [np.int64(1), np.int64(7)],
        "numpy scalars bool": lambda m: [np.bool_(True), np.bool_(False)],
        "python floats": lambda m: [1.5, 2.25, -3.0],
        "python ints": lambda m: [1, 2, 3],
        "python bools": lambda m: [True, False],
        "int then float": lambda m: [1, 2.5],
        "strings": lambda m: ["a", "bc"],
        "bytes": lambda m: [b"a", b"bc"],
        "dict": lambda m: [
            {"x": m.tensor(a), "y": 1, "s": "p"},
            {"x": m.tensor(b), "y": 2, "s": "q"},
        ],
        "ordered dict": lambda m: [collections.OrderedDict(k=1.0), collections.OrderedDict(k=2.0)],
        "namedtuple": lambda m: [Point(1, m.tensor(a)), Point(2, m.tensor(b))],
        "tuple": lambda m: [(m.tensor(a), 0), (m.tensor(b), 1)],
        "list": lambda m: [[1, 2.0], [3, 4.0]],
        "nested": lambda m: [
            {"p": [Point(np.float64(1), (1, "a"))], "q": {"r": True}},
            {"p": [Point(np.float64(2), (2, "b"))], "q": {"r": False}},
        ],
    }


CASES = _cases()


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_default_collate_matches_torch(name):
    _same(ed.default_collate(CASES[name](ember)), td.default_collate(CASES[name](torch)))


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_default_convert_matches_torch(name):
    batch_e, batch_t = CASES[name](ember), CASES[name](torch)
    for e, t in zip(batch_e, batch_t):
        _same(ed.default_convert(e), td.default_convert(t))


@needs_torch
def test_default_convert_leaves_text_arrays_and_other_objects():
    text = np.array(["a", "b"])
    assert ed.default_convert(text) is text and td.default_convert(text) is text
    obj = object()
    assert ed.default_convert(obj) is obj
    _same(ed.default_convert((np.arange(2), "s")), td.default_convert((np.arange(2), "s")))


@needs_torch
@pytest.mark.parametrize(
    "batch",
    [
        lambda m: [m.zeros(2), m.zeros(3)],
        lambda m: [[1, 2], [1]],
        lambda m: [object(), object()],
        lambda m: [None, None],
        lambda m: [np.array(["a"]), np.array(["b"])],
        lambda m: [np.array([object()]), np.array([object()])],
        lambda m: [{"x": m.zeros(2)}, {"x": m.zeros(1)}],
    ],
)
def test_default_collate_errors_match_torch(batch):
    _raises_like(lambda: ed.default_collate(batch(ember)), lambda: td.default_collate(batch(torch)))


def test_collate_with_a_custom_table():
    def total(batch, *, collate_fn_map=None):
        return sum(batch)

    keep = ed._utils.collate.collate_str_fn
    assert collate([(1, "a"), (2, "b")], collate_fn_map={int: total, str: keep}) == [3, ("a", "b")]
    assert collate([{"k": 1}, {"k": 5}], collate_fn_map={int: total}) == {"k": 6}
    table = dict(ed._utils.collate.default_collate_fn_map)
    table[type(None)] = lambda batch, *, collate_fn_map=None: None
    assert collate([(None, 1), (None, 2)], collate_fn_map=table)[0] is None


# ---- DataLoader --------------------------------------------------------------------------------
def _datasets(n=10):
    x = np.arange(n * 3, dtype=np.float64).reshape(n, 3)
    y = np.arange(n) % 4
    return (
        ed.TensorDataset(ember.tensor(x), ember.tensor(y)),
        td.TensorDataset(torch.tensor(x), torch.tensor(y)),
    )


@needs_torch
@pytest.mark.parametrize(
    "n, bs, drop",
    [
        (10, 3, False),
        (10, 3, True),
        (10, 5, False),
        (10, 1, False),
        (4, 10, False),
        (4, 10, True),
        (10, None, False),
    ],
)
def test_sequential_batches_and_len_match_torch(n, bs, drop):
    eds, tds = _datasets(n)
    e = ed.DataLoader(eds, batch_size=bs, drop_last=drop)
    t = td.DataLoader(tds, batch_size=bs, drop_last=drop)
    assert len(e) == len(t)
    eb, tb = list(e), list(t)
    assert len(eb) == len(tb)
    for a, b in zip(eb, tb):
        _same(a, b)
    assert all(b[0].dtype == ember.float64 and b[1].dtype == ember.int64 for b in eb)


@needs_torch
def test_samplers_and_batch_sampler_options_match_torch():
    eds, tds = _datasets(9)
    order = [8, 0, 4, 4, 2]
    _same(
        list(ed.DataLoader(eds, batch_size=2, sampler=order)),
        list(td.DataLoader(tds, batch_size=2, sampler=order)),
    )
    groups = [[1, 2], [0], [7, 8, 3]]
    e = ed.DataLoader(eds, batch_sampler=groups)
    t = td.DataLoader(tds, batch_sampler=groups)
    _same(list(e), list(t))
    assert e.batch_size is None and t.batch_size is None and e.drop_last is False


@needs_torch
def test_collate_fn_and_dict_samples():
    class EDict(ed.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": np.full(2, i, dtype=np.float32), "i": i, "name": f"s{i}"}

    class TDict(td.Dataset):
        __len__ = EDict.__len__
        __getitem__ = EDict.__getitem__

    _same(list(ed.DataLoader(EDict(), batch_size=2)), list(td.DataLoader(TDict(), batch_size=2)))
    _same(
        list(ed.DataLoader(EDict(), batch_size=None)), list(td.DataLoader(TDict(), batch_size=None))
    )
    assert list(ed.DataLoader(range(5), batch_size=2, collate_fn=sum)) == [1, 5, 4]


def test_getitems_is_called_once_per_batch():
    calls = []

    class Batched(ed.Dataset):
        def __len__(self):
            return 7

        def __getitem__(self, i):
            raise AssertionError("the loader should fetch through __getitems__")

        def __getitems__(self, indices):
            calls.append(list(indices))
            return [i * 10 for i in indices]

    out = [b.tolist() for b in ed.DataLoader(Batched(), batch_size=3)]
    assert out == [[0, 10, 20], [30, 40, 50], [60]] and calls == [[0, 1, 2], [3, 4, 5], [6]]


def test_shuffle_permutations_reproducible_and_epochs_differ():
    eds, _ = _datasets(40) if td is not None else (ed.TensorDataset(ember.arange(40)), None)

    def epochs(loader, k=2):
        return [
            [int(v) for b in loader for v in b[-1 if len(b) == 2 else 0].tolist()] for _ in range(k)
        ]

    ids = ed.TensorDataset(ember.arange(40))
    g = ember.Generator().manual_seed(0)
    e1, e2 = epochs(ed.DataLoader(ids, batch_size=16, shuffle=True, generator=g))
    assert sorted(e1) == sorted(e2) == list(range(40)) and e1 != e2
    again = epochs(
        ed.DataLoader(ids, batch_size=16, shuffle=True, generator=ember.Generator().manual_seed(0))
    )
    assert again == [e1, e2]
    ember.manual_seed(4)
    d1 = epochs(ed.DataLoader(ids, batch_size=16, shuffle=True))
    ember.manual_seed(4)
    assert epochs(ed.DataLoader(ids, batch_size=16, shuffle=True)) == d1
    assert [len(b[0]) for b in ed.DataLoader(ids, batch_size=16, shuffle=True)] == [16, 16, 8]
    assert len(eds) == 40


@pytest.mark.parametrize("lib", ["ember", "torch"])
def test_loader_draws_base_seed_then_shuffles(lib):
    # NOTE: matches torch (checked on torch by the same code): an iterator first draws its base
    # seed from the generator, then the RandomSampler draws its permutation from the same
    # generator; without a generator both come from the default generator, the sampler's as the
    # seed of a private generator
    if lib == "torch" and torch is None:
        pytest.skip("torch is the reference")
    m, data = (ember, ed) if lib == "ember" else (torch, td)
    ids = data.TensorDataset(m.arange(12))

    def order(**kw):
        return [
            v for (b,) in data.DataLoader(ids, batch_size=5, shuffle=True, **kw) for v in b.tolist()
        ]

    def draw(g=None):
        return int(m.empty((), dtype=m.int64).random_(generator=g).item())

    got = order(generator=m.Generator().manual_seed(9))
    g = m.Generator().manual_seed(9)
    draw(g)
    assert got == m.randperm(12, generator=g).tolist()
    m.manual_seed(3)
    got = order()
    m.manual_seed(3)
    draw()
    private = m.Generator().manual_seed(draw())
    assert got == m.randperm(12, generator=private).tolist()


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_workers": -1},
        {"timeout": -1.0},
        {"prefetch_factor": 2},
        {"num_workers": 1, "prefetch_factor": -1},
        {"persistent_workers": True},
        {"shuffle": True, "sampler": [0, 1]},
        {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_sampler": [[0]], "shuffle": True},
        {"batch_sampler": [[0]], "sampler": [0]},
        {"batch_sampler": [[0]], "drop_last": True},
        {"batch_size": None, "drop_last": True},
        {"multiprocessing_context": "fork"},
        {"num_workers": 1, "multiprocessing_context": "nope"},
        {"num_workers": 1, "multiprocessing_context": 3},
    ],
)
def test_dataloader_option_errors_match_torch(kwargs):
    eds, tds = _datasets(4)
    _raises_like(lambda: ed.DataLoader(eds, **kwargs), lambda: td.DataLoader(tds, **kwargs))


class _TCount(td.IterableDataset if td is not None else object):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


@needs_torch
@pytest.mark.parametrize("kwargs", [{"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}])
def test_iterable_dataset_option_errors_match_torch(kwargs):
    _raises_like(
        lambda: ed.DataLoader(_Count(3), **kwargs), lambda: td.DataLoader(_TCount(3), **kwargs)
    )


@needs_torch
@pytest.mark.parametrize(
    "n, bs, drop", [(10, 3, False), (10, 3, True), (9, 3, False), (10, None, False), (2, 4, True)]
)
def test_iterable_dataset_batches_and_len_match_torch(n, bs, drop):
    e = ed.DataLoader(_Count(n), batch_size=bs, drop_last=drop)
    t = td.DataLoader(_TCount(n), batch_size=bs, drop_last=drop)
    assert len(e) == len(t)
    _same(list(e), list(t))


def test_iterable_dataset_len_rules():
    with pytest.raises(TypeError):
        len(ed.DataLoader(_NoLen(), batch_size=2))
    assert [b.tolist() for b in ed.DataLoader(_NoLen(), batch_size=2)] == [[0, 1], [2]]

    class Liar(_Count):
        def __len__(self):
            return 2

    loader = ed.DataLoader(Liar(4), batch_size=None)
    assert len(loader) == 2
    with pytest.warns(UserWarning, match=r"was reported to be 2\(when accessing len"):
        assert list(loader) == [0, 1, 2, 3]


@needs_torch
def test_frozen_attributes_match_torch():
    eds, tds = _datasets(4)
    e, t = ed.DataLoader(eds), td.DataLoader(tds)
    for attr in (
        "batch_size",
        "sampler",
        "batch_sampler",
        "drop_last",
        "dataset",
        "persistent_workers",
    ):
        _raises_like(lambda a=attr: setattr(e, a, None), lambda a=attr: setattr(t, a, None))
    e.num_workers = 0  # not frozen
    assert e.prefetch_factor is None and isinstance(e.sampler, ed.SequentialSampler)
    assert isinstance(ed.DataLoader(eds, shuffle=True).sampler, ed.RandomSampler)
    assert ed.DataLoader(eds, batch_size=None).collate_fn is ed.default_convert
    assert ed.DataLoader(eds).collate_fn is ed.default_collate


@needs_torch
def test_pin_memory_is_a_no_op_with_torchs_warning():
    eds, tds = _datasets(4)
    with pytest.warns(UserWarning) as ew:
        eb = list(ed.DataLoader(eds, batch_size=2, pin_memory=True))
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        tb = list(td.DataLoader(tds, batch_size=2, pin_memory=True))
    assert [str(w.message) for w in ew] == [str(w.message) for w in tw]
    _same(eb, tb)


@needs_torch
def test_too_many_workers_warns_like_torch():
    import os

    n = len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else 64
    eds, tds = _datasets(4)
    with pytest.warns(UserWarning) as ew:
        ed.DataLoader(eds, num_workers=n)
    with pytest.warns(UserWarning) as tw:
        td.DataLoader(tds, num_workers=n)
    assert [str(w.message) for w in ew] == [str(w.message) for w in tw]


def test_iterator_is_not_picklable():
    import pickle

    with pytest.raises(NotImplementedError, match="cannot be pickled"):
        pickle.dumps(iter(ed.DataLoader(range(3))))


def test_worker_info_is_none_in_the_main_process():
    assert ed.get_worker_info() is None


# ---- end to end --------------------------------------------------------------------------------
def test_one_epoch_of_training_from_a_shuffled_loader():
    ember.manual_seed(0)
    x = ember.randn(256, 4)
    w_true = ember.tensor([[1.0], [-2.0], [0.5], [3.0]])
    y = x @ w_true + 0.1
    loader = ed.DataLoader(ed.TensorDataset(x, y), batch_size=16, shuffle=True)
    model = enn.Sequential(enn.Linear(4, 8), enn.Tanh(), enn.Linear(8, 1))
    opt = ember.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = enn.MSELoss()
    with ember.no_grad():
        before = loss_fn(model(x), y).item()
    seen = 0
    for xb, yb in loader:
        assert xb.shape == (16, 4) and yb.shape == (16, 1)
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        seen += len(xb)
    with ember.no_grad():
        after = loss_fn(model(x), y).item()
    assert seen == 256 and len(loader) == 16
    assert after < 0.25 * before, (before, after)


# ---- short paths give what the general paths give ----------------------------------------------
class _Rows(ed.Dataset):
    """A TensorDataset in all but type: the loader takes the per-sample path for it."""

    def __init__(self, *tensors):
        self.tensors = tensors

    def __len__(self):
        return self.tensors[0].shape[0]

    def __getitem__(self, i):
        return tuple(t[i] for t in self.tensors)


@pytest.mark.parametrize(
    "kwargs",
    [{"batch_size": 3}, {"batch_size": 4, "drop_last": True}, {"batch_sampler": [[4, -1, 0], [2]]}],
)
def test_tensor_dataset_gather_equals_per_sample_fetch(kwargs):
    tensors = (ember.randn(9, 2, 3), ember.arange(9), ember.tensor([True, False] * 4 + [True]))
    fast = list(ed.DataLoader(ed.TensorDataset(*tensors), **kwargs))
    slow = list(ed.DataLoader(_Rows(*tensors), **kwargs))
    assert len(fast) == len(slow)
    for f, s in zip(fast, slow):
        assert type(f) is type(s) is list and len(f) == len(s) == 3
        for a, b in zip(f, s):
            assert a.dtype == b.dtype and a.shape == b.shape and bool((a == b).all())
            assert a.grad_fn is None and a.is_contiguous()
    w = ember.randn(5, 2, requires_grad=True)
    (batch,) = list(ed.DataLoader(ed.TensorDataset(w), batch_size=5))
    assert batch[0].grad_fn is not None  # a recorded stack, as torch's per-sample path
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        list(ed.DataLoader(ed.TensorDataset(*tensors), batch_sampler=[[0, 9]]))


@needs_torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib: [lib.arange(6.0).reshape(3, 2) * i for i in range(5)],
        lambda lib: [lib.tensor(float(i)) for i in range(4)],
        lambda lib: [lib.arange(3)[1:], lib.arange(4)[::2]],
        lambda lib: [lib.zeros(0, 2)] * 3,
        lambda lib: [lib.ones(2), lib.ones(2, dtype=lib.float64)],
    ],
)
def test_default_collate_stacks_as_torch(make):
    # collate goes through ember.stack, whose forward joins along the split axis
    got, ref = ed.default_collate(make(ember)), torch.utils.data.default_collate(make(torch))
    assert str(got.dtype)[6:] == str(ref.dtype)[6:] and tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())
