"""``Generator`` and the default generator's seeding and state (``torch.random``): ``manual_seed``,
``seed``, ``initial_seed``, ``get_rng_state``/``set_rng_state`` and ``fork_rng``."""

from __future__ import annotations

import contextlib
import os

from ember import _dtype, backend
from ember._device import as_device
from ember.ops.creation import _finish
from ember.tensor import Tensor

_cpu = backend.cpu
_U64 = 1 << 64
_DEFAULT_SEED = 67280421310721  # PyTorch's seed of a new Generator()


# ---- Generator ---------------------------------------------------------------------------------
class Generator:
    """A source of random numbers with its own state (``torch.Generator``).

    Pass it as ``generator=`` to any random function to draw from it instead of the default
    generator. A new Generator starts from PyTorch's fixed seed 67280421310721.

    Example:
        >>> g = ember.Generator().manual_seed(42)
        >>> a = ember.rand(2, generator=g)
        >>> bool((ember.rand(2, generator=ember.Generator().manual_seed(42)) == a).all())
        True
    """

    def __init__(self, device="cpu"):
        d = as_device(device if device is not None else "cpu")
        if d.type == "meta":
            raise RuntimeError("META device type not an accelerator.")
        if d.type == "cuda":
            # NOTE: matches torch: a CPU-only build has no CUDA generator
            raise RuntimeError(
                "Cannot get CUDA generator without ATen_cuda library: ember has no CUDA "
                "backend; use Generator() (the CPU) instead."
            )
        if d.type != "cpu":
            backend.for_device(d.type)  # raises a clear error for devices ember lacks
        self.device = d
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed) -> Generator:
        """Reset the state from ``seed`` (an int in [-2**63, 2**64); negatives wrap mod 2**64)
        and return ``self``."""
        if (
            isinstance(seed, bool)
            or not isinstance(seed, (int, backend.generic))
            or (isinstance(seed, backend.generic) and seed.dtype.kind not in "iu")
        ):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed < _U64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % _U64
        self._rng = _cpu.random.Generator(_cpu.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy and return the seed used."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self) -> Tensor:
        """The full state as a uint8 tensor (seed, PCG64 state and increment, buffered bits)."""
        st = self._rng.bit_generator.state
        raw = (
            self._seed.to_bytes(8, "little")
            + st["state"]["state"].to_bytes(16, "little")
            + st["state"]["inc"].to_bytes(16, "little")
            + int(st["has_uint32"]).to_bytes(8, "little")
            + int(st["uinteger"]).to_bytes(8, "little")
        )
        return _finish(_cpu.frombuffer(raw, dtype=_cpu.uint8).copy(), False)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state returned by ``get_state``; returns ``self``."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected an ember.uint8 tensor, but got {type(new_state).__name__}")
        if new_state.dtype is not _dtype.uint8:
            raise TypeError(
                f"RNG state must be an ember.uint8 tensor (a ByteTensor), got {new_state.dtype}"
            )
        if new_state.is_meta:
            raise RuntimeError("RNG state must hold data: got a meta tensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a PCG64 generator state of size {_STATE_SIZE} but found the input RNG "
                f"state size to be {new_state.numel()}"
            )
        raw = bytes(new_state.detach().numpy().reshape(-1))
        self._seed = int.from_bytes(raw[0:8], "little")
        rng = _cpu.random.Generator(_cpu.random.PCG64())
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": int.from_bytes(raw[8:24], "little"),
                "inc": int.from_bytes(raw[24:40], "little"),
            },
            "has_uint32": int.from_bytes(raw[40:48], "little"),
            "uinteger": int.from_bytes(raw[48:56], "little"),
        }
        self._rng = rng
        return self

    def clone_state(self) -> Generator:
        """A new generator on the same device in this generator's exact state."""
        g = Generator(self.device)
        g.set_state(self.get_state())
        return g

    def graphsafe_get_state(self) -> Generator:
        """CUDA-graph-safe state: not supported by a CPU generator (as in torch)."""
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state) -> Generator:
        """CUDA-graph-safe state: not supported by a CPU generator (as in torch)."""
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def get_offset(self) -> int:
        """The Philox offset: CPU generators have none (as in torch)."""
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> Generator:
        """The Philox offset: CPU generators have none (as in torch)."""
        raise RuntimeError("CPU Generator does not use offset")

    def __reduce__(self):
        # Pickling (and deepcopy) keeps the device and the exact state, as torch's Generator.
        return (_rebuild_generator, (str(self.device), self.get_state()))

    def __repr__(self) -> str:
        return f"<ember.Generator object at {hex(id(self))}>"


def _rebuild_generator(device, state) -> Generator:
    return Generator(device).set_state(state)


_STATE_SIZE = 56

default_generator = Generator()
default_generator.seed()  # NOTE: matches torch: the default CPU generator is seeded from the OS


def manual_seed(seed) -> Generator:
    """Seed the default generator and return it.

    Example:
        >>> g = ember.manual_seed(0); g.initial_seed()
        0
    """
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the operating system and return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state as a uint8 tensor (see ``set_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices=None,
    enabled: bool = True,
    _caller="fork_rng",
    _devices_kw="devices",
    device_type=None,
):
    """Run a block, then restore the random state it started from (``torch.random.fork_rng``).

    The default generator's state is saved and restored, and so is that of each listed
    accelerator device (``devices``) of ``device_type`` (default: the current accelerator,
    else 'cuda'). ember has no accelerator, so ``devices`` left as None means none, and naming
    a CUDA device raises as a CPU-only torch does.

    Example:
        >>> with ember.random.fork_rng():
        ...     a = ember.rand(2)
        >>> with ember.random.fork_rng():
        ...     b = ember.rand(2)
        >>> bool((a == b).all())
        True
    """
    import ember

    device_mod = ember.get_device_module(device_type or "cuda")
    if not enabled:
        yield
        return
    # A CPU-only process has no accelerator devices, so torch's warning about initializing
    # every device (given when there are more than one) never applies.
    devices = list(range(device_mod.device_count())) if devices is None else list(devices)
    cpu_state = get_rng_state()
    device_states = [device_mod.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, st in zip(devices, device_states, strict=True):
            device_mod.set_rng_state(st, d)


def thread_safe_generator():
    """The generator of the current DataLoader thread worker: None (ember's workers are
    processes, and the main process uses the default generator)."""
    return None
