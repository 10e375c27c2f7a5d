"""``torch.ao.quantization`` (partial): observers, fake quantizers, qconfigs and the quant/dequant
stubs. The eager flow (``prepare``/``convert``/``quantize_dynamic``) and the quantized modules
are not written yet."""

from ember.ao.quantization.fake_quantize import *  # noqa: F403
from ember.ao.quantization.observer import *  # noqa: F403
from ember.ao.quantization.qconfig import *  # noqa: F403
from ember.ao.quantization.stubs import *  # noqa: F403

# The eager flow is not built yet: its names raise, never a silently different result.
_NOT_YET = (
    "add_quant_dequant convert fuse_modules fuse_modules_qat prepare prepare_qat "
    "propagate_qconfig_ quantize quantize_dynamic quantize_qat swap_module"
).split()


def __getattr__(name):
    if name in _NOT_YET:
        from ember._unsupported import _QUANT, Unsupported

        return Unsupported(f"ember.ao.quantization.{name}", _QUANT)
    raise AttributeError(f"module 'ember.ao.quantization' has no attribute {name!r}")
