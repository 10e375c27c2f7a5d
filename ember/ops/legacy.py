"""PyTorch's legacy tensor API: the typed tensor classes (``torch.FloatTensor(2, 3)``,
``isinstance(x, torch.LongTensor)``), ``Tensor.new``, ``Tensor.type(torch.DoubleTensor)``,
``torch.typename``, and the per-element Python callbacks ``apply_``/``map_``/``map2_``.

The typed classes are constructors, not subclasses of ``Tensor``: as in PyTorch,
``torch.FloatTensor(2)`` returns a plain ``Tensor`` and ``isinstance`` checks the dtype (and
the CPU device) through the metaclass.
"""

from __future__ import annotations

from ember import _dtype
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
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

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


_plain_type = Tensor.type


def _type(self: Tensor, dtype=None, non_blocking=False, **kwargs):
    """With no argument the type name (``'torch.FloatTensor'``); else a copy converted to
    ``dtype`` (a dtype, a name such as ``'torch.DoubleTensor'`` or a typed class)."""
    if isinstance(dtype, _TensorType):
        dtype = dtype.dtype
    return _plain_type(self, dtype, non_blocking, **kwargs)


Tensor.type = _type


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


# ---- per-element Python callbacks (CPU only) -----------------------------------------------------
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
