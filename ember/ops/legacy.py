"""PyTorch's legacy tensor API: the typed tensor classes (``torch.FloatTensor(2, 3)``,
``isinstance(x, torch.LongTensor)``), ``Tensor.new``, ``Tensor.type(torch.DoubleTensor)``,
``torch.typename``, and the per-element Python callbacks ``apply_``/``map_``/``map2_``.

The typed classes are constructors, not subclasses of ``Tensor``: as in PyTorch,
``torch.FloatTensor(2)`` returns a plain ``Tensor`` and ``isinstance`` checks the dtype (and
the CPU device) through the metaclass.
"""

from __future__ import annotations

from ember import _dtype, _layout
from ember.autograd.function import check_inference_write
from ember.ops._dispatch import xp_of
from ember.tensor import Tensor, _wrap

__all__ = [
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "HalfTensor",
    "FloatTensor",
    "DoubleTensor",
    "set_default_tensor_type",
    "typename",
]


def _new_of(dt, args, kwargs, what: str):
    """The legacy constructor: ``(*sizes)``, ``(size=...)``, ``(sequence)``, ``(tensor)``,
    ``(storage)`` or ``()``, with dtype ``dt``."""
    import ember
    from ember.storage import TypedStorage, UntypedStorage, _storage_array

    device = kwargs.pop("device", None)
    size = kwargs.pop("size", None)
    if kwargs:
        raise TypeError(f"{what}() got unexpected keyword arguments {sorted(kwargs)}")
    if size is not None:
        if args:
            raise TypeError(f"{what}(): size= cannot be combined with positional arguments")
        args = tuple(size)
    if not args:
        return ember.empty(0, dtype=dt, device=device)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return ember.empty(*args, dtype=dt, device=device)
    if len(args) == 1:
        (a,) = args
        if isinstance(a, Tensor):
            if a.dtype is not dt:
                from ember.ops.tensor_surface import _ctype

                raise TypeError(
                    f"expected TensorOptions(dtype={_ctype(dt._np)}, device=cpu) (got "
                    f"TensorOptions(dtype={_ctype(a._data.dtype)}, device=cpu))"
                )
            return a.detach() if a._grad_fn is None else a
        if isinstance(a, (TypedStorage, UntypedStorage)):
            return _wrap(_storage_array(a, dt._np))
        if isinstance(a, ember.Size):
            return ember.empty(*a, dtype=dt, device=device)
        return ember.tensor(a, dtype=dt, device=device)
    raise TypeError(f"{what}() expects sizes or one data argument, got {args!r:.200}")


def _new(self: Tensor, *args, **kwargs) -> Tensor:
    """Legacy: a tensor of this tensor's dtype from sizes, data, a tensor or a storage.

    Example:
        >>> ember.zeros(2, dtype=ember.int64).new([1, 2])
        tensor([1, 2])
    """
    if "dtype" in kwargs:
        raise TypeError(
            "new() received an invalid combination of arguments - got dtype=; use "
            "new_empty/new_tensor/new_zeros, which take dtype="
        )
    kwargs.setdefault("device", self.device)
    return _new_of(self.dtype, args, kwargs, "new")


Tensor.new = _new


class _TensorType(type):
    """Metaclass of the typed tensor classes: calling one builds a ``Tensor`` of its dtype;
    ``isinstance`` accepts CPU tensors of that dtype."""

    def __call__(cls, *args, **kwargs):
        return _new_of(cls.dtype, args, dict(kwargs), cls.__name__)

    def __instancecheck__(cls, obj) -> bool:
        # NOTE: matches torch: a sparse tensor is none of the dense types
        return (
            isinstance(obj, Tensor)
            and obj.dtype is cls.dtype
            and obj.device.type == "cpu"
            and not obj.is_sparse
            and obj.layout is _layout.strided
        )

    @property
    def is_cuda(cls) -> bool:
        return False

    @property
    def is_sparse(cls) -> bool:
        return False


def _typed(name: str, dt) -> type:
    cls = _TensorType(name, (), {"dtype": dt, "__module__": "ember", "__slots__": ()})
    cls.__doc__ = f"Legacy constructor of ``{dt}`` tensors (PyTorch's ``torch.{name}``)."
    return cls


BoolTensor = _typed("BoolTensor", _dtype.bool)
ByteTensor = _typed("ByteTensor", _dtype.uint8)
CharTensor = _typed("CharTensor", _dtype.int8)
ShortTensor = _typed("ShortTensor", _dtype.int16)
IntTensor = _typed("IntTensor", _dtype.int32)
LongTensor = _typed("LongTensor", _dtype.int64)
HalfTensor = _typed("HalfTensor", _dtype.float16)
FloatTensor = _typed("FloatTensor", _dtype.float32)
DoubleTensor = _typed("DoubleTensor", _dtype.float64)
if hasattr(_dtype, "bfloat16"):
    BFloat16Tensor = _typed("BFloat16Tensor", _dtype.bfloat16)
    __all__.append("BFloat16Tensor")


def set_default_tensor_type(t) -> None:
    """Legacy: set the default dtype from a typed class or its name (``'torch.DoubleTensor'``).
    Deprecated in PyTorch 2.1 (and warns here too): use ``set_default_dtype``.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.set_default_tensor_type(ember.DoubleTensor)
        ...     d = ember.get_default_dtype()
        ...     ember.set_default_tensor_type("torch.FloatTensor")
        >>> d
        ember.float64
    """
    import warnings

    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        from ember.ops.conversion import _TYPE_NAMES

        if t not in _TYPE_NAMES:
            raise TypeError(f"invalid type: '{t}'")
        dt = _TYPE_NAMES[t]
    elif isinstance(t, _TensorType):
        dt = t.dtype
    else:
        raise TypeError(f"invalid type: {t!r}")
    if dt.name not in ("float16", "float32", "float64", "bfloat16"):
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(dt)


def typename(obj) -> str:
    """The type name of ``obj``: ``'torch.FloatTensor'`` for tensors (PyTorch's names, so
    code comparing them keeps working), else ``module.QualifiedName``.

    Example:
        >>> ember.typename(ember.zeros(1)), ember.typename(3)
        ('torch.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qual = ""
    if hasattr(obj, "__qualname__"):
        qual = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qual = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qual = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qual
    return f"{module}.{qual}"


# ---- deprecated out-of-place resize, subclass views, pointers --------------------------------
def _resize(self: Tensor, *sizes) -> Tensor:
    """Deprecated: ``self`` with a new shape of the same number of elements (a view)."""
    import math
    import warnings

    from ember.ops.shape import _size_args

    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    shape = _size_args(sizes)
    n = math.prod(shape)
    if n != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, shape))} ({n} elements in total), but the "
            f"given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} "
            "elements). autograd's resize can only change the shape of a given tensor, while "
            "preserving the number of elements. "
        )
    return self.reshape(shape)


def _resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated: :meth:`resize` to ``tensor``'s shape."""
    import warnings

    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _resize(self, tensor.shape)


def _as_subclass(self: Tensor, cls) -> Tensor:
    """A view of ``self`` (same data, same autograd history) whose class is ``cls``.

    Example:
        >>> class Mine(ember.Tensor):
        ...     pass
        >>> type(ember.ones(2).as_subclass(Mine)).__name__
        'Mine'
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass: expected a subclass of Tensor, got {cls!r}")
    out = self.view_as(self)
    out.__class__ = cls
    return out


def _const_data_ptr(self: Tensor) -> int:
    """``data_ptr()`` (ember has no read-only pointer distinction)."""
    return self.data_ptr()


Tensor.resize = _resize
Tensor.resize_as = _resize_as
Tensor.as_subclass = _as_subclass
Tensor.const_data_ptr = _const_data_ptr


# ---- per-element Python callbacks (CPU only) -------------------------------------------------
def _elementwise(self: Tensor, name: str, fn, others) -> Tensor:
    if self._requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )
    check_inference_write(self)
    a = self._data
    xp = xp_of(a)
    if xp.device_type != "cpu":
        raise TypeError(f"{name}_ is only implemented on CPU tensors, got {self.device}")
    args = [a] + [xp.broadcast_to(o._data, a.shape) for o in others]
    # NOTE: matches torch: one Python call per element (there is no faster way to run fn)
    out = xp.frompyfunc(fn, len(args), 1)(*args)
    a[...] = xp.asarray(out).astype(a.dtype)
    self._vc[0] += 1
    return self


def _apply_(self: Tensor, callable) -> Tensor:  # noqa: A002  (PyTorch's argument name)
    """Replace each element ``v`` with ``callable(v)`` (a Python call per element; slow).

    Example:
        >>> ember.tensor([1.0, 2.0]).apply_(lambda v: v * 10)
        tensor([10., 20.])
    """
    return _elementwise(self, "apply_", callable, ())


def _map_(self: Tensor, tensor: Tensor, callable) -> Tensor:  # noqa: A002
    """Replace each element ``a`` with ``callable(a, b)``, ``b`` from ``tensor`` (broadcast).

    Example:
        >>> ember.zeros(2).map_(ember.tensor([1.0, 2.0]), lambda a, b: a + b + 1)
        tensor([2., 3.])
    """
    return _elementwise(self, "map_", callable, (tensor,))


def _map2_(self: Tensor, x: Tensor, y: Tensor, callable) -> Tensor:  # noqa: A002
    """Replace each element ``a`` with ``callable(a, b, c)`` over ``x`` and ``y`` (broadcast).

    Example:
        >>> ember.zeros(2).map2_(ember.ones(2), ember.ones(2), lambda a, b, c: a + b + c)
        tensor([2., 2.])
    """
    return _elementwise(self, "map2_", callable, (x, y))


Tensor.apply_ = _apply_
Tensor.map_ = _map_
Tensor.map2_ = _map2_
