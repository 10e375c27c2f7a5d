"""``assert_close``: torch's comparison of tensors, numbers and nested containers.

The rules and messages are torch's (torch/testing/_comparison.py), so a test written against
torch fails on ember with the same ``AssertionError`` text: inputs are matched into pairs
(None, booleans, numbers, tensor-likes) recursively through sequences and mappings; each pair
checks its attributes (shape, device, dtype, layout, stride) and then its values with
``|actual - expected| <= atol + rtol * |expected|``, with default tolerances per dtype.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib

from ember import backend
from ember.tensor import Tensor

# dtype name -> (rtol, atol); any other dtype (integers, bool) is compared exactly
_DTYPE_PRECISIONS = {
    "float16": (0.001, 1e-5),
    "bfloat16": (0.016, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (0.001, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
# Python number type -> the dtype name whose tolerances it gets
_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}


class _ErrorMeta(Exception):
    """A failure found while comparing: the exception type, its message and the item path."""

    def __init__(self, type, msg: str, *, id=()):  # noqa: A002  (torch's names)
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                path = "".join(str([item]) for item in self.id)
                generated += f"\n\nThe failure occurred for item {path}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """This pair type does not handle these inputs; the next one is tried."""


def _dtype_name(dtype) -> str:
    return str(dtype).rpartition(".")[2]


def _tolerances(*dtype_names, rtol, atol, id=()):  # noqa: A002
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            id=id,
        )
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*(_DTYPE_PRECISIONS.get(n, (0.0, 0.0)) for n in dtype_names), strict=True)
    return max(rtols), max(atols)


def _mismatch_msg(*, identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        if idx is None:
            m = f"{kind.title()} difference: {diff}"
        else:
            m = f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            m += f" (up to {tol} allowed)"
        return m + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(
        identifier="Scalars",
        extra=f"Expected {expected} but got {actual}.",
        abs_diff=abs_diff,
        abs_idx=None,
        atol=atol,
        rel_diff=rel_diff,
        rel_idx=None,
        rtol=rtol,
    )


def _tensor_mismatch_msg(actual: Tensor, expected: Tensor, matches: Tensor, *, rtol, atol):
    import ember

    shape = tuple(matches.shape)

    def unravel(flat: int) -> tuple:
        idx = []
        for size in shape[::-1]:
            flat, mod = divmod(flat, size)
            idx.append(mod)
        return tuple(idx[::-1])

    total = matches.numel()
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not a.dtype.is_floating_point and not a.dtype.is_complex:
        a, e = a.to(ember.int64), e.to(ember.int64)
    abs_diff = (a - e).abs()
    abs_diff[m] = 0  # only mismatches compete for the greatest difference
    max_abs, abs_at = abs_diff.max(0)
    rel_diff = abs_diff / e.abs()
    rel_diff[m] = 0
    max_rel, rel_at = rel_diff.max(0)
    return _mismatch_msg(
        identifier="Tensor-likes",
        extra=extra,
        abs_diff=max_abs.item(),
        abs_idx=unravel(int(abs_at)),
        atol=atol,
        rel_diff=max_rel.item(),
        rel_idx=unravel(int(rel_at)),
        rtol=rtol,
    )


# ---- pairs -------------------------------------------------------------------------------------
class _Pair:
    def __init__(self, actual, expected, *, id=(), **options):  # noqa: A002
        self.actual, self.expected, self.id = actual, expected, id

    def _fail(self, type, msg):  # noqa: A002
        raise _ErrorMeta(type, msg, id=self.id)


class _NonePair(_Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, **options)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


def _is_np_scalar(x, kinds: str) -> bool:
    return isinstance(x, backend.generic) and x.dtype.kind in kinds


class _BooleanPair(_Pair):
    def __init__(self, actual, expected, **options):
        if not all(isinstance(x, bool) or _is_np_scalar(x, "b") for x in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), **options)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(
        self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False,  # noqa: A002
        check_dtype=False, **options,
    ):  # fmt: skip
        def number(x):
            if _is_np_scalar(x, "iufc"):
                return x.item()
            if isinstance(x, (int, float, complex)) and not isinstance(x, bool):
                return x
            raise _Unsupported

        actual, expected = number(actual), number(expected)
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(
            *(_NUMBER_DTYPES[type(x)] for x in (actual, expected)), rtol=rtol, atol=atol, id=id
        )
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            self._fail(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e:
            return
        if self.equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return
        abs_diff = abs(a - e)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(e):
            return
        self._fail(AssertionError, _scalar_mismatch_msg(a, e, rtol=self.rtol, atol=self.atol))


class _TensorLikePair(_Pair):
    def __init__(
        self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None,  # noqa: A002
        equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
        check_stride=False, **options,
    ):  # fmt: skip
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _Unsupported
        actual, expected = self._to_tensor(actual), self._to_tensor(expected)
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(
            _dtype_name(actual.dtype), _dtype_name(expected.dtype), rtol=rtol, atol=atol, id=id
        )
        self.equal_nan = equal_nan
        self.check_device, self.check_dtype = check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    @staticmethod
    def _to_tensor(x) -> Tensor:
        if isinstance(x, Tensor):
            return x
        import ember

        try:
            return ember.as_tensor(x)
        except Exception:
            raise _Unsupported from None

    def compare(self):
        a, e = self.actual, self.expected
        self._compare_attributes(a, e)
        if a.device.type == "meta" or e.device.type == "meta":
            return
        a, e = self._equalize(a, e)
        self._compare_values(a, e)

    def _compare_attributes(self, a, e):
        def mismatch(name, av, ev):
            self._fail(
                AssertionError, f"The values for attribute '{name}' do not match: {av} != {ev}."
            )

        if a.shape != e.shape:
            mismatch("shape", a.shape, e.shape)
        la, le = _layout(a), _layout(e)
        if la != le:
            if self.check_layout:
                mismatch("layout", la, le)
        elif self.check_stride and _is_strided(a) and a.stride() != e.stride():
            mismatch("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            mismatch("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            mismatch("dtype", a.dtype, e.dtype)

    @staticmethod
    def _equalize(a, e):
        import ember

        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        if a.dtype != e.dtype:
            dtype = ember.promote_types(a.dtype, e.dtype)
            a, e = a.to(dtype), e.to(dtype)
        if _layout(a) != _layout(e):
            a = a if _is_strided(a) else a.to_dense()
            e = e if _is_strided(e) else e.to_dense()
        return a, e

    def _compare_values(self, a, e):
        import ember

        if not _is_strided(a):
            a, e = a.to_dense(), e.to_dense()
        a, e = a.detach(), e.detach()
        matches = ember.isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if bool(matches.all()):
            return
        if a.shape == ():
            msg = _scalar_mismatch_msg(a.item(), e.item(), rtol=self.rtol, atol=self.atol)
        else:
            msg = _tensor_mismatch_msg(a, e, matches, rtol=self.rtol, atol=self.atol)
        self._fail(AssertionError, msg)


def _layout(t):
    return getattr(t, "layout", "torch.strided")


def _is_strided(t) -> bool:
    return "strided" in str(_layout(t))


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _originate_pairs(actual, expected, *, id=(), **options):  # noqa: A002
    seq, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (
        isinstance(actual, seq)
        and not isinstance(actual, str)
        and isinstance(expected, seq)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _ErrorMeta(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                id=id,
            )
        pairs = []
        for i in range(len(actual)):
            pairs.extend(_originate_pairs(actual[i], expected[i], id=(*id, i), **options))
        return pairs
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        ka, ke = set(actual.keys()), set(expected.keys())
        if ka != ke:
            raise _ErrorMeta(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(ke - ka)}\n"
                f"Additional keys in the actual mapping: {sorted(ka - ke)}",
                id=id,
            )
        keys = ka
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        pairs = []
        for k in keys:
            pairs.extend(_originate_pairs(actual[k], expected[k], id=(*id, k), **options))
        return pairs
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
    raise _ErrorMeta(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        id=id,
    )


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg=None,
) -> None:
    """Assert that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Tensors, tensor-likes (NumPy arrays), Python and NumPy numbers, booleans and None compare,
    also nested in sequences and mappings. Values are close when
    ``|actual - expected| <= atol + rtol * |expected|``; the default tolerances depend on the
    dtype (float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7,
    others exact). ``msg`` (a string, or a function of the generated message) replaces the
    message.

    Raises:
        AssertionError: with torch's message when the inputs differ.

    Example:
        >>> ember.testing.assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 1e-7]))
        >>> ember.testing.assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 3.0]))
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 2 (50.0%)
        Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)
        Greatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)
    """
    __tracebackhide__ = True
    try:
        pairs = _originate_pairs(
            actual,
            expected,
            allow_subclasses=allow_subclasses,
            rtol=rtol,
            atol=atol,
            equal_nan=equal_nan,
            check_device=check_device,
            check_dtype=check_dtype,
            check_layout=check_layout,
            check_stride=check_stride,
        )
    except _ErrorMeta as err:
        raise err.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as err:
            raise err.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """Deprecated form of ``assert_close`` (looser tolerances, dtypes not checked)."""
    import warnings

    import ember

    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = ember.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = ember.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        table = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}
        pairs = [table.get(_dtype_name(t.dtype), (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
