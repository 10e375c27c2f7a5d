"""In-place random fills, attached as ``Tensor`` methods: ``uniform_``, ``normal_``,
``bernoulli_``, ``random_``, ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``."""

from __future__ import annotations

from ember import _dtype, backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import check_inference_write
from ember.ops.pointwise import inplace
from ember.random._helpers import (
    _CPP_NAME,
    _SCALAR_NAME,
    _acc,
    _check_float,
    _cpu,
    _empty,
    _g,
    _gen,
    _int,
    _not_impl,
    _num,
    _std_normal,
    _uniform01,
)
from ember.random.creation import _DIGITS, _draw_ints, _int_range
from ember.random.sampling import _check_p, _check_p_float, _sample_fn
from ember.tensor import Tensor


def _real_view(t: Tensor) -> Tensor:
    from ember.ops.complex import view_as_real  # (complex ops load on first use)

    return view_as_real(t)


_F32, _F64 = _dtype.float32._np, _dtype.float64._np

# ---- in-place fills ----------------------------------------------------------------------------
# Each fill is an out-of-place sampler (a zero-gradient Function named as PyTorch's node) turned
# into a method by ``inplace``: it writes into the tensor's memory, bumps the version counter, and
# raises on leaves that require grad outside no_grad, like every in-place op.
_UniformF = _sample_fn("UniformBackward0")
_NormalF = _sample_fn("NormalBackward0")
_BernoulliTF = _sample_fn("BernoulliBackward1")  # bernoulli_(Tensor p)
_BernoulliFF = _sample_fn("BernoulliBackward2")  # bernoulli_(float p)
_RandomFT = _sample_fn("RandomBackward0")  # random_(from, to)
_RandomT = _sample_fn("RandomBackward1")  # random_(to)
_Random = _sample_fn("RandomBackward2")  # random_()
_ExponentialF = _sample_fn("ExponentialBackward0")
_GeometricF = _sample_fn("GeometricBackward0")
_LogNormalF = _sample_fn("LogNormalBackward0")
_CauchyF = _sample_fn("CauchyBackward0")


def _fill(cls, self: Tensor, generator, sample, *extra):
    """Apply ``cls`` to ``self`` (and tensor ``extra``): ``sample(rng, shape, npd, *extra)``."""
    check_inference_write(self)
    gen = _gen(generator)
    npd = self._data.dtype

    def draw(x, *ex):
        xp = backend.namespace(x)
        if xp.device_type == "meta":
            return _empty(xp, x.shape, npd)
        return xp.asarray(sample(gen._rng, x.shape, npd, *ex)).astype(npd, copy=False)

    return cls.apply(self, *extra, draw)


def _fill_direct(self: Tensor, generator, draw_into) -> bool:
    """Draw straight into ``self``'s memory when nothing is recorded (an initializer under
    ``no_grad``, or a tensor that does not require grad) and ``self`` is a contiguous float32 or
    float64 cpu array: one pass over fresh pages instead of a sample, its scaling and a copy
    (a 100M-parameter model's default init is this). ``draw_into(rng, out)`` fills ``out`` with
    the same draws, in the same order, as the general path. False, having done nothing, when
    the case is not that one."""
    d = self._data
    if (
        d.__class__ is not _cpu.ndarray
        or (d.dtype != _F32 and d.dtype != _F64)
        or not d.flags.c_contiguous
        or not d.flags.writeable
        or (self._requires_grad and _gm.state.enabled)
    ):
        return False
    check_inference_write(self)
    draw_into(_gen(generator)._rng, d)
    self._vc[0] += 1
    return True


def _from_to(args, kwargs, names, defaults, fn):
    """Parse PyTorch's ``(from, to)``-style arguments (``from`` is a Python keyword)."""
    vals = list(args) + [None] * (len(names) - len(args))
    if len(args) > len(names):
        raise TypeError(f"{fn}() takes at most {len(names)} arguments ({len(args)} given)")
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if i < len(args):
            raise TypeError(f"{fn}() got multiple values for argument '{k}'")
        vals[i] = v
    return [d if v is None and d is not None else v for v, d in zip(vals, defaults, strict=True)]


def _uniform_fill(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    a, b = _from_to(args, kwargs, ("from", "to"), (0.0, 1.0), "uniform_")
    a, b = _num(a, "from", "uniform_"), _num(b, "to", "uniform_")
    npd = self._data.dtype
    if npd.kind == "c":  # NOTE: matches torch: each part uniform on [from, to)
        _uniform_fill(_real_view(self), a, b, generator=generator)
        return self
    _check_float(npd, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_g(a)} > to={_g(b)}"
        )
    fi = _cpu.finfo(npd)
    if b - a > float(fi.max):
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_CPP_NAME[npd.name]}>::max(), "
            f"but found to={_g(b)} and from={_g(a)} which result in to-from to exceed the limit"
        )

    def sample(rng, shape, d):
        acc = _acc(d)
        u = _uniform01(rng, shape, d)
        u *= acc.type(b - a)
        u += acc.type(a)
        return u

    def draw_into(rng, out):
        rng.random(dtype=out.dtype, out=out)
        out *= out.dtype.type(b - a)
        out += out.dtype.type(a)

    if _fill_direct(self, generator, draw_into):
        return self
    return _fill(_UniformF, self, generator, sample)


def _normal_fill(self: Tensor, mean=0.0, std=1.0, *, generator=None) -> Tensor:
    m, s = _num(mean, "mean", "normal_"), _num(std, "std", "normal_")
    if not s >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(s)}")
    if self._data.dtype.kind == "c":  # NOTE: matches torch: each part N(mean, std^2 / 2)
        _normal_fill(_real_view(self), m, s * 0.5**0.5, generator=generator)
        return self
    _check_float(self._data.dtype, "normal_kernel_cpu")

    def sample(rng, shape, d):
        acc = _acc(d)
        z = _std_normal(rng, shape, d)
        z *= acc.type(s)
        z += acc.type(m)
        return z

    def draw_into(rng, out):
        rng.standard_normal(dtype=out.dtype, out=out)
        out *= out.dtype.type(s)
        out += out.dtype.type(m)

    if _fill_direct(self, generator, draw_into):
        return self
    return _fill(_NormalF, self, generator, sample)


def _bernoulli_fill(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    if isinstance(p, Tensor):
        if p._data.dtype.kind not in "fV":
            raise _not_impl("bernoulli_tensor_cpu_p_", p._data.dtype)
        _broadcast_to(p.shape, self.shape)
        _check_p(p)

        def sample(rng, shape, d, pr):
            return rng.random(shape) < pr

        return _fill(_BernoulliTF, self, generator, sample, p)
    p = _num(p, "p", "bernoulli_")
    _check_p_float(p)
    return _fill(_BernoulliFF, self, generator, lambda rng, shape, d: rng.random(shape) < p)


def _broadcast_to(src, dst) -> None:
    src, dst = tuple(src), tuple(dst)
    ok = len(src) <= len(dst) and all(
        s == 1 or s == t for s, t in zip(src[::-1], dst[::-1], strict=False)
    )
    if not ok:
        raise RuntimeError(
            f"The expanded size of the tensor ({dst[-1] if dst else 1}) must match the existing "
            f"size ({src[-1] if src else 1}) at non-singleton dimension 0.  Target sizes: "
            f"{list(dst)}.  Tensor sizes: {list(src)}"
        )


def _random_fill(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    lo, hi = _from_to(args, kwargs, ("from", "to"), (None, None), "random_")
    npd = self._data.dtype
    if lo is not None and hi is None and "to" not in kwargs and len(args) == 1:
        lo, hi = 0, lo  # random_(to)
        cls = _RandomT
    elif lo is None and hi is not None:
        cls = _RandomT
    elif lo is None and hi is None:
        cls = _Random
    else:
        cls = _RandomFT
    if cls is _Random:
        if npd.kind in "fV":
            to_inc = 1 << _DIGITS[npd.name]
        elif npd.kind == "b":
            to_inc = 1
        else:
            to_inc = int(_cpu.iinfo(npd).max)
        lo = 0
    else:
        lo = 0 if lo is None else _int(lo, "from", "random_")
        hi = None if hi is None else _int(hi, "to", "random_")
        lo, to_inc = _int_range(npd, lo, hi)
    return _fill(cls, self, generator, lambda rng, s, d: _draw_ints(rng, s, d, lo, to_inc))


def _exponential_fill(self: Tensor, lambd=1.0, *, generator=None) -> Tensor:
    lam = _num(lambd, "lambd", "exponential_")
    if not lam > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lam)}")
    npd = self._data.dtype
    if npd.kind not in "fV":
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {_SCALAR_NAME[npd.name]}"
        )

    def sample(rng, shape, d):
        acc = _acc(d)
        return rng.standard_exponential(shape, dtype=acc) * acc.type(1.0 / lam)

    return _fill(_ExponentialF, self, generator, sample)


def _geometric_fill(self: Tensor, p, *, generator=None) -> Tensor:
    p = _num(p, "p", "geometric_")
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    npd = self._data.dtype
    if npd.kind == "b":
        raise _not_impl("geometric_cpu", npd)
    return _fill(_GeometricF, self, generator, lambda rng, shape, d: rng.geometric(p, shape))


def _log_normal_fill(self: Tensor, mean=1.0, std=2.0, *, generator=None) -> Tensor:
    m, s = _num(mean, "mean", "log_normal_"), _num(std, "std", "log_normal_")
    if not s > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(s)}")
    _check_float(self._data.dtype, "log_normal_cpu")
    return _fill(
        _LogNormalF,
        self,
        generator,
        lambda rng, shape, d: _cpu.exp(rng.standard_normal(shape) * s + m),
    )


def _cauchy_fill(self: Tensor, median=0.0, sigma=1.0, *, generator=None) -> Tensor:
    m, s = _num(median, "median", "cauchy_"), _num(sigma, "sigma", "cauchy_")
    if not s > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(s)}")
    npd = self._data.dtype
    if npd.kind not in "fV":
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {_CPP_NAME[npd.name]}"
        )
    return _fill(
        _CauchyF, self, generator, lambda rng, shape, d: rng.standard_cauchy(shape) * s + m
    )


def _method(fn, name: str, doc: str):
    m = inplace(fn)
    m.__name__ = name
    m.__qualname__ = f"Tensor.{name}"
    m.__doc__ = doc
    return m


Tensor.uniform_ = _method(
    _uniform_fill,
    "uniform_",
    """uniform_(from=0, to=1, *, generator=None)

Fill with samples uniform in [from, to) (floating dtypes).

Example:
    >>> ember.empty(3).uniform_(-1, 1).shape
    ember.Size([3])
""",
)
Tensor.normal_ = _method(
    _normal_fill,
    "normal_",
    """normal_(mean=0, std=1, *, generator=None)

Fill with samples from N(mean, std**2) (floating dtypes).""",
)
Tensor.bernoulli_ = _method(
    _bernoulli_fill,
    "bernoulli_",
    """bernoulli_(p=0.5, *, generator=None)

Fill with 1 with probability ``p`` (a number, or a tensor broadcast to this shape), else 0.""",
)
Tensor.random_ = _method(
    _random_fill,
    "random_",
    """random_(from=0, to=None, *, generator=None)

Fill with integers uniform in [from, to). ``random_(to)`` draws from [0, to); ``random_()`` from
[0, 2**mantissa_digits] for floating dtypes and [0, max] for integer dtypes; with ``to=None``
the upper bound is the dtype's limit.

Example:
    >>> ember.zeros(3, dtype=ember.int64).random_(0, 1)
    tensor([0, 0, 0])
""",
)
Tensor.exponential_ = _method(
    _exponential_fill,
    "exponential_",
    """exponential_(lambd=1, *, generator=None)

Fill with samples from the exponential distribution of rate ``lambd`` (floating dtypes).""",
)
Tensor.geometric_ = _method(
    _geometric_fill,
    "geometric_",
    """geometric_(p, *, generator=None)

Fill with samples from the geometric distribution on {1, 2, ...} with success probability ``p``.""",
)
Tensor.log_normal_ = _method(
    _log_normal_fill,
    "log_normal_",
    """log_normal_(mean=1, std=2, *, generator=None)

Fill with ``exp(N(mean, std**2))`` samples (floating dtypes).""",
)
Tensor.cauchy_ = _method(
    _cauchy_fill,
    "cauchy_",
    """cauchy_(median=0, sigma=1, *, generator=None)

Fill with samples from the Cauchy distribution (floating dtypes).""",
)
