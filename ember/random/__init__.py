"""Random number generation: ``Generator``, seeding, and the random creation and fill ops.

Every draw comes from a ``Generator``, which wraps the backend's bit generator (NumPy's PCG64 on
the CPU). The distributions, dtypes, shapes, argument checks and seeding semantics are
PyTorch's: ``manual_seed(s)`` followed by the same calls gives the same numbers, each
``Generator`` has its own independent stream, and ``get_state``/``set_state`` round-trip
exactly. The numbers themselves are not PyTorch's (PyTorch uses a Mersenne Twister and its own
transformations): code that needs bit-identical random streams across the two libraries must
copy the tensors over.

As in PyTorch, the default generator (``ember.default_generator``) is seeded from the operating
system at import (``initial_seed()`` differs per process until ``manual_seed`` is called), and a
new ``Generator()`` starts from the fixed seed 67280421310721.

Random ops have no gradient: outputs of ``normal(mean_tensor, ...)``, ``bernoulli(p)``,
``poisson(rates)`` and of the in-place fills (``x.uniform_()``...) on tensors that take part in
autograd get a node whose backward is zero, as in PyTorch.

Example:
    >>> ember.manual_seed(0)
    <ember.Generator object at ...>
    >>> a = ember.rand(3); _ = ember.manual_seed(0); bool((ember.rand(3) == a).all())
    True

The code lives in sibling files: ``generator.py`` (``Generator``, seeding, state),
``creation.py`` (``rand``, ``randint``, ``randperm``...), ``sampling.py`` (``normal``,
``bernoulli``, ``poisson``, ``multinomial``), ``fills.py`` (the in-place ``Tensor`` fills) and
``_helpers.py`` (argument checks and raw-array samplers).
"""

from ember.random import fills  # noqa: F401  (attaches the in-place fill methods to Tensor)
from ember.random.creation import (
    rand,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    rand_like,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    randint,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    randint_like,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    randn,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    randn_like,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    randperm,  # noqa: F401  (ember exports them, see TOP_LEVEL)
)
from ember.random.generator import (
    Generator,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    default_generator,  # noqa: F401  (ember exports them, see TOP_LEVEL)
    fork_rng,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
    thread_safe_generator,
)
from ember.random.sampling import bernoulli, multinomial, normal, poisson  # noqa: F401

# torch.random's public names; ``ember`` itself exports ``TOP_LEVEL`` (the random ops live at
# ``torch.rand``..., not ``torch.random.rand``)
__all__ = [
    "set_rng_state",
    "get_rng_state",
    "manual_seed",
    "seed",
    "initial_seed",
    "fork_rng",
    "thread_safe_generator",
]
TOP_LEVEL = (
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "rand",
    "randn",
    "randint",
    "randint_like",
    "randperm",
    "normal",
    "bernoulli",
    "multinomial",
    "poisson",
    "rand_like",
    "randn_like",
)
