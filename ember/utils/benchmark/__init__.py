"""``ember.utils.benchmark`` (PyTorch's ``torch.utils.benchmark``): ``Timer`` runs a statement
in timed blocks and gives a ``Measurement`` (median, IQR, significant figures); ``Compare``
prints measurements as a table.

Not supported: C++ statements and ``Timer.collect_callgrind`` (both need torch's C++ build),
and the fuzzers.

Example:
    >>> from ember.utils import benchmark
    >>> m = benchmark.Timer("x @ x", setup="x = ember.ones(8, 8)").timeit(100)
    >>> m.number_per_run
    100
"""

from ember.utils.benchmark.utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from ember.utils.benchmark.utils.compare import Colorize, Compare
from ember.utils.benchmark.utils.timer import Language, Timer, timer

__all__ = ["Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer", "timer"]
__all__ += ["ordered_unique", "select_unit", "set_torch_threads", "trim_sigfig"]
__all__ += ["unit_to_english"]
