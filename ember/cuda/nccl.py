"""``ember.cuda.nccl``: NVIDIA's collective-communication library, absent from a CPU-only stack.

``is_available`` answers False (with torch's warning); the collectives raise what a CPU-only
torch raises. Multi-process CPU training goes through ``torch.distributed`` instead.
"""

from __future__ import annotations

import warnings

from ember.cuda._utils import no_binding

__all__ = ["all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter"]

SUM = 0  # ncclRedOp_t


def is_available(tensors) -> bool:
    """Whether NCCL can run a collective on ``tensors``: False, with torch's warning."""
    warnings.warn("PyTorch is not compiled with NCCL support", stacklevel=2)
    return False


def version():
    """NCCL's version: raises, as a CPU-only torch."""
    raise no_binding("_nccl_version")


def unique_id():
    """A new NCCL communicator id: raises, as a CPU-only torch."""
    raise no_binding("_nccl_unique_id")


def init_rank(num_ranks, uid, rank):
    """Join an NCCL communicator: raises, as a CPU-only torch."""
    raise no_binding("_nccl_init_rank")


def all_reduce(inputs, outputs=None, op=SUM, streams=None, comms=None):
    """NCCL all-reduce: raises, as a CPU-only torch."""
    raise no_binding("_nccl_all_reduce")


def reduce(inputs, output=None, root=0, op=SUM, streams=None, comms=None, *, outputs=None):
    """NCCL reduce: raises, as a CPU-only torch."""
    raise no_binding("_nccl_reduce")


def broadcast(inputs, root=0, streams=None, comms=None):
    """NCCL broadcast: raises, as a CPU-only torch."""
    raise no_binding("_nccl_broadcast")


def all_gather(inputs, outputs, streams=None, comms=None):
    """NCCL all-gather: raises, as a CPU-only torch."""
    raise no_binding("_nccl_all_gather")


def reduce_scatter(inputs, outputs, op=SUM, streams=None, comms=None):
    """NCCL reduce-scatter: raises, as a CPU-only torch."""
    raise no_binding("_nccl_reduce_scatter")
