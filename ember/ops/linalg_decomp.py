"""torch.linalg functions (issue 12); see LINALG_ALL for the names ember.linalg re-exports."""

from __future__ import annotations

# Public top-level names (torch.<name>), star-exported by ember.
__all__: list = []
# Names re-exported by ember.linalg (torch.linalg.<name>).
LINALG_ALL: tuple = ()
