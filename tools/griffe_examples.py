"""A griffe extension for the API reference (mkdocs.yml): ember's docstrings title their
doctest section ``Example:`` (STYLE.md), which griffe's Google parser reads as an admonition
of free text; renamed ``Examples:`` it becomes a code section, rendered as code."""

from __future__ import annotations

import re

from griffe import Extension

_EXAMPLE_TITLE = re.compile(r"^Example:[ \t]*$", re.MULTILINE)


class ExampleSections(Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE_TITLE.sub("Examples:", obj.docstring.value)
