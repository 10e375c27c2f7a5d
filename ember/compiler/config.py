"""``ember.compiler.config``: torch.compiler's settings, kept so that scripts which set them run.

ember has no compiler, so none of these changes what ember computes.
"""

job_id = None
pgo_extra_read_key = None
pgo_extra_write_key = None
cache_key_tag = ""
force_disable_caches = False
dynamic_sources = ""
dynamic_values = ""
unbacked_sources = ""
force_cudagraph_gc = False
dynamic_shapes = True
assume_static_by_default = True
automatic_dynamic_shapes = True
recompile_limit = 8
accumulated_recompile_limit = 256
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
log_file_name = None
fail_on_recompile_limit_hit = False
allow_unspec_int_on_nn_module = False
skip_tensor_guards_with_matching_dict_tags = True
enable_cpp_symbolic_shape_guards = False
wrap_top_frame = False
reorderable_logging_functions: set = set()
