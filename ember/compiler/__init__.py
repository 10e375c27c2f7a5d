"""``ember.compiler``: torch.compiler's API for a library that always runs eagerly.

ember has no graph compiler: ``compile`` returns its argument, nothing is ever "compiling"
(``is_compiling()`` is False), and the decorators that steer compilation (``disable``,
``allow_in_graph``, ``assume_constant_result``, ``substitute_in_graph``,
``nested_compile_region``, ``set_stance``) return the function unchanged, so code written for
torch.compile runs with the same results. The cache calls have no artifacts to save or load.

Example:
    >>> @ember.compiler.disable
    ... def f(x):
    ...     return x + 1
    >>> f(ember.tensor(1.0)), ember.compiler.is_compiling()
    (tensor(2.), False)
"""

from __future__ import annotations

from ember._environment import compile  # noqa: A004  (torch's name)
from ember.compiler import config

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "compile",
    "config",
    "cudagraph_mark_step_begin",
    "disable",
    "get_default_backend",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "keep_portable_guards_unsafe",
    "keep_tensor_guards_unsafe",
    "list_backends",
    "load_cache_artifacts",
    "load_compiled_function",
    "nested_compile_region",
    "reset",
    "save_cache_artifacts",
    "set_default_backend",
    "set_enable_guard_collectives",
    "set_stance",
    "skip_all_guards_unsafe",
    "skip_guard_on_all_nn_modules_unsafe",
    "skip_guard_on_globals_unsafe",
    "skip_guard_on_inbuilt_nn_modules_unsafe",
    "substitute_in_graph",
    "wrap_numpy",
]

_STANCES = (
    "default",
    "force_eager",
    "eager_on_recompile",
    "fail_on_recompile",
    "eager_then_compile",
    "aot_eager_then_compile",
)
_state = {"stance": "default", "backend": "inductor", "guard_collectives": False}


def is_compiling() -> bool:
    """False: ember never traces or compiles (torch: True inside torch.compile/export)."""
    return False


def is_dynamo_compiling() -> bool:
    """False: ember has no Dynamo tracer."""
    return False


def is_exporting() -> bool:
    """False: ember has no torch.export."""
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Exclude ``fn`` from compilation: ``fn`` itself, since nothing is compiled. Usable as
    ``disable(fn)``, ``@disable`` and ``@disable(reason=...)``.

    Example:
        >>> ember.compiler.disable(abs)(-2)
        2
    """
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    """Let the tracer put ``fn`` in the graph as is: returns ``fn`` (no tracer)."""
    return fn


def assume_constant_result(fn):
    """Treat ``fn``'s result as a constant while tracing: returns ``fn`` (no tracer)."""
    return fn


def substitute_in_graph(
    original_fn, *, can_constant_fold_through: bool = False, skip_signature_check: bool = False
):
    """Register a traceable substitute for ``original_fn``: the decorator returns the
    substitute unchanged, and eager calls of ``original_fn`` stay as they are."""
    if not callable(original_fn):
        raise TypeError(f"substitute_in_graph expects a function, got {type(original_fn)}")

    def wrapper(traceable_fn):
        return traceable_fn

    return wrapper


def nested_compile_region(fn=None, *, options=None, max_reuse_entries: int = 8, reuse_hash_fn=None):
    """Mark ``fn`` as a region compiled once and reused: ``fn`` itself in eager code. Usable
    with or without arguments."""
    if fn is None:
        return lambda f: f
    return fn


def wrap_numpy(fn):
    """Let a function written for NumPy arrays take and return tensors.

    Example:
        >>> ember.compiler.wrap_numpy(lambda a: a + 1)(ember.ones(2))
        tensor([2., 2.])
    """
    import functools

    from ember.func._tree import tree_map
    from ember.tensor import Tensor

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        from ember.ops.creation import from_numpy

        args, kwargs = tree_map(lambda x: x.numpy() if isinstance(x, Tensor) else x, (args, kwargs))
        out = fn(*args, **kwargs)
        return tree_map(lambda x: from_numpy(x) if type(x).__name__ == "ndarray" else x, out)

    return wrapped


class set_stance:
    """Set how ``torch.compile`` behaves (as a call, a context manager or a decorator). ember's
    ``compile`` is always eager, so every stance runs the same code; the stance is recorded and
    restored as in torch."""

    def __init__(
        self,
        stance: str = "default",
        *,
        skip_guard_eval_unsafe: bool = False,
        force_backend=None,
    ):
        # NOTE: matches torch: an unknown stance is not rejected here
        self.prev = _state["stance"]
        self.stance = stance
        _state["stance"] = stance

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            prev = _state["stance"]
            _state["stance"] = self.stance
            try:
                return fn(*args, **kwargs)
            finally:
                _state["stance"] = prev

        _state["stance"] = self.prev  # as a decorator it applies inside the call only
        return wrapped

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        _state["stance"] = self.prev


def reset() -> None:
    """Clear the compilation caches: there are none."""
    return None


def cudagraph_mark_step_begin() -> None:
    """Mark a new CUDA-graph step: a no-op (no CUDA graphs)."""
    return None


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The registered compile backends: none in ember (``compile`` ignores ``backend``)."""
    return []


def get_default_backend():
    """The backend ``compile`` would use when given none (recorded only)."""
    return _state["backend"]


def set_default_backend(backend) -> None:
    """Record the default backend (ember's ``compile`` runs eagerly whatever it is)."""
    _state["backend"] = "inductor" if backend is None else backend


def set_enable_guard_collectives(enabled: bool) -> bool:
    """Record the flag and return its previous value (no guards in ember)."""
    prev = _state["guard_collectives"]
    _state["guard_collectives"] = bool(enabled)
    return prev


def save_cache_artifacts():
    """The compile-cache artifacts to save: None, ember makes none."""
    return None


def load_cache_artifacts(serialized_artifacts: bytes):
    """Load compile-cache artifacts: None (nothing to load into)."""
    return None


def load_compiled_function(file, *, f_globals=None, external_data=None):
    """Load a function saved by torch's precompile: ember cannot, it has no compiled code."""
    raise RuntimeError(
        "load_compiled_function: ember has no compiler, so it cannot load torch's precompiled "
        "functions; call the original Python function instead"
    )


def skip_all_guards_unsafe(guard_entries):
    """A guard filter that drops every guard (ember has none): ``[False] * len(entries)``."""
    return [False] * len(guard_entries)


def keep_portable_guards_unsafe(guard_entries):
    """A guard filter (ember has no guards): keeps every entry."""
    return [True] * len(guard_entries)


def keep_tensor_guards_unsafe(guard_entries, keep_parameters=False):
    """A guard filter (ember has no guards): keeps every entry."""
    return [True] * len(guard_entries)


def skip_guard_on_globals_unsafe(guard_entries):
    """A guard filter (ember has no guards): keeps every entry."""
    return [True] * len(guard_entries)


def skip_guard_on_all_nn_modules_unsafe(guard_entries):
    """A guard filter (ember has no guards): keeps every entry."""
    return [True] * len(guard_entries)


def skip_guard_on_inbuilt_nn_modules_unsafe(guard_entries):
    """A guard filter (ember has no guards): keeps every entry."""
    return [True] * len(guard_entries)
