"""``ember.autograd.profiler``: the legacy profiler API (PyTorch's
``torch.autograd.profiler``) over ``ember.profiler``'s CPU range recorder.

``profile(enabled=...)`` records the ``record_function`` ranges (see ``ember.profiler`` for
what is and is not recorded); ``emit_nvtx`` and ``emit_itt`` emit annotations for NVIDIA and
Intel tools, which have nothing to attach to on ember's CPU backend: they are accepted and do
nothing, as torch's do when those tools are not running.
"""

from __future__ import annotations

from ember import profiler as _profiler
from ember.profiler import EventList, record_function

__all__ = ["profile", "record_function", "emit_itt", "emit_nvtx", "EventList"]


class profile(_profiler.profile):
    """The legacy profiler: records ``record_function`` ranges between ``__enter__`` and
    ``__exit__`` when ``enabled``; ``key_averages()``, ``table()`` and
    ``export_chrome_trace()`` as ``ember.profiler.profile``.

    Example:
        >>> with ember.autograd.profiler.profile() as prof:
        ...     with ember.autograd.profiler.record_function("step"):
        ...         pass
        >>> [e.key for e in prof.key_averages()]
        ['step']
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device=None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config=None,
        acc_events: bool = False,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
        activity_filters=None,
    ):
        super().__init__(
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_flops=with_flops,
            with_modules=with_modules,
            acc_events=acc_events,
        )
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            return super().__enter__()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            return super().__exit__(*exc)
        return None


class emit_nvtx:
    """Context manager that would annotate each op for NVIDIA's nvprof/Nsight; ember runs no
    CUDA, so it does nothing.

    Example:
        >>> with ember.autograd.profiler.emit_nvtx():
        ...     pass
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False):
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class emit_itt(emit_nvtx):
    """Context manager that would annotate each op for Intel VTune (ITT); does nothing.

    Example:
        >>> with ember.autograd.profiler.emit_itt():
        ...     pass
    """
