"""``ember.nn.parallel.distributed`` (torch's file of the same name): ``DistributedDataParallel``,
which ember does not have (no ``torch.distributed``).

The class exists so that scripts import it and test ``isinstance(model, DistributedDataParallel)``
(always False, as every ember module is not one); building one raises ``NotImplementedError``
saying why. Wrap nothing and train the model itself, or use ``ember.nn.DataParallel``.

Example:
    >>> from ember.nn.parallel import DistributedDataParallel
    >>> isinstance(ember.nn.Linear(2, 2), DistributedDataParallel)
    False
"""

from ember import _unsupported

__all__: list[str] = []  # a stand-in only: __all__ lists what ember implements

DistributedDataParallel = _unsupported._stub_class(
    f"{__name__}.DistributedDataParallel", _unsupported._DISTRIBUTED, __name__
)
