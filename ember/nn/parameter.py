"""``Parameter`` and ``Buffer``: the two tensor kinds a Module registers by assignment.

Assigning a ``Parameter`` to a Module attribute registers it in ``_parameters``; wrapping a
tensor in ``Buffer`` does the same for ``_buffers`` (see ``modules/module.py``). Both share
their data with the tensor they were made from.
"""

from __future__ import annotations

from ember.tensor import Tensor, _init

_new = object.__new__


class Parameter(Tensor):
    """A tensor that a Module registers as a parameter when assigned to one of its attributes.

    ``Parameter(data, requires_grad=True)`` shares ``data``'s memory and is a leaf; grad mode
    does not change its ``requires_grad``. Results of operations on it are plain Tensors.

    Example:
        >>> w = ember.nn.Parameter(ember.zeros(2))
        >>> w.requires_grad
        True
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from ember.ops.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        t = _new(cls)
        _init(t, data._data, False)
        t._vc = data._vc
        if requires_grad:
            t.requires_grad_(True)
        return t

    def __init__(self, *args, **kwargs):
        pass

    def __deepcopy__(self, memo):
        # As in PyTorch: a deep copy is a fresh Parameter over cloned data; .grad is not copied.
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_hooks", "_post_acc_hooks")}
        return (_rebuild_parameter, (self.data, self.requires_grad, state))


def _rebuild_parameter(data, requires_grad, state):
    p = Parameter(data, requires_grad)
    p.__dict__.update(state)
    return p


class _BufferMeta(type):
    # ``isinstance(t, Buffer)`` is true for tensors marked by ``Buffer(...)``; ``Buffer`` itself
    # returns a plain Tensor, so the mark is all that distinguishes it.
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and instance.__dict__.get("_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute.

    ``Buffer(data, persistent=True)`` returns a detached Tensor sharing ``data``'s memory;
    a non-persistent buffer is left out of ``state_dict``.

    Example:
        >>> m = ember.nn.Module()
        >>> m.running_mean = ember.nn.Buffer(ember.zeros(3))
        >>> list(m.state_dict())
        ['running_mean']
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            from ember.ops.creation import empty

            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


_SLOT_DATA = Tensor._data  # the storage slot, reached past the mixin's guard below

_UNINIT_OP = (
    "Attempted to use an uninitialized parameter or buffer ({name}). This error happens when "
    "you are using a `LazyModule` or explicitly manipulating "
    "`ember.nn.parameter.{cls}` objects. When using LazyModules Call `forward` with a dummy "
    "batch to initialize the parameters before calling ember functions"
)


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (lazy modules).

    It keeps a dtype, a device and ``requires_grad``; changing dtype or device works, and
    ``materialize(shape)`` gives it storage and turns it into ``cls_to_become``. Any other use
    raises: every op reads a tensor's ``_data``, which this class guards.
    """

    __slots__ = ()
    cls_to_become: type = Tensor

    @property
    def _data(self):
        raise ValueError(_UNINIT_OP.format(name="an ember op", cls=type(self).__name__))

    @property
    def data(self) -> Tensor:
        from ember.tensor import _wrap

        return _wrap(_SLOT_DATA.__get__(self))

    @data.setter
    def data(self, value: Tensor) -> None:
        # ``Module._apply`` converts through here: keep the new dtype and device, no shape.
        _SLOT_DATA.__set__(self, _storage(value))

    @property
    def dtype(self):
        from ember import _dtype

        return _dtype.from_np(_SLOT_DATA.__get__(self).dtype)

    @property
    def device(self):
        from ember._device import device
        from ember.backend import namespace

        return device(namespace(_SLOT_DATA.__get__(self)).device_type)

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes."
        )

    def size(self, dim=None):
        self.shape  # noqa: B018  (raises)

    def dim(self):
        self.shape  # noqa: B018  (raises)

    def is_floating_point(self) -> bool:
        return _SLOT_DATA.__get__(self).dtype.kind in "fV"

    def is_complex(self) -> bool:
        return False

    def requires_grad_(self, requires_grad: bool = True):
        self._requires_grad = bool(requires_grad)
        return self

    def to(self, *args, **kwargs):
        from ember.ops.conversion import _parse_to

        device, dtype, _nb, _copy = _parse_to(args, dict(kwargs))
        return self._like(device=device, dtype=dtype)

    def cpu(self, memory_format=None):
        return self._like(device="cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        return self._like(device="cuda")

    def float(self, memory_format=None):
        from ember import _dtype

        return self._like(dtype=_dtype.float32)

    def double(self, memory_format=None):
        from ember import _dtype

        return self._like(dtype=_dtype.float64)

    def half(self, memory_format=None):
        from ember import _dtype

        return self._like(dtype=_dtype.float16)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            raise ValueError(_UNINIT_OP.format(name="type", cls=type(self).__name__))
        from ember.ops.conversion import _TYPE_NAMES

        return self._like(dtype=_TYPE_NAMES.get(dtype, dtype))

    def _like(self, device=None, dtype=None):
        new = type(self)(
            self._requires_grad,
            device if device is not None else self.device,
            dtype if dtype is not None else self.dtype,
        )
        new.__dict__.update(self.__dict__)
        return new

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give this tensor storage of ``shape`` (uninitialized memory) on its device and
        dtype, or the ones given, and turn it into a ``cls_to_become``."""
        from ember.ops.creation import empty

        data = empty(
            shape,
            device=device if device is not None else self.device,
            dtype=dtype if dtype is not None else self.dtype,
        )
        _SLOT_DATA.__set__(self, data._data)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, proto):
        return (
            _rebuild_uninitialized,
            (type(self), self._requires_grad, self.device.type, self.dtype, dict(self.__dict__)),
        )

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = self._like()
        memo[id(self)] = result
        return result


def _storage(value: Tensor):
    """A zero-size array with ``value``'s dtype and device (what an uninitialized tensor
    holds)."""
    from ember.ops.creation import empty

    return empty(0, dtype=value.dtype, device=value.device)._data


def _rebuild_uninitialized(cls, requires_grad, device, dtype, state):
    t = cls(requires_grad, device, dtype)
    t.__dict__.update(state)
    return t


def _uninitialized(cls, requires_grad, device, dtype):
    from ember.ops.creation import empty

    t = _new(cls)
    _SLOT_DATA.__set__(t, empty(0, device=device, dtype=dtype)._data)
    t._requires_grad = bool(requires_grad)
    t._grad = None
    t._grad_fn = None
    t._vc = [0]
    t._base = None
    return t


def is_lazy(param) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter of a lazy module whose shape is set at the first forward
    (``materialize``), when it becomes a ``Parameter``."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module whose shape is set at the first forward, when it becomes a
    plain Tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        t = _uninitialized(cls, requires_grad, device, dtype)
        t.persistent = persistent
        t._is_buffer = True
        return t


__all__ = [
    "Parameter",
    "Buffer",
    "UninitializedTensorMixin",
    "UninitializedParameter",
    "UninitializedBuffer",
    "is_lazy",
]
