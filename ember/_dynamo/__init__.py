"""Where torch keeps what ``torch.compile`` returns for a module (``torch._dynamo.eval_frame
.OptimizedModule``): scripts test ``isinstance(model, torch._dynamo.eval_frame.OptimizedModule)``
to unwrap a compiled model, so ember keeps the class at the same path."""

from ember._dynamo import eval_frame  # noqa: F401
