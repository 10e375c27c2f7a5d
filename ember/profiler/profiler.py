"""``ember.profiler.profiler`` (torch's file of the same name): the profiler and its schedule,
defined in ``ember.profiler``."""

from ember.profiler import (
    ProfilerAction,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "ProfilerAction",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
